package repl

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parley-hpc/parley/netmodel"
)

// TestScaleRegimes: scaling the network scales every regime's
// parameters too, and leaves the platform it was copied from alone.
func TestScaleRegimes(t *testing.T) {
	regime := netmodel.LogGP{Latency: 100, Overhead: 10, Gap: 4, ByteGap: 2000, ByteOverhead: 1000}
	orig := netmodel.Platform{Network: netmodel.LogGP{Latency: 1000, Regimes: []netmodel.Regime{{UpTo: 256, LogGP: regime}}}}
	p := orig
	scale(&p, 1, 2)
	want := netmodel.LogGP{Latency: 200, Overhead: 20, Gap: 8, ByteGap: 4000, ByteOverhead: 2000}
	if p.Network.Latency != 2000 || !cmp.Equal(p.Network.Regimes[0].LogGP, want) || p.Network.Regimes[0].UpTo != 256 {
		t.Errorf("scaled network %+v, want L 2000 ps and regime %+v", p.Network, want)
	}
	if !cmp.Equal(orig.Network.Regimes[0].LogGP, regime) {
		t.Errorf("scaling changed the original platform's regime to %+v", orig.Network.Regimes[0].LogGP)
	}
}
