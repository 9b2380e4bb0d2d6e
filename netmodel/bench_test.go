package netmodel

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchTorus is interp's BenchmarkNetworkModels torus
// (testdata/torus16.toml) under model (flow or packet).
func benchTorus(b *testing.B, model string) *Platform {
	b.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "torus16.toml"))
	if err != nil {
		b.Fatal(err)
	}
	p, err := Parse(bytes.Replace(src, []byte(`model = "flow"`), fmt.Appendf(nil, "model = %q", model), 1), "torus16.toml")
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// haloDriver sends a halo's messages through a Network alone, without the
// interpreter: each round every node sends a face to its six neighbours
// on the 16^3 torus at once, then, once all are in, the 12 rounds of a
// recursive-doubling allreduce of 8 bytes, each starting when the one
// before has ended everywhere. It returns the messages sent.
func haloDriver(net Network, face int64, rounds int) int64 {
	const side = 16
	const nodes = side * side * side
	var at Duration
	var msgs int64
	wait := func() {
		for {
			t, ok := net.Next()
			if !ok {
				return
			}
			at = t
			net.Step(t, func(int32) {})
		}
	}
	for range rounds {
		for n := int64(0); n < nodes; n++ {
			x, y, z := n%side, n/side%side, n/(side*side)
			for _, d := range [6][3]int64{{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}} {
				m := (x+d[0]+side)%side + side*((y+d[1]+side)%side) + side*side*((z+d[2]+side)%side)
				net.Send(at, n, m, face, int32(msgs))
				msgs++
			}
		}
		wait()
		for k := int64(1); k < nodes; k <<= 1 {
			for n := int64(0); n < nodes; n++ {
				net.Send(at, n, n^k, 8, int32(msgs))
				msgs++
			}
			wait()
		}
	}
	return msgs
}

// BenchmarkNetworkHalo measures the flow and packet models alone on the
// halo of interp's BenchmarkNetworkModels (two rounds of 32 KiB faces, and
// for packet 256 KiB faces too): messages per second and, for packet,
// packet-hops (links between routers crossed) per second. Without the
// interpreter's work, and its share of a loaded machine's noise, these
// say what a change to a model does:
//
//	go test ./netmodel -run '^$' -bench NetworkHalo -benchtime 4x -cpu 1
func BenchmarkNetworkHalo(b *testing.B) {
	for _, c := range []struct {
		name string
		face int64
		make func(*Platform) Network
	}{
		{"flow", 32 << 10, func(p *Platform) Network { return NewFlowNet(p, 1) }},
		{"packet", 32 << 10, func(p *Platform) Network { return NewPacketNet(p, 1) }},
		{"packet-256KiB", 256 << 10, func(p *Platform) Network { return NewPacketNet(p, 1) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			model := "flow"
			if c.name != "flow" {
				model = "packet"
			}
			p := benchTorus(b, model)
			var msgs, hops int64
			for b.Loop() {
				net := c.make(p)
				msgs += haloDriver(net, c.face, 2)
				hops += net.Stats().Hops
			}
			b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
			if model == "packet" {
				b.ReportMetric(float64(hops)/b.Elapsed().Seconds(), "pkt-hops/s")
			}
		})
	}
}
