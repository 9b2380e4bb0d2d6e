package netmodel

import "testing"

// TestCostsAtOnce: Costs gives what each cost's own method gives, on
// links whose per-byte CPU or wire cost is the larger, at sizes from 0 up.
func TestCostsAtOnce(t *testing.T) {
	for _, p := range []*LogGP{
		{Latency: 1000, Overhead: 300, Gap: 500, ByteGap: 77, ByteOverhead: 13},
		{Latency: 1000, Overhead: 900, Gap: 100, ByteGap: 2, ByteOverhead: 1333},
	} {
		for _, n := range []int64{0, 1, 2, 8, 8192, 1 << 30} {
			cpu, wire := p.DataCosts(n)
			want := Costs{SendCPU: p.SendCPU(n), SendNIC: p.SendNIC(n), RecvCPU: p.RecvCPU(n), RecvNIC: p.RecvNIC(n), DataCPU: cpu, DataWire: wire}
			if got := p.Costs(n); got != want {
				t.Errorf("%+v, %d bytes: %+v, want %+v", *p, n, got, want)
			}
		}
	}
}
