package calibrate

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parley-hpc/parley/netmodel"
)

// A synthetic machine with known parameters, in microseconds and bytes.
const (
	wantL   = 1.2
	wantO   = 0.3
	wantGap = 0.5
	wantG   = 1e-4 // 10 GB/s
	wantBO  = 2e-5 // O
	wantS   = 12288
	wantF   = 4e9  // flop/s per task
	wantB   = 20e9 // B/s per task
)

// synthetic returns what Measure would measure on the synthetic machine,
// each time off by up to noise (a fraction), drawn from a fixed seed.
func synthetic(noise float64) *Data {
	rng := rand.New(rand.NewPCG(1, 2))
	jitter := func(v float64) float64 { return v * (1 + noise*(2*rng.Float64()-1)) }
	d := &Data{NP: 2}
	for _, n := range Sizes(4 << 20) {
		// LogGOPS as the interpreter prices it (docs/interpreter.md): o + L
		// + o + (n-1)G eagerly, 2L more for a rendezvous.
		rest := float64(max(n-1, 0))
		half := 2*wantO + wantL + rest*wantG
		if n > wantS {
			half += 2 * wantL
		}
		d.PingPong = append(d.PingPong, Point{n, jitter(half)})
		if n > 64<<10 {
			continue
		}
		send := wantO + rest*wantBO
		if n > wantS { // a rendezvous send waits for the receiver
			send = recvDelayUs + 2
		}
		d.Send = append(d.Send, Point{n, jitter(send)})
		recv := wantO + rest*max(wantBO, wantG)
		if n > wantS { // the clear-to-send and the data make a round trip
			recv += 2 * wantL
		}
		d.Recv = append(d.Recv, Point{n, jitter(recv)})
		if n == 0 || n&(n-1) == 0 && n >= 64 {
			for k := 1; k <= 32; k *= 2 {
				// A rendezvous holds the sender's NIC for its request too.
				period := wantGap + rest*wantG
				if n > wantS {
					period += wantGap
				}
				d.Train = append(d.Train, TrainPoint{n, k, jitter(2*wantL + float64(k)*period)})
			}
		}
	}
	for per := int64(4); per <= 32; per *= 2 {
		f, b := 2*4096*per, int64(16*4096)
		d.Flops = append(d.Flops, WorkPoint{f, b, jitter(float64(f) / wantF * 1e6)})
	}
	for b := int64(8 << 20); b <= 128<<20; b *= 2 {
		d.Stream = append(d.Stream, WorkPoint{0, b, jitter(float64(b) / wantB * 1e6)})
	}
	return d
}

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Abs(want) {
		t.Errorf("%s = %.6g, want %.6g (within %.0f%%)", name, got, want, 100*tol)
	}
}

// TestFitRecoversParameters: the fitter finds the parameters of a machine
// that follows the model, exactly without noise and closely with 1%.
func TestFitRecoversParameters(t *testing.T) {
	for _, c := range []struct {
		noise, tol float64
	}{{0, 1e-6}, {0.01, 0.05}} {
		f, err := FitAll(synthetic(c.noise))
		if err != nil {
			t.Fatal(err)
		}
		if f.Eager != wantS || !f.EagerFound {
			t.Errorf("noise %g: S = %d (found %v), want %d", c.noise, f.Eager, f.EagerFound, wantS)
		}
		near(t, "L", f.L, wantL, c.tol)
		near(t, "o", f.O, wantO, c.tol)
		near(t, "g", f.Gap, wantGap, c.tol)
		near(t, "G", f.G, wantG, 2*c.tol)
		near(t, "flops", f.FlopRate, wantF, c.tol)
		near(t, "memory bandwidth", f.MemBandwidth, wantB, c.tol)
		if c.noise == 0 {
			near(t, "O", f.ByteOverhead, wantBO, c.tol)
			if f.PingPong.R2 < 0.999999 || f.PingPong.MaxRel > 1e-6 {
				t.Errorf("a perfect fit's quality: %v", f.PingPong)
			}
			if f.SendUsed != countEager(synthetic(0).Send, wantS) {
				t.Errorf("fitted %d send points, want every eager one", f.SendUsed)
			}
		}
		for _, n := range f.Notes {
			if strings.Contains(n, "rendezvous costs") {
				t.Errorf("noise %g: a machine that follows LogGOPS got the note %q", c.noise, n)
			}
		}
	}
}

// TestFitRendezvousRegime: a protocol switch far dearer than 2L gets a
// regime of its own, whose 3L carry the extra cost, while the eager
// regime keeps the machine's L; the model then follows the sweep exactly.
func TestFitRendezvousRegime(t *testing.T) {
	d := synthetic(0)
	for i, p := range d.PingPong {
		if p.Size > wantS {
			d.PingPong[i].Us += 10
		}
	}
	f, err := FitAll(d)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "L", f.L, wantL, 1e-6)
	if f.Eager != wantS || len(f.Regimes) != 2 || f.Regimes[0].UpTo != wantS || !f.Regimes[1].Rendezvous {
		t.Fatalf("S = %d, regimes %+v", f.Eager, f.Regimes)
	}
	near(t, "eager L", f.Regimes[0].L, wantL, 1e-6)
	near(t, "rendezvous L", f.Regimes[1].L, wantL+10.0/3, 1e-6)
	near(t, "rendezvous G", f.Regimes[1].G, wantG, 1e-6)
	near(t, "rendezvous g", f.Regimes[1].Gap, wantGap, 1e-6)
	if f.PingPong.MaxRel > 1e-6 || f.Single.MaxRel < 0.5 {
		t.Errorf("with regimes %v, with one set %v: want exact, and off", f.PingPong, f.Single)
	}
}

// steppedMachine is the synthetic machine with a third regime: messages
// up to 256 B cost o = 0.2 us and L = 0.8 us (a small-message buffer),
// and G = 1.5e-4 us/B up to S. As on Open MPI's shared memory, the step
// at S is the larger.
func steppedMachine(noise float64) *Data {
	d := synthetic(noise)
	rng := rand.New(rand.NewPCG(3, 4))
	jitter := func(v float64) float64 { return v * (1 + noise*(2*rng.Float64()-1)) }
	const smallO, smallL, midG = 0.2, 0.8, 1.5e-4
	for i, p := range d.PingPong {
		rest := float64(max(p.Size-1, 0))
		switch {
		case p.Size <= 256:
			d.PingPong[i].Us = jitter(2*smallO + smallL + rest*wantG)
		case p.Size <= wantS:
			d.PingPong[i].Us = jitter(2*wantO + wantL + rest*midG)
		}
	}
	for i, p := range d.Send {
		if p.Size <= 256 {
			d.Send[i].Us = jitter(smallO + float64(max(p.Size-1, 0))*wantBO)
		}
	}
	for i, p := range d.Recv {
		if p.Size <= 256 {
			d.Recv[i].Us = jitter(smallO + float64(max(p.Size-1, 0))*wantG)
		}
	}
	return d
}

// TestFitFindsBreaks: the breakpoints of a machine with three regimes are
// recovered at the sizes where it steps, and each regime's parameters
// closely, with 1% noise too.
func TestFitFindsBreaks(t *testing.T) {
	for _, c := range []struct{ noise, tol float64 }{{0, 1e-6}, {0.01, 0.1}} {
		f, err := FitAll(steppedMachine(c.noise))
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Regimes) != 3 || f.Regimes[0].UpTo != 256 || f.Regimes[1].UpTo != wantS || f.Regimes[2].UpTo != math.MaxInt64 {
			t.Fatalf("noise %g: regimes %+v, want breaks at 256 B and S = %d", c.noise, f.Regimes, wantS)
		}
		r := f.Regimes
		near(t, "small o", r[0].O, 0.2, c.tol)
		near(t, "small L", r[0].L, 0.8, c.tol)
		near(t, "middle o", r[1].O, wantO, c.tol)
		near(t, "middle L", r[1].L, wantL, c.tol)
		near(t, "middle G", r[1].G, 1.5e-4, c.tol)
		near(t, "rendezvous L", r[2].L, wantL, c.tol)
		near(t, "rendezvous G", r[2].G, wantG, c.tol)
		if !r[0].OwnO || !r[1].OwnO || r[2].OwnO || r[2].O != r[1].O {
			t.Errorf("noise %g: o fitted per regime %v %v %v; the rendezvous's o %g, want the largest eager messages' %g", c.noise, r[0].OwnO, r[1].OwnO, r[2].OwnO, r[2].O, r[1].O)
		}
		if c.noise == 0 && f.PingPong.MaxRel > 1e-6 {
			t.Errorf("the regimes' model is off: %v", f.PingPong)
		}
	}
}

// TestFindBreaksNone: neither a straight line nor noise around one has
// breakpoints.
func TestFindBreaksNone(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var line, noisy []Point
	for _, n := range Sizes(1 << 20) {
		v := 0.5 + 1e-4*float64(n)
		line = append(line, Point{n, v})
		noisy = append(noisy, Point{n, v * (1 + 0.03*(2*rng.Float64()-1))})
	}
	for name, pts := range map[string][]Point{"line": line, "3% noise": noisy} {
		if b := FindBreaks(pts, 0, false); len(b) > 0 {
			t.Errorf("%s: breaks at %v", name, b)
		}
	}
}

func TestFindEagerOnALine(t *testing.T) {
	var pts []Point
	for _, n := range Sizes(1 << 20) {
		pts = append(pts, Point{n, 0.5 + 1e-4*float64(n)})
	}
	if s, ok := FindEager(pts, 0); ok {
		t.Errorf("a straight line has an eager limit at %d", s)
	}
	f, err := FitAll(&Data{NP: 2, PingPong: synthetic(0).PingPong, Send: synthetic(0).Send, Recv: pts, Train: synthetic(0).Train,
		Flops: synthetic(0).Flops, Stream: synthetic(0).Stream})
	if err != nil {
		t.Fatal(err)
	}
	if f.EagerFound || f.Eager != 4<<20 || !strings.Contains(strings.Join(f.Notes, "\n"), "no eager/rendezvous switch") {
		t.Errorf("S = %d (found %v), notes %q", f.Eager, f.EagerFound, f.Notes)
	}
}

// TestFitOverheadsAbovePingPong: when the overheads measured exceed half
// the ping-pong (four tasks on two processors), L would be negative; the
// regime then has L = 0 and o fitted to the ping-pong, which it follows.
func TestFitOverheadsAbovePingPong(t *testing.T) {
	d := synthetic(0)
	for i := range d.Send {
		d.Send[i].Us += 1
	}
	for i := range d.Recv {
		d.Recv[i].Us += 1
	}
	f, err := FitAll(d)
	if err != nil {
		t.Fatal(err)
	}
	r := f.Regimes[0]
	if !r.OFromPingPong || r.L != 0 || r.OwnO {
		t.Fatalf("eager regime %+v: want o from the ping-pong and L = 0", r)
	}
	near(t, "o", r.O, wantO+wantL/2, 1e-6)
	near(t, "G", r.G, wantG, 1e-6)
	if r.PingPong.MaxRel > 1e-6 {
		t.Errorf("the eager regime's model is off: %v", r.PingPong)
	}
}

// TestFindEagerFromReceives: of two steps in the receive overheads, S is
// the larger size's (the fast box ends before the rendezvous starts), and
// one slow receive is not a switch.
func TestFindEagerFromReceives(t *testing.T) {
	var recv []Point
	for _, n := range Sizes(256 << 10) {
		us := 0.25 + 1e-4*float64(n)
		if n > 256 { // the fast box ends
			us += 0.15
		}
		if n > 3072 { // the rendezvous: a round trip
			us += 0.5
		}
		recv = append(recv, Point{n, us})
	}
	if s, ok := FindEager(recv, 0); s != 3072 || !ok {
		t.Errorf("S = %d (found %v), want 3072", s, ok)
	}
	var spiky []Point
	for _, p := range recv {
		if p.Size <= 3072 {
			if p.Size == 1024 {
				p.Us *= 2
			}
			spiky = append(spiky, p)
		}
	}
	if s, ok := FindEager(spiky, 0); s != 256 || !ok {
		t.Errorf("with a slow receive at 1 KiB and no rendezvous: S = %d (found %v), want the fast box's 256", s, ok)
	}
}

func TestFitTooLittleData(t *testing.T) {
	d := synthetic(0)
	d.PingPong = d.PingPong[:2]
	if _, err := FitAll(d); err == nil || !strings.Contains(err.Error(), "ping-pong") {
		t.Errorf("two ping-pong sizes: %v", err)
	}
	d = synthetic(0)
	d.Stream = nil
	if _, err := FitAll(d); err == nil || !strings.Contains(err.Error(), "compute kernels") {
		t.Errorf("no memory kernel points: %v", err)
	}
}

// TestWritePlatform: the file reads back through netmodel with the fitted
// values, and its comments carry the date and each fit's quality.
func TestWritePlatform(t *testing.T) {
	f, err := FitAll(synthetic(0.01))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	date := time.Date(2026, 11, 25, 23, 30, 0, 0, time.UTC)
	if err := WritePlatform(&b, Machine{Name: "box", Host: "box", MPI: "Open MPI 4.1.4", Cores: 2, Date: date}, f); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	p, err := netmodel.Parse([]byte(text), "box.toml")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	n := p.Network
	// [network] is the last regime, the rendezvous; times are written in
	// whole picoseconds.
	last := f.Regimes[len(f.Regimes)-1]
	near(t, "L", n.Latency.Micros(), last.L, 1e-5)
	near(t, "o", n.Overhead.Micros(), last.O, 1e-5)
	near(t, "g", n.Gap.Micros(), last.Gap, 1e-5)
	near(t, "G", float64(n.ByteGap)/1e9, last.G, 1e-3)
	near(t, "O", float64(n.ByteOverhead)/1e9, f.ByteOverhead, 1e-3)
	if n.Eager != f.Eager || p.Machine.TasksPerNode != 2 {
		t.Errorf("S = %d, tasks per node %d", n.Eager, p.Machine.TasksPerNode)
	}
	// The others are [[network.regime]]s.
	if len(n.Regimes) != len(f.Regimes)-1 || len(n.Regimes) == 0 {
		t.Fatalf("%d regimes read back, want %d", len(n.Regimes), len(f.Regimes)-1)
	}
	for i, r := range n.Regimes {
		fr := f.Regimes[i]
		if r.UpTo != fr.UpTo {
			t.Errorf("regime %d: upto %d, want %d", i, r.UpTo, fr.UpTo)
		}
		near(t, "regime L", r.Latency.Micros(), fr.L, 1e-5)
		near(t, "regime o", r.Overhead.Micros(), fr.O, 1e-5)
		near(t, "regime g", r.Gap.Micros(), fr.Gap, 1e-5)
		near(t, "regime G", float64(r.ByteGap)/1e9, fr.G, 1e-3)
	}
	near(t, "flops", p.Machine.Nodes[0].FlopRate, 2*f.FlopRate, 1e-5)
	near(t, "memory bandwidth", p.Machine.Nodes[0].MemBandwidth, 2*f.MemBandwidth, 1e-5)
	for _, want := range []string{"2026-11-25 23:30 UTC", "R^2 = ", "relative residuals rms", "Open MPI 4.1.4", "Regime 1, eager messages up to 12288 B", "Regime 2, rendezvous messages above 12288 B"} {
		if !strings.Contains(text, want) {
			t.Errorf("the platform file lacks %q:\n%s", want, text)
		}
	}
}

func TestDataRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.json")
	d := synthetic(0.01)
	if err := d.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadData(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.PingPong) != len(d.PingPong) || back.Train[5] != d.Train[5] || back.Stream[1] != d.Stream[1] {
		t.Errorf("the data changed on the way through JSON")
	}
	if err := (&Data{}).Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadData(path); err == nil || !strings.Contains(err.Error(), "not measurements") {
		t.Errorf("empty data: %v", err)
	}
}

func TestParseLines(t *testing.T) {
	d := &Data{}
	for _, l := range []string{"pingpong 8 200 0.5", "send 8 200 0.1", "recv 8 200 0.2", "train 8 4 200 3", "work 100 64 30 1.5", "work 0 64 30 0.5"} {
		if err := d.parse(l); err != nil {
			t.Errorf("%q: %v", l, err)
		}
	}
	if len(d.PingPong) != 1 || len(d.Send) != 1 || len(d.Recv) != 1 || d.Train[0].K != 4 || len(d.Flops) != 1 || len(d.Stream) != 1 {
		t.Errorf("parsed %+v", d)
	}
	for _, l := range []string{"pingpong 8 x 0.5", "pingpong 8", "hello", "work 1 2 3"} {
		if err := d.parse(l); err == nil {
			t.Errorf("%q parsed", l)
		}
	}
}

func TestSizes(t *testing.T) {
	got := Sizes(16)
	want := []int64{0, 1, 2, 3, 4, 6, 8, 12, 16}
	if len(got) != len(want) {
		t.Fatalf("Sizes(16) = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Sizes(16) = %v, want %v", got, want)
		}
	}
}

// TestFitByteOverheadBoundedByReceives: when the eager sends above 256 B
// waited for the receiver, O rests on the smallest sizes; a steep slope
// there (noise on a real machine) must not make O larger than the
// receives' slope, which bounds it too.
func TestFitByteOverheadBoundedByReceives(t *testing.T) {
	d := synthetic(0)
	for i, p := range d.Send {
		rest := float64(max(p.Size-1, 0))
		if p.Size <= 256 {
			d.Send[i].Us = wantO + rest*1e-3 // 1 ns/B, ten times G
		} else {
			d.Send[i].Us = recvDelayUs + 2
		}
	}
	f, err := FitAll(d)
	if err != nil {
		t.Fatal(err)
	}
	recvSlope := max(wantBO, wantG)
	near(t, "O", f.ByteOverhead, recvSlope, 1e-6)
	if !slices.ContainsFunc(f.Notes, func(n string) bool { return strings.Contains(n, "O is the receives'") }) {
		t.Errorf("no note on O among %q", f.Notes)
	}
}

// TestFindEagerNearDeclaredLimit: receives that step at 256 B (a fast
// box), at 4032 B (the rendezvous, Open MPI's 4096 B limit less its
// header) and, from noise, at 8192 B: searched over every size S is the
// last step, near the MPI's declared limit it is the rendezvous; with a
// declared limit where nothing steps, the search over every size is used
// and says so.
func TestFindEagerNearDeclaredLimit(t *testing.T) {
	var recv []Point
	for _, n := range append(Sizes(64<<10), 4032, 4092) {
		us := 0.3 + float64(n)*1e-4
		if n > 256 {
			us += 0.5
		}
		if n > 4032 {
			us += 2
		}
		if n > 8192 {
			us *= 1.5
		}
		recv = append(recv, Point{n, us})
	}
	if s, ok := FindEager(recv, 0); s != 8192 || !ok {
		t.Errorf("over every size: S = %d (%v), want 8192, the last step", s, ok)
	}
	if s, ok := FindEager(recv, 4096); s != 4032 || !ok {
		t.Errorf("near 4096 B: S = %d (%v), want 4032", s, ok)
	}
	d := &Data{Recv: recv, MPIEagerLimit: 4096}
	if s, ok, note := d.findEager(); s != 4032 || !ok || note != "" {
		t.Errorf("Data.findEager near 4096 B: %d %v %q", s, ok, note)
	}
	d.MPIEagerLimit = 1 << 20
	if s, ok, note := d.findEager(); s != 8192 || !ok || !strings.Contains(note, "near the MPI's eager limit of 1048576 B") {
		t.Errorf("Data.findEager near 1 MiB: %d %v %q", s, ok, note)
	}
}

func TestParseOmpiEagerLimit(t *testing.T) {
	out := "mca:btl:vader:param:btl_vader_fbox_size:value:4096\nmca:btl:vader:param:btl_vader_eager_limit:value:4096\nmca:btl:vader:param:btl_vader_eager_limit:source:default\n"
	if n := parseOmpiEagerLimit([]byte(out)); n != 4096 {
		t.Errorf("parsed %d, want 4096", n)
	}
	if n := parseOmpiEagerLimit([]byte("ompi_info: not found\n")); n != 0 {
		t.Errorf("parsed %d from no limit, want 0", n)
	}
}
