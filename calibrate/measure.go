package calibrate

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/parley-hpc/parley/codegen"
	"github.com/parley-hpc/parley/internal/mpirun"
)

//go:embed csrc/parley_calib.c
var kernels []byte

// Options control Measure.
type Options struct {
	MPICC, MPIRun string
	// CFlags are mpicc's flags: those `parley compile --build` uses, so that
	// the compute kernel runs as it does in a compiled benchmark.
	CFlags []string
	NP     int    // tasks: at least 2
	Dir    string // where the kernels are built
	// MaxSize is the largest message of the sweeps (4 MiB by default).
	MaxSize int64
	// Timeout bounds each mpirun (one per sweep).
	Timeout time.Duration
	// Progress, if set, is told what is being measured as it goes.
	Progress func(Progress)
}

// Progress reports one measurement as it arrives.
type Progress struct {
	Stage       string // "ping-pong", "overheads", "trains", "compute"
	Done, Total int    // lines of this stage so far, and expected
	Line        string // the measurement, as the kernel printed it
}

// Sizes returns the message sizes of the sweeps: 0, then 1, 2, 3, 4, 6,
// 8, 12, ... (powers of two and their halfway points, so that the eager
// limit is bracketed within a factor of 1.5) up to max.
func Sizes(max int64) []int64 {
	s := []int64{0}
	for p := int64(1); p <= max; p *= 2 {
		s = append(s, p)
		if h := p + p/2; p >= 2 && h <= max {
			s = append(s, h)
		}
	}
	return s
}

// Measure builds the kernels and runs the sweeps: ping-pong, send and
// receive overheads (refined twice around the eager limit they show), the
// ping-pong again around each of its breaks, message trains and the
// compute kernels.
func Measure(ctx context.Context, o Options) (*Data, error) {
	if o.NP < 2 {
		return nil, fmt.Errorf("calibration needs at least 2 tasks, not %d", o.NP)
	}
	if o.MaxSize == 0 {
		o.MaxSize = 4 << 20
	}
	exe, err := build(o)
	if err != nil {
		return nil, err
	}
	d := &Data{NP: o.NP}
	sizes := Sizes(o.MaxSize)
	if err := run(ctx, o, exe, "ping-pong", "pingpong", sizes, len(sizes), d.parse); err != nil {
		return nil, err
	}
	// The receive overheads place S (FindEager): measured up to MaxEager,
	// then twice more finely between the two sizes S lies between.
	var small []int64
	for _, s := range sizes {
		if s <= MaxEager {
			small = append(small, s)
		}
	}
	if err := run(ctx, o, exe, "overheads", "overhead", small, 2*len(small), d.parse); err != nil {
		return nil, err
	}
	d.MPIEagerLimit = ompiEagerLimit(ctx, o.MPIRun)
	for range 2 {
		lo, ok, _ := d.findEager()
		hi := nextSize(d.Recv, lo)
		if !ok || hi-lo <= 64 { // close enough: a cache line
			break
		}
		fine := between(lo, hi, 16)
		if err := run(ctx, o, exe, "overheads (around the eager limit)", "overhead", fine, 2*len(fine), d.parse); err != nil {
			return nil, err
		}
	}
	limit, found, _ := d.findEager()
	// Two finer ping-pong sweeps between the sizes each other break lies
	// between.
	for range 2 {
		for _, b := range FindBreaks(d.PingPong, limit, found) {
			hi := nextSize(d.PingPong, b)
			if hi-b <= 64 {
				continue
			}
			fine := between(b, hi, 16)
			stage := fmt.Sprintf("ping-pong (between %d and %d B)", b, hi)
			if err := run(ctx, o, exe, stage, "pingpong", fine, len(fine), d.parse); err != nil {
				return nil, err
			}
		}
	}
	// Trains are fitted over the eager sizes and the rendezvous ones
	// beyond.
	if !found {
		limit = o.MaxSize
	}
	var train []int64
	for _, s := range sizes {
		if s == 0 || s&(s-1) == 0 && s >= 64 && s <= max(4*limit, 64<<10) {
			train = append(train, s)
		}
	}
	if err := run(ctx, o, exe, "trains", "train", train, 6*len(train), d.parse); err != nil {
		return nil, err
	}
	if err := measureCompute(ctx, o, exe, d); err != nil {
		return nil, err
	}
	return d, nil
}

// MeasureCompute builds the kernels and runs only the compute kernels on
// o.NP tasks at once (at least 1), as Measure does last: ComputeRates
// fits them. parley validate uses it to tell whether the machine still
// computes as fast as when it was calibrated.
func MeasureCompute(ctx context.Context, o Options) (*Data, error) {
	if o.NP < 1 {
		return nil, fmt.Errorf("the compute kernels need at least 1 task, not %d", o.NP)
	}
	exe, err := build(o)
	if err != nil {
		return nil, err
	}
	d := &Data{NP: o.NP}
	if err := measureCompute(ctx, o, exe, d); err != nil {
		return nil, err
	}
	return d, nil
}

func measureCompute(ctx context.Context, o Options, exe string, d *Data) error {
	work := computeArgs()
	return run(ctx, o, exe, "compute", "compute", work, len(work)/2, d.parse)
}

// computeArgs are the compute mode's (flops, bytes) pairs: the flop
// kernel on 64 KiB of memory traffic (4096 elements, in cache) with 4 to
// 32 multiply-adds per element, and the memory kernel alone on 8 to 128
// MiB, beyond the caches.
func computeArgs() []int64 {
	const elems = 4096
	var a []int64
	for per := int64(4); per <= 32; per *= 2 {
		a = append(a, 2*elems*per, 16*elems)
	}
	for b := int64(8 << 20); b <= 128<<20; b *= 2 {
		a = append(a, 0, b)
	}
	return a
}

func nextSize(pts []Point, after int64) int64 {
	next := int64(-1)
	for _, p := range pts {
		if p.Size > after && (next < 0 || p.Size < next) {
			next = p.Size
		}
	}
	return next
}

// between returns up to n sizes strictly between lo and hi, evenly spaced.
func between(lo, hi int64, n int64) []int64 {
	var s []int64
	step := max((hi-lo)/(n+1), 1)
	for v := lo + step; v < hi; v += step {
		s = append(s, v)
	}
	return s
}

// buildTimeout bounds mpicc, which builds the kernels in seconds.
const buildTimeout = 5 * time.Minute

// build writes the kernels and the C backend's run-time header into
// o.Dir and compiles them.
func build(o Options) (string, error) {
	src := filepath.Join(o.Dir, "parley_calib.c")
	if err := os.WriteFile(src, kernels, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(o.Dir, codegen.RuntimeName), codegen.Runtime(), 0o644); err != nil {
		return "", err
	}
	exe := filepath.Join(o.Dir, "parley_calib")
	args := append(append([]string{}, o.CFlags...), "-o", exe, src, "-lm")
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	if out, err := exec.CommandContext(ctx, o.MPICC, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("mpicc %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return exe, nil
}

// run runs one mode of the kernels, handing each line to parse.
func run(ctx context.Context, o Options, exe, stage, mode string, args []int64, total int, parse func(string) error) error {
	strArgs := []string{mode}
	for _, a := range args {
		strArgs = append(strArgs, strconv.FormatInt(a, 10))
	}
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		err := mpirun.Run(ctx, mpirun.Job{MPIRun: o.MPIRun, NP: o.NP, Exe: exe, Args: strArgs, Dir: o.Dir,
			Stdout: pw, Stderr: &stderr, Timeout: o.Timeout})
		pw.CloseWithError(err)
		done <- err
	}()
	sc := bufio.NewScanner(pr)
	n := 0
	var parseErr error
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if err := parse(line); err != nil {
			parseErr = err
			continue
		}
		n++
		if o.Progress != nil {
			o.Progress(Progress{Stage: stage, Done: n, Total: total, Line: line})
		}
	}
	pr.Close()
	err := <-done
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w\n%s", stage, err, strings.TrimSpace(stderr.String()))
	case parseErr != nil:
		return fmt.Errorf("%s: %w", stage, parseErr)
	case n < total:
		return fmt.Errorf("%s: the kernels printed %d measurements of %d\n%s", stage, n, total, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// errLine is wrapped by parse's errors.
var errLine = errors.New("not a measurement line")

// parse records one line the kernels printed.
func (d *Data) parse(line string) error {
	f := strings.Fields(line)
	nums := make([]float64, len(f))
	for i := 1; i < len(f); i++ {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return fmt.Errorf("%w: %q", errLine, line)
		}
		nums[i] = v
	}
	want := map[string]int{"pingpong": 4, "send": 4, "recv": 4, "train": 5, "work": 5}
	if len(f) == 0 || want[f[0]] != len(f) {
		return fmt.Errorf("%w: %q", errLine, line)
	}
	last := nums[len(f)-1]
	switch f[0] {
	case "pingpong":
		d.PingPong = append(d.PingPong, Point{int64(nums[1]), last})
	case "send":
		d.Send = append(d.Send, Point{int64(nums[1]), last})
	case "recv":
		d.Recv = append(d.Recv, Point{int64(nums[1]), last})
	case "train":
		d.Train = append(d.Train, TrainPoint{Size: int64(nums[1]), K: int(nums[2]), Us: last})
	case "work":
		p := WorkPoint{Flops: int64(nums[1]), Bytes: int64(nums[2]), Us: last}
		if p.Flops == 0 {
			d.Stream = append(d.Stream, p)
		} else {
			d.Flops = append(d.Flops, p)
		}
	}
	return nil
}

// ompiEagerLimit returns Open MPI's eager limit on shared memory
// (btl_vader_eager_limit), as the ompi_info beside mpiRun (or on the
// path) reports it, or 0 where ompi_info is missing, fails or does not say
// (another MPI).
func ompiEagerLimit(ctx context.Context, mpiRun string) int64 {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	info := filepath.Join(filepath.Dir(mpiRun), "ompi_info")
	if _, err := os.Stat(info); err != nil {
		info = "ompi_info"
	}
	out, err := exec.CommandContext(ctx, info, "--parsable", "--level", "9", "--param", "btl", "vader").Output()
	if err != nil {
		return 0
	}
	return parseOmpiEagerLimit(out)
}

// parseOmpiEagerLimit reads btl_vader_eager_limit's value from ompi_info's
// parsable output.
func parseOmpiEagerLimit(out []byte) int64 {
	const key = "mca:btl:vader:param:btl_vader_eager_limit:value:"
	for line := range strings.Lines(string(out)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), key); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}
