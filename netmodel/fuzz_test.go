package netmodel

import (
	"io/fs"
	"testing"

	"github.com/parley-hpc/parley/stdlib"
)

// FuzzParse: no platform file, however broken, panics the reader, and what
// it accepts is valid.
func FuzzParse(f *testing.F) {
	names, _ := fs.Glob(stdlib.Platforms, "platforms/*.toml")
	for _, n := range names {
		data, _ := fs.ReadFile(stdlib.Platforms, n)
		f.Add(string(data))
	}
	f.Add("name = \"x\"\n[network]\nmodel = \"loggp\"\nL = \"1 parsec\"\n")
	f.Add("name = \"x\"\n[network]\nmodel = \"packet\"\no = \"0\"\ng = \"0\"\nmtu = \"100B\"\nbuffer = \"200B\"\n[network.topology]\nkind = \"torus\"\ndims = [3, 2]\nbandwidth = \"1GB/s\"\nlatency = \"1us\"\n[machine]\n[[machine.nodes]]\nname = \"n\"\nflops = 1e9\nmemory_bandwidth = \"1GB/s\"\n")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Parse([]byte(src), "fuzz.toml")
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Parse accepted an invalid platform: %v", err)
		}
		// Pricing anything on it must not panic either.
		p.LinkTo(0, 1, 2).OneWay(1000)
		p.Machine.Work(0, 2, 1e9, 1e9)
		p.Machine.ComputeFor(1, 2, 5)
		// A topology small enough to build routes carries flows or
		// packets.
		if t := p.Topology; t != nil && t.LinkCount() < 1<<16 {
			n := t.NodeCount()
			var f Network = NewFlowNet(p, 1)
			if p.Model == PacketModel {
				f = NewPacketNet(p, 1)
			}
			if n > 1 {
				f.Send(0, 0, n-1, 1000, 0)
				f.Send(0, n-1, 0, 0, 1)
			}
			for {
				at, ok := f.Next()
				if !ok {
					break
				}
				f.Step(at, func(int32) {})
			}
		}
	})
}
