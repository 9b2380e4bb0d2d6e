package calibrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"
)

// Quality says how well a least-squares fit matches its points.
type Quality struct {
	N int // points fitted
	// R2 is the coefficient of determination, 1 - SSres/SStot, of the
	// unweighted residuals: 1 is a perfect fit, 0 no better than the mean.
	R2 float64
	// RMSRel and MaxRel are the root mean square and the largest relative
	// residual, |model - measured| / measured.
	RMSRel, MaxRel float64
}

func (q Quality) String() string {
	return fmt.Sprintf("R^2 = %.4f, relative residuals rms %.1f%% max %.1f%% over %d points", q.R2, 100*q.RMSRel, 100*q.MaxRel, q.N)
}

// quality compares the model's values with the measured ones.
func quality(measured, model []float64) Quality {
	q := Quality{N: len(measured)}
	if q.N == 0 {
		return q
	}
	var mean float64
	for _, y := range measured {
		mean += y
	}
	mean /= float64(q.N)
	var ssRes, ssTot, rel2 float64
	for i, y := range measured {
		d := model[i] - y
		ssRes += d * d
		ssTot += (y - mean) * (y - mean)
		if y != 0 {
			r := math.Abs(d / y)
			rel2 += r * r
			q.MaxRel = max(q.MaxRel, r)
		}
	}
	q.R2 = 1
	if ssTot > 0 {
		q.R2 = 1 - ssRes/ssTot
	}
	q.RMSRel = math.Sqrt(rel2 / float64(q.N))
	return q
}

// errUnderdetermined is returned for too few points to fit.
var errUnderdetermined = errors.New("too few distinct points to fit")

// leastSquares returns the coefficients c minimizing the sum over i of
// w[i] (y[i] - sum_j c[j] x[i][j])^2, by QR factorization (gonum). A nil
// w weighs every point alike.
func leastSquares(x [][]float64, y, w []float64) ([]float64, error) {
	n := len(y)
	if n == 0 || n < len(x[0]) {
		return nil, errUnderdetermined
	}
	k := len(x[0])
	a := mat.NewDense(n, k, nil)
	b := mat.NewDense(n, 1, nil)
	for i := range n {
		s := 1.0
		if w != nil {
			s = math.Sqrt(w[i])
		}
		for j := range k {
			a.Set(i, j, s*x[i][j])
		}
		b.Set(i, 0, s*y[i])
	}
	var qr mat.QR
	qr.Factorize(a)
	var c mat.Dense
	if err := qr.SolveTo(&c, false, b); err != nil {
		return nil, fmt.Errorf("%w: %w", errUnderdetermined, err)
	}
	coef := make([]float64, k)
	for j := range k {
		coef[j] = c.At(j, 0)
		if math.IsNaN(coef[j]) || math.IsInf(coef[j], 0) {
			return nil, errUnderdetermined
		}
	}
	return coef, nil
}

// Line is a fitted straight line y = Intercept + Slope x.
type Line struct {
	Intercept, Slope float64
	Quality
}

// At returns the line's value at x.
func (l Line) At(x float64) float64 { return l.Intercept + l.Slope*x }

// fitLine fits y = a + b x to the points by relative least squares
// (weights 1/y^2): on a busy machine the outliers are slow runs, and a
// point twice too slow then weighs a quarter as much.
func fitLine(xs, ys []float64) (Line, error) {
	x := make([][]float64, len(xs))
	for i, v := range xs {
		x[i] = []float64{1, v}
	}
	c, err := leastSquares(x, ys, relWeights(ys))
	if err != nil {
		return Line{}, err
	}
	l := Line{Intercept: c[0], Slope: c[1]}
	model := make([]float64, len(xs))
	for i, v := range xs {
		model[i] = l.At(v)
	}
	l.Quality = quality(ys, model)
	return l, nil
}

// Point is one measurement: a message size in bytes (or a count) and a
// time in microseconds.
type Point struct {
	Size int64
	Us   float64
}

// relWeights weighs each point by 1/y^2, so that least squares minimizes
// relative residuals: a 4 MiB ping-pong then counts no more than an empty
// one, as in the percentage errors that `parley validate` reports.
func relWeights(ys []float64) []float64 {
	w := make([]float64, len(ys))
	for i, y := range ys {
		w[i] = 1 / max(y*y, 1e-12)
	}
	return w
}

// Piecewise is a ping-pong curve around an eager limit, all three
// coefficients free: half a round trip of n bytes takes A + (n-1) G up to
// Eager bytes and A + Jump + (n-1) G above.
type Piecewise struct {
	Eager        int64
	A, G, Jump   float64 // us, us/B, us
	Quality      Quality
	weightedLoss float64 // the relative least-squares loss
}

func (p Piecewise) at(n int64) float64 {
	v := p.A + float64(max(n-1, 0))*p.G
	if n > p.Eager {
		v += p.Jump
	}
	return v
}

// fitPiecewise fits the piecewise model with its eager limit at eager, by
// relative least squares.
func fitPiecewise(pts []Point, eager int64) (Piecewise, error) {
	x := make([][]float64, len(pts))
	y := make([]float64, len(pts))
	above := countAbove(pts, eager)
	for i, p := range pts {
		x[i] = []float64{1, float64(max(p.Size-1, 0))}
		if above > 0 { // else there is no jump to fit
			step := 0.0
			if p.Size > eager {
				step = 1
			}
			x[i] = append(x[i], step)
		}
		y[i] = p.Us
	}
	w := relWeights(y)
	c, err := leastSquares(x, y, w)
	if err != nil {
		return Piecewise{}, err
	}
	pw := Piecewise{Eager: eager, A: c[0], G: c[1]}
	if above > 0 {
		pw.Jump = c[2]
	}
	model := make([]float64, len(pts))
	for i, p := range pts {
		model[i] = pw.at(p.Size)
		d := model[i] - p.Us
		pw.weightedLoss += w[i] * d * d
	}
	pw.Quality = quality(y, model)
	return pw, nil
}

// MaxEager is the largest size FindEager and FindBreaks consider: MPIs switch protocols
// well below it (Open MPI's shared memory at 4 KiB, its InfiniBand at 12
// KiB, MPICH at 64 or 128 KiB), and larger messages on a busy machine
// vary too much to place a switch by.
const MaxEager = 256 << 10

// minSide is the fewest sizes a break leaves on either side: a lone slow
// point is noise, not a protocol.
const minSide = 4

// FindEager returns the eager limit S from the receive overheads (an
// MPI_Recv of a message sent 20 us before it): an eager message is there
// already and costs a copy, a rendezvous message has sent only its
// request, and the receive waits for the clear-to-send and the data to
// make a round trip. A size after which the next two sizes' receives both
// take minRendezvousStep times what the line through it and the size two
// before extrapolates is a switch of protocol (one slow receive is not);
// S is the largest such size whose next is at most maxRecvEager, since the rendezvous comes after the
// eager protocols (Open MPI's shared memory also steps at 256 B, where
// its fast box ends, by as much). S lies between the returned size and
// the next one measured; ok is false when there is no switch (a protocol
// without a rendezvous in the sizes measured, or too few of them).
//
// declared, when positive, is the eager limit the MPI says it uses (see
// Data.MPIEagerLimit): the switch is then looked for only at sizes in
// (declared/2, declared], the last eager payload being the limit less the
// transport's header. On this machine a rendezvous costs only about
// 0.3 us more than an eager receive, and the search without it put S at
// 256 B, 4032 B, 8184 B and 14686 B in four calibrations of one hour.
func FindEager(recv []Point, declared int64) (eager int64, ok bool) {
	pts := slices.DeleteFunc(sortedBySize(recv), func(p Point) bool { return p.Size > MaxEager })
	bound := int64(maxRecvEager)
	if declared > 0 {
		bound = max(bound, 2*declared)
	}
	for i := 2; i+2 < len(pts) && pts[i+1].Size <= bound; i++ {
		a, b, next, after := pts[i-2], pts[i], pts[i+1], pts[i+2]
		if a.Size == b.Size || b.Size == next.Size || next.Size == after.Size {
			continue
		}
		if declared > 0 && (b.Size <= declared/2 || b.Size > declared) {
			continue
		}
		slope := max((b.Us-a.Us)/float64(b.Size-a.Size), 0)
		want := b.Us + slope*float64(next.Size-b.Size)
		if want > 0 && min(next.Us, after.Us) >= minRendezvousStep*want {
			eager, ok = b.Size, true
		}
	}
	return eager, ok
}

// findEager is FindEager on d's receives, near the MPI's own limit where
// it is known; note says when that found no switch and the search over
// every size was used instead.
func (d *Data) findEager() (eager int64, ok bool, note string) {
	if d.MPIEagerLimit > 0 {
		if eager, ok = FindEager(d.Recv, d.MPIEagerLimit); ok {
			return eager, ok, ""
		}
		note = fmt.Sprintf("no switch in the receive overheads near the MPI's eager limit of %d B: S is searched over every size", d.MPIEagerLimit)
	}
	eager, ok = FindEager(d.Recv, 0)
	return eager, ok, note
}

// maxRecvEager bounds the sizes FindEager looks at: Open MPI, which
// parley calibrate runs, switches at 4 KiB on shared memory and at 12 KiB
// on InfiniBand. Above, the receives of a busy machine (a 32 KiB receive
// 1.4 times as slow as the trend, once in four runs) and of messages
// leaving the caches (1.5 times from 64 to 96 KiB) step as much as a
// switch does.
const maxRecvEager = 16 << 10

// minRendezvousStep is the least ratio of the receives after a switch of
// protocol to the trend before it that FindEager takes for a switch.
const minRendezvousStep = 1.3

func sortedBySize(pts []Point) []Point {
	pts = slices.Clone(pts)
	slices.SortStableFunc(pts, func(a, b Point) int {
		switch {
		case a.Size < b.Size:
			return -1
		case a.Size > b.Size:
			return 1
		}
		return 0
	})
	return pts
}

// TrainPoint is the time of a train of K back-to-back messages of Size
// bytes, and the empty acknowledgement after it, in microseconds.
type TrainPoint struct {
	Size int64
	K    int
	Us   float64
}

// WorkPoint is the time of the C backend's compute kernel on Flops
// floating-point operations and Bytes of memory traffic, in microseconds.
type WorkPoint struct {
	Flops, Bytes int64
	Us           float64
}

// Data is what Measure measured, and where and when.
type Data struct {
	Host  string
	MPI   string // mpirun's version line
	Cores int
	Date  time.Time

	NP int
	// MPIEagerLimit is the eager limit the MPI says it uses between tasks
	// of one node (Open MPI's btl_vader_eager_limit, from ompi_info), or 0
	// where it cannot be read.
	MPIEagerLimit int64   `json:",omitempty"`
	PingPong      []Point // half round trips
	Send          []Point // MPI_Send into an idle receiver
	Recv          []Point // MPI_Recv of a message that is already there
	Train         []TrainPoint
	Flops         []WorkPoint // compute-bound: a small buffer, many flops per byte
	Stream        []WorkPoint // memory-bound: no flops, large buffers
}

// Save writes the data as JSON, for LoadData.
func (d *Data) Save(path string) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// LoadData reads data that Save wrote.
func LoadData(path string) (*Data, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d := &Data{}
	if err := json.Unmarshal(b, d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if d.NP < 2 {
		return nil, fmt.Errorf("%s: NP is %d: not measurements that parley calibrate saved", path, d.NP)
	}
	return d, nil
}

// Fit holds the fitted parameters, in microseconds and bytes, and each
// fit's quality.
type Fit struct {
	NP int // tasks the machine model is for

	L, O, G, Gap, ByteOverhead float64 // us, us, us/B, us, us/B: L, o, G, g, O
	Eager                      int64   // S
	EagerFound                 bool    // false: no protocol switch in the sweep

	// SendLine and RecvLine are the overhead fits o_s + (n-1)O_s and
	// o_r + (n-1)O_r; o is their intercepts' mean.
	SendLine, RecvLine Line
	SendUsed           int // send points fitted (those that did not wait for the receiver)
	// Regimes are the parameters of each piece of the ping-pong curve
	// between its breakpoints (FindBreaks), the last one open-ended; the
	// platform prices messages with them. L, o, g and G above are the
	// single eager fit, the first regime's when there are no breaks.
	Regimes []Regime
	// PingPong is the quality of the ping-pong model with the regimes,
	// Single with L, o and G alone, for comparison; Free is the
	// piecewise line fitted without the model's ties (intercept, slope and
	// jump free) around S.
	PingPong, Single Quality
	Free             Piecewise
	Measured         []Point // the ping-pong sweep, by size
	// Periods are the train periods per size (us per message); Stream
	// fits them over the eager sizes: g + (n-1) G_stream.
	Periods []Point
	Train   Line

	FlopLine, StreamLine Line // time against flops, and against bytes, through the origin
	// FlopRate and MemBandwidth are per task, while NP tasks compute at
	// once: flop/s and B/s.
	FlopRate, MemBandwidth float64

	// Notes say where the model cannot follow the machine.
	Notes []string
}

// recvDelayUs is how long the receiver of the overhead mode waits before
// it calls MPI_Recv (kernels.c, RECV_DELAY_US): a send that takes half of
// it has waited for the receiver rather than for its own CPU.
const recvDelayUs = 20

// HalfRTT is the LogGOPS time of half a ping-pong of n bytes between idle
// tasks, as the interpreter prices it: o + L + o + (n-1) max(O, G), and
// 2L more for the rendezvous of a message larger than S, with the
// parameters of n's regime.
func (f *Fit) HalfRTT(n int64) float64 {
	if r := f.regime(n); r != nil {
		return halfRTT(n, r.L, r.O, r.G, f.ByteOverhead, f.Eager)
	}
	return f.singleHalfRTT(n)
}

// singleHalfRTT is HalfRTT with the single eager fit for every size.
func (f *Fit) singleHalfRTT(n int64) float64 {
	return halfRTT(n, f.L, f.O, f.G, f.ByteOverhead, f.Eager)
}

func halfRTT(n int64, l, o, g, byteO float64, eager int64) float64 {
	v := 2*o + l + float64(max(n-1, 0))*max(g, byteO)
	if n > eager {
		v += 2 * l
	}
	return v
}

// FitAll fits the LogGOPS parameters and the roofline to the data:
//
//   - S: the split of the ping-pong curve that leaves the least relative
//     residual (FindEager);
//   - o: the mean of the send and receive overheads' intercepts, each a
//     line fitted to the eager sizes (o_s + (n-1)O_s, o_r + (n-1)O_r);
//   - O: the send overhead's slope O_s (the sender's CPU per byte);
//   - L and G: with o fixed, relative least squares of the eager model
//     half-RTT(n) - 2o = L + (n-1) G over the ping-pong sizes up to S.
//     LogGOPS then charges a rendezvous 2L more; Notes say how far that is
//     from the measured jump, which one L cannot follow too;
//   - g: the intercept of the train periods over the eager sizes (at
//     least those up to 1 KiB), each period the slope of a train's time
//     against its length;
//   - the flop rate and memory bandwidth: the inverse slopes of the
//     kernel's time against flops and against bytes, lines through the
//     origin fitted by relative least squares;
//   - regimes: the ping-pong curve cut at its breakpoints (FindBreaks),
//     each piece with its own L, o, g and G (fitRegimes).
func FitAll(d *Data) (*Fit, error) {
	f := &Fit{NP: d.NP}
	pp := sortedBySize(d.PingPong)
	if len(pp) < 4 {
		return nil, fmt.Errorf("ping-pong: %d sizes measured, need at least 4", len(pp))
	}
	f.Measured = pp
	var note string
	f.Eager, f.EagerFound, note = d.findEager()
	if note != "" {
		f.Notes = append(f.Notes, note)
	}
	if !f.EagerFound {
		f.Eager = pp[len(pp)-1].Size
		f.Notes = append(f.Notes, "no eager/rendezvous switch in the receive overheads: S is the largest size measured")
	}
	var err error
	if f.Free, err = fitPiecewise(pp, f.Eager); err != nil {
		return nil, fmt.Errorf("ping-pong: %w", err)
	}
	if err := f.fitOverheads(d); err != nil {
		return nil, err
	}
	if err := f.fitLatency(pp); err != nil {
		return nil, err
	}
	if err := f.fitTrains(d.Train); err != nil {
		return nil, err
	}
	if err := f.fitMachine(d); err != nil {
		return nil, err
	}
	if err := f.fitRegimes(d, FindBreaks(pp, f.Eager, f.EagerFound)); err != nil {
		return nil, err
	}
	model := make([]float64, len(pp))
	for i, p := range pp {
		model[i] = f.HalfRTT(p.Size)
	}
	f.PingPong = quality(pp2us(pp), model)
	return f, nil
}

// overheadPoints returns the send and receive overheads of sizes in
// (lo, hi] as (n-1, us) pairs, leaving out the sends that took more than
// half the receiver's delay: they waited for it.
func overheadPoints(d *Data, lo, hi int64) (sx, sy, rx, ry []float64) {
	for _, p := range d.Send {
		if p.Size > lo && p.Size <= hi && p.Us < recvDelayUs/2 {
			sx, sy = append(sx, float64(max(p.Size-1, 0))), append(sy, p.Us)
		}
	}
	for _, p := range d.Recv {
		if p.Size > lo && p.Size <= hi {
			rx, ry = append(rx, float64(max(p.Size-1, 0))), append(ry, p.Us)
		}
	}
	return sx, sy, rx, ry
}

// overheadLines fits the send and receive overheads of sizes in (lo, hi];
// ok is false unless each has two sizes or more.
func overheadLines(d *Data, lo, hi int64) (send, recv Line, ok bool) {
	sx, sy, rx, ry := overheadPoints(d, lo, hi)
	if len(sx) < 2 || len(rx) < 2 {
		return Line{}, Line{}, false
	}
	send, err1 := fitLine(sx, sy)
	recv, err2 := fitLine(rx, ry)
	return send, recv, err1 == nil && err2 == nil
}

func (f *Fit) fitOverheads(d *Data) error {
	sx, sy, rx, ry := overheadPoints(d, -1, f.Eager)
	var err error
	if f.SendLine, err = fitLine(sx, sy); err != nil {
		return fmt.Errorf("send overhead (%d eager sizes returned before the receiver was ready): %w", len(sx), err)
	}
	if f.RecvLine, err = fitLine(rx, ry); err != nil {
		return fmt.Errorf("receive overhead: %w", err)
	}
	f.SendUsed = len(sx)
	if n := countEager(d.Send, f.Eager); n > len(sx) {
		f.Notes = append(f.Notes, fmt.Sprintf("%d of %d eager sends waited for the receiver (the transport's send is not buffered at those sizes); O is fitted to the others", n-len(sx), n))
	}
	f.O = max((f.SendLine.Intercept+f.RecvLine.Intercept)/2, 0)
	// Both sides pay O a byte, so each slope bounds it from above. The
	// sends' is the closer bound when they span the eager sizes, but where
	// the larger ones waited for the receiver it rests on the few smallest
	// sizes, and their noise once made O 0.97 ns/B, four times the
	// receives' slope; the smaller slope is the better bound.
	f.ByteOverhead = max(f.SendLine.Slope, 0)
	if r := max(f.RecvLine.Slope, 0); r < f.ByteOverhead {
		f.Notes = append(f.Notes, fmt.Sprintf("the eager sends' overhead grows %.3g ns/B, more than the receives' %.3g ns/B: O is the receives'", 1e3*f.ByteOverhead, 1e3*r))
		f.ByteOverhead = r
	}
	return nil
}

func countAbove(pts []Point, eager int64) int {
	return len(pts) - countEager(pts, eager)
}

func countEager(pts []Point, eager int64) int {
	n := 0
	for _, p := range pts {
		if p.Size <= eager {
			n++
		}
	}
	return n
}

func (f *Fit) fitLatency(pp []Point) error {
	var negL bool
	var err error
	if f.L, f.G, negL, err = fitLG(piece(pp, -1, f.Eager), f.O, 1); err != nil {
		return err
	}
	if negL {
		f.Notes = append(f.Notes, "the eager ping-pong fit wants a negative L: L is 0, and o alone carries the latency")
	}
	model := make([]float64, len(pp))
	for i, p := range pp {
		model[i] = f.singleHalfRTT(p.Size)
	}
	f.Single = quality(pp2us(pp), model)
	return nil
}

// fitLG fits L and G to ping-pong points with o fixed: relative least
// squares of half-RTT(n) - 2o = hops L + (n-1) G, hops being 1 for eager
// messages and 3 for a rendezvous. Neither may be negative: if one would
// be, it is 0 and the other is refitted alone (negL says L was).
func fitLG(pts []Point, o, hops float64) (l, g float64, negL bool, err error) {
	x := make([][]float64, len(pts))
	y := make([]float64, len(pts))
	for i, p := range pts {
		x[i] = []float64{hops, float64(max(p.Size-1, 0))}
		y[i] = p.Us - 2*o
	}
	w := relWeights(pp2us(pts))
	c, err := leastSquares(x, y, w)
	if err != nil {
		return 0, 0, false, fmt.Errorf("ping-pong: %w", err)
	}
	l, g = c[0], c[1]
	switch {
	case l < 0:
		return 0, weightedSlope(x, y, w, 1), true, nil
	case g < 0:
		return weightedSlope(x, y, w, 0), 0, false, nil
	}
	return l, g, false, nil
}

// weightedSlope fits y = c x[col] alone, by weighted least squares.
func weightedSlope(x [][]float64, y, w []float64, col int) float64 {
	var num, den float64
	for i := range y {
		num += w[i] * x[i][col] * y[i]
		den += w[i] * x[i][col] * x[i][col]
	}
	if den == 0 {
		return 0
	}
	return max(num/den, 0)
}

func pp2us(pts []Point) []float64 {
	y := make([]float64, len(pts))
	for i, p := range pts {
		y[i] = p.Us
	}
	return y
}

// minTrainFit is the size up to which train periods are fitted even when
// the eager limit found is lower: on a busy machine a spurious limit must
// not leave g without points.
const minTrainFit = 1024

func (f *Fit) fitTrains(train []TrainPoint) error {
	bySize := map[int64][]TrainPoint{}
	for _, t := range train {
		bySize[t.Size] = append(bySize[t.Size], t)
	}
	sizes := make([]int64, 0, len(bySize))
	for s := range bySize {
		sizes = append(sizes, s)
	}
	slices.Sort(sizes)
	var px, py []float64
	for _, s := range sizes {
		var ks, ts []float64
		for _, t := range bySize[s] {
			ks, ts = append(ks, float64(t.K)), append(ts, t.Us)
		}
		l, err := fitLine(ks, ts)
		if err != nil {
			continue // a size with one train length says nothing of the period
		}
		f.Periods = append(f.Periods, Point{Size: s, Us: l.Slope})
		if s <= max(f.Eager, minTrainFit) {
			px, py = append(px, float64(max(s-1, 0))), append(py, l.Slope)
		}
	}
	var err error
	if f.Train, err = fitLine(px, py); err != nil {
		return fmt.Errorf("message trains (%d eager sizes): %w", len(px), err)
	}
	f.Gap = max(f.Train.Intercept, 0)
	if f.Gap < f.O {
		f.Notes = append(f.Notes, fmt.Sprintf("small messages stream every %.3g us, less than o = %.3g us: the CPU, not g, limits them", f.Gap, f.O))
	}
	return nil
}

// ComputeRates fits the compute kernels' measurements as FitAll does:
// the flop rate and memory bandwidth of one task while d.NP tasks compute
// at once.
func ComputeRates(d *Data) (flopRate, memBandwidth float64, err error) {
	var f Fit
	if err := f.fitMachine(d); err != nil {
		return 0, 0, err
	}
	return f.FlopRate, f.MemBandwidth, nil
}

func (f *Fit) fitMachine(d *Data) error {
	var fx, fy, bx, by []float64
	for _, p := range d.Flops {
		fx, fy = append(fx, float64(p.Flops)), append(fy, p.Us)
	}
	for _, p := range d.Stream {
		bx, by = append(bx, float64(p.Bytes)), append(by, p.Us)
	}
	f.FlopLine, f.StreamLine = fitProportional(fx, fy), fitProportional(bx, by)
	switch {
	case f.FlopLine.N == 0 || f.StreamLine.N == 0:
		return fmt.Errorf("compute kernels: %w", errUnderdetermined)
	case f.FlopLine.Slope <= 0 || f.StreamLine.Slope <= 0:
		return errors.New("the compute kernels took no time: the timings are noise; run again on a quieter machine")
	}
	f.FlopRate = 1e6 / f.FlopLine.Slope
	f.MemBandwidth = 1e6 / f.StreamLine.Slope
	return nil
}

// fitProportional fits y = b x, a line through the origin as the roofline
// has (no work takes no time), by relative least squares: b minimizes the
// sum of ((y - b x) / y)^2.
func fitProportional(xs, ys []float64) Line {
	var num, den float64
	for i, x := range xs {
		if ys[i] > 0 {
			num += x / ys[i]
			den += x * x / (ys[i] * ys[i])
		}
	}
	l := Line{}
	if den > 0 {
		l.Slope = num / den
	}
	model := make([]float64, len(xs))
	for i, x := range xs {
		model[i] = l.At(x)
	}
	l.Quality = quality(ys, model)
	return l
}
