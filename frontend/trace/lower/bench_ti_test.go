package lower

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parley-hpc/parley/frontend/trace/scalatrace"
)

// luC16 is the path of NAS LU class C on 16 ranks in the public
// ScalaTrace-TI collection (github.com/frs69wq/ScalaTrace-TI, traces/ti),
// whose directory PARLEY_SCALATRACE_TI names; "" if it is not set.
func luC16() string {
	dir := os.Getenv("PARLEY_SCALATRACE_TI")
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "lu", "C", "16", "I", "0")
}

const noTI = "PARLEY_SCALATRACE_TI is not set: it names the traces/ti directory of github.com/frs69wq/ScalaTrace-TI, which holds lu/C/16/I/0"

// TestFidelityLUC16: LU class C on 16 ranks, 3.9 million point-to-point
// calls, lowers to a program whose calls per rank and kind (count, bytes)
// are the trace's. Its main loop's 249 iterations are matched twice and
// skipped 247 times.
func TestFidelityLUC16(t *testing.T) {
	path := luC16()
	if path == "" {
		t.Skip(noTI)
	}
	if testing.Short() {
		t.Skip("interprets 3.9 million calls")
	}
	tr, err := scalatrace.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Lower(tr, Options{Name: "lu-C-16"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Classes != 9 {
		t.Errorf("%d rank behaviours; want 9", res.Classes)
	}
	checkCalls(t, tr, res, 16)
}

// BenchmarkLowerLUC16 reads and lowers LU class C on 16 ranks.
func BenchmarkLowerLUC16(b *testing.B) {
	path := luC16()
	if path == "" {
		b.Skip(noTI)
	}
	b.ReportAllocs()
	for b.Loop() {
		tr, err := scalatrace.Read(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Lower(tr, Options{Name: "lu-C-16"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLowerVsPlainExpansion runs, one after the other in each
// round, testdata/plain_expand.py (Python 3: read the trace, expand every
// rank's loops into events, count them) and reading and lowering the
// same trace, and reports both times and their ratio: LU class C on 16
// ranks if PARLEY_SCALATRACE_TI is set, else the shared LU class A trace.
func BenchmarkLowerVsPlainExpansion(b *testing.B) {
	python, err := exec.LookPath("python3")
	if err != nil {
		b.Skip("python3 is not installed: it runs the plain expansion")
	}
	path := luC16()
	if path == "" {
		path = filepath.Join(sharedData, "lu-A-16-td.trace")
	}
	var plain, lowering time.Duration
	for b.Loop() {
		out, err := exec.Command(python, filepath.Join("testdata", "plain_expand.py"), path).Output()
		if err != nil {
			b.Fatalf("plain_expand.py: %v", err)
		}
		// "ranks 16 events 3892412 p2p 3879816 seconds 4.012"
		f := strings.Fields(string(out))
		secs, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			b.Fatalf("plain_expand.py printed %q", out)
		}
		plain += time.Duration(secs * float64(time.Second))
		start := time.Now()
		tr, err := scalatrace.Read(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Lower(tr, Options{Name: "lu"}); err != nil {
			b.Fatal(err)
		}
		lowering += time.Since(start)
	}
	b.ReportMetric(plain.Seconds()/float64(b.N), "plain-s/op")
	b.ReportMetric(lowering.Seconds()/float64(b.N), "lower-s/op")
	b.ReportMetric(plain.Seconds()/lowering.Seconds(), "x-faster")
}
