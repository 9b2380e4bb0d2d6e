package interp

import (
	"testing"

	"github.com/parley-hpc/parley/netmodel"
)

// TestMsgCosts: the kept costs are always the asked-for link's and size's,
// as the link prices them, however the links and sizes alternate.
func TestMsgCosts(t *testing.T) {
	a := &netmodel.LogGP{Latency: 1000, Overhead: 300, Gap: 500, ByteGap: 77, ByteOverhead: 13, Eager: 1 << 20}
	b := &netmodel.LogGP{Latency: 1000, Overhead: 900, Gap: 100, ByteGap: 1333, ByteOverhead: 2, Eager: 1 << 20}
	var c msgCosts
	for i, q := range []struct {
		link  *netmodel.LogGP
		bytes int64
	}{{a, 8192}, {a, 8192}, {b, 8192}, {b, 8}, {a, 8}, {a, 0}, {a, 8192}, {b, 1 << 19}, {b, 1 << 19}} {
		got := *c.of(q.link, q.bytes)
		want := msgCosts{link: q.link, bytes: q.bytes, Costs: netmodel.Costs{SendCPU: q.link.SendCPU(q.bytes), SendNIC: q.link.SendNIC(q.bytes),
			RecvCPU: q.link.RecvCPU(q.bytes), RecvNIC: q.link.RecvNIC(q.bytes)}}
		want.DataCPU, want.DataWire = q.link.DataCosts(q.bytes)
		if got != want {
			t.Fatalf("ask %d (%d bytes): %+v, want %+v", i, q.bytes, got, want)
		}
	}
}
