package netmodel

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// regimePlatform has two regimes below its eager limit and one above.
const regimePlatform = `name = "regimes"
[network]
model = "loggp"
L = "1us"
o = "500ns"
g = "100ns"
G = "1ns/B"
O = "10ps/B"
S = "4KiB"

[[network.regime]]
upto = "256B"
o = "200ns"
L = "100ns"

[[network.regime]]
upto = "4KiB"
G = "2ns/B"

[[network.regime]]
upto = "64KiB"
L = "3us"
g = "1us"
O = "0ps/B"

[network.intra]
o = "300ns"

[machine]
nodes = [{name = "n", flops = 1e9, memory_bandwidth = "1GB/s"}]
`

func TestParseRegimes(t *testing.T) {
	p, err := Parse([]byte(regimePlatform), "regimes.toml")
	if err != nil {
		t.Fatal(err)
	}
	base := LogGP{Latency: Microsecond, Overhead: 500 * Nanosecond, Gap: 100 * Nanosecond, ByteGap: 1_000_000, ByteOverhead: 10_000, Eager: 4096}
	with := func(l LogGP, edit func(*LogGP)) LogGP { edit(&l); return l }
	want := []Regime{
		{UpTo: 256, LogGP: with(base, func(l *LogGP) { l.Overhead, l.Latency = 200*Nanosecond, 100*Nanosecond })},
		{UpTo: 4096, LogGP: with(base, func(l *LogGP) { l.ByteGap = 2_000_000 })},
		{UpTo: 64 << 10, LogGP: with(base, func(l *LogGP) { l.Latency, l.Gap, l.ByteOverhead = 3*Microsecond, Microsecond, 0 })},
	}
	if diff := cmp.Diff(want, p.Network.Regimes); diff != "" {
		t.Errorf("network regimes (-want +got):\n%s", diff)
	}
	// [network.intra] has no regimes of its own: it takes [network]'s,
	// over its own values (o = 300 ns where a regime does not set o).
	intraBase := with(base, func(l *LogGP) { l.Overhead = 300 * Nanosecond })
	wantIntra := []Regime{
		{UpTo: 256, LogGP: want[0].LogGP},
		{UpTo: 4096, LogGP: with(intraBase, func(l *LogGP) { l.ByteGap = 2_000_000 })},
		{UpTo: 64 << 10, LogGP: with(intraBase, func(l *LogGP) { l.Latency, l.Gap, l.ByteOverhead = 3*Microsecond, Microsecond, 0 })},
	}
	if diff := cmp.Diff(wantIntra, p.Intra.Regimes); diff != "" {
		t.Errorf("intra regimes (-want +got):\n%s", diff)
	}

	// Regimes of its own replace [network]'s.
	own := strings.Replace(regimePlatform, "o = \"300ns\"\n", "o = \"300ns\"\n[[network.intra.regime]]\nupto = 8\no = \"1ns\"\n", 1)
	p, err = Parse([]byte(own), "own.toml")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Regime{{UpTo: 8, LogGP: with(base, func(l *LogGP) { l.Overhead = Nanosecond })}}; !cmp.Equal(want, p.Intra.Regimes) {
		t.Errorf("intra's own regimes = %+v, want %+v", p.Intra.Regimes, want)
	}
}

func TestRegimeAt(t *testing.T) {
	p, err := Parse([]byte(regimePlatform), "regimes.toml")
	if err != nil {
		t.Fatal(err)
	}
	l := &p.Network
	for _, c := range []struct {
		n    int64
		want *LogGP
	}{
		{0, &l.Regimes[0].LogGP},
		{256, &l.Regimes[0].LogGP},
		{257, &l.Regimes[1].LogGP},
		{4096, &l.Regimes[1].LogGP},
		{4097, &l.Regimes[2].LogGP},
		{64 << 10, &l.Regimes[2].LogGP},
		{64<<10 + 1, l},
		{1 << 40, l},
	} {
		if got := l.At(c.n); got != c.want {
			t.Errorf("At(%d) = %+v, want %+v", c.n, got, c.want)
		}
	}
	// The regime prices the message: 100 B cost o + L + o = 0.5 us less
	// than under the base parameters, 1 KiB pay G = 2 ns/B.
	if got, want := l.At(100).OneWay(100), 200*Nanosecond+100*Nanosecond+200*Nanosecond+99*Nanosecond; got != want {
		t.Errorf("100 B one way = %v, want %v", got, want)
	}
	if got, want := l.At(1024).RecvCPU(1024), 500*Nanosecond+1023*2*Nanosecond; got != want {
		t.Errorf("1 KiB receive = %v, want %v", got, want)
	}
	// The eager limit stays the link's in every regime.
	if l.At(4096).Rendezvous(4096) || !l.At(4097).Rendezvous(4097) {
		t.Error("the rendezvous does not start above S in the regimes")
	}
	// Without regimes At is the link itself.
	plain := LogGP{Latency: Microsecond}
	if plain.At(0) != &plain || plain.At(1<<50) != &plain {
		t.Error("At without regimes is not the link")
	}
}

func TestRegimeMaxBytes(t *testing.T) {
	l := LogGP{ByteGap: 1000, Regimes: []Regime{{UpTo: 10, LogGP: LogGP{ByteGap: 1_000_000}}}}
	slow := LogGP{ByteGap: 1_000_000}
	if got, want := l.MaxBytes(), slow.MaxBytes(); got != want {
		t.Errorf("MaxBytes = %d, want %d: the largest per-byte cost of any regime", got, want)
	}
}

func TestRegimeErrors(t *testing.T) {
	flow := `name = "f"
[network]
model = "flow"
o = "1us"
g = "0"
[[network.regime]]
upto = "1KiB"
o = "2us"
[network.topology]
kind = "star"
nodes = 2
bandwidth = "10GB/s"
latency = "1us"
[machine]
nodes = [{name = "n", flops = 1e9, memory_bandwidth = "1GB/s"}]
`
	for _, c := range []struct {
		src, old, new string
		field, msg    string
	}{
		{regimePlatform, `upto = "4KiB"`, `upto = "256B"`, "network.regime[1].upto", "is not above the previous regime's upto (256 B)"},
		{regimePlatform, `upto = "4KiB"`, `upto = "100B"`, "network.regime[1].upto", "list the regimes by increasing size"},
		{regimePlatform, `upto = "256B"`, `upto = "-1B"`, "network.regime[0].upto", "is negative"},
		{regimePlatform, `upto = "256B"`, ``, "network.regime[0].upto", "missing"},
		{regimePlatform, `upto = "256B"`, `upto = "two hundred"`, "network.regime[0].upto", "is not a size"},
		{regimePlatform, `G = "2ns/B"`, `G = "-2ns/B"`, "network.regime[1].G", "negative"},
		{regimePlatform, `G = "2ns/B"`, `S = "8KiB"`, "network.regime[1].S", "unknown key"},
		{regimePlatform, `L = "3us"`, `L = "3000000s"`, "network.regime[2].L", "beyond the longest time"},
		{regimePlatform, "o = \"300ns\"\n", "o = \"300ns\"\n[[network.intra.regime]]\nupto = 8\no = \"-1ns\"\n", "network.intra.regime[0].o", "is negative"},
		{flow, "[[network.regime]]\nupto = \"1KiB\"\no = \"2us\"", "regime = \"small\"", "network.regime", "must be an array of tables, not a string"},
		{flow, `o = "2us"`, `L = "2us"`, "network.regime[0].L", "a regime may set o, g and O"},
		{flow, `o = "2us"`, `G = "1GB/s"`, "network.regime[0].G", "a regime may set o, g and O"},
	} {
		if !strings.Contains(c.src, c.old) {
			t.Fatalf("%q is not in the platform", c.old)
		}
		_, err := Parse([]byte(strings.Replace(c.src, c.old, c.new, 1)), "bad.toml")
		var perr *PlatformError
		if !errors.As(err, &perr) || perr.Field != c.field || !strings.HasPrefix(err.Error(), "bad.toml: "+c.field+": ") || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s -> %s: got %v, want bad.toml: %s: ...%s...", c.old, c.new, err, c.field, c.msg)
		}
	}
	// Platforms built in Go are validated alike.
	p := &Platform{Network: LogGP{Eager: 4096, Regimes: []Regime{{UpTo: 10, LogGP: LogGP{Eager: 8192}}}}, Machine: Machine{TasksPerNode: 1, Nodes: []NodeGroup{{Name: "n", FlopRate: 1, MemBandwidth: 1, Speed: 1}}, IntSize: 4, PageSize: 4096}}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "network.regime[0].S: 8192 B differs from network.S") {
		t.Errorf("a regime with its own eager limit: %v", err)
	}
}
