package codegen_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parley-hpc/parley/internal/mpitest"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/logfile"
	"github.com/parley-hpc/parley/netmodel"
)

// TestCompiledOutputIntact: the compiled run-time cuts nothing short and
// keeps its logs well formed, as the interpreter does: an OUTPUTS line of
// 100,000 characters, and a LOG heading holding a newline, a quote, a
// comma, a backslash, a tab and a byte that is not UTF-8, read back
// through the logfile package.
func TestCompiledOutputIntact(t *testing.T) {
	mpicc, mpirun := mpitest.Tools(t)
	long := strings.Repeat("0123456789", 10_000) + "\xff"
	const heading = "a\nb\"c,d\\e\tf\xff"
	src := fmt.Sprintf(`n IS "a parameter\nover two lines" AND COMES FROM "--n" OR "-n" WITH DEFAULT 3.
TASK 0 OUTPUTS "%s" AND num_tasks.
ALL TASKS LOG 1 AS "a\nb\"c,d\\e\tf`+"\xff"+`" AND num_tasks AS "next".
ASSERT THAT "a message\nwith a newline" WITH n = 3.`, long)
	dir := t.TempDir()
	p := mpitest.Build(t, "intact.parley", []byte(src))
	exe := mpitest.Compile(t, mpicc, dir, p)
	out, err := mpitest.Run(t, mpirun, exe, 2, []string{"--logfile", filepath.Join(dir, "real-%d.log")}, 60*time.Second)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.Stderr)
	}
	if got, want := string(out.Stdout), long+"2\n"; got != want {
		t.Errorf("OUTPUTS line of %d bytes, want %d (starts %.40q, ends %q)", len(got), len(want), got, got[max(0, len(got)-40):])
	}

	plat, err := netmodel.Resolve(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := interp.New(p, interp.Options{NumTasks: 2, Platform: plat, Logs: true})
	if err != nil {
		t.Fatal(err)
	}
	if res := sim.Run(); !res.OK() {
		t.Fatal(res.Problems)
	}
	if err := sim.WriteLogs(dir, "pred"); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, base := range []string{"real", "pred"} {
		s, err := logfile.LoadSet(filepath.Join(dir, base))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.Ranks(), []int{0, 1}) || len(s.Warnings) > 0 {
			t.Errorf("%s: ranks %v, warnings %q", base, s.Ranks(), s.Warnings)
		}
		for _, l := range s.Logs {
			cols := l.File.Tables[0].Columns
			if len(cols) != 2 || cols[0].Heading != heading || !slices.Equal(cols[0].Rows, []string{"1"}) ||
				cols[1].Heading != "next" || !slices.Equal(cols[1].Rows, []string{"2"}) {
				t.Errorf("%s: columns read back as %+v", l.Path, cols)
			}
			if kv := l.File.Header[len(l.File.Header)-1]; kv != (logfile.KV{Key: "a parameter over two lines", Value: "3"}) {
				t.Errorf("%s: parameter header %+v", l.Path, kv)
			}
			for _, kv := range l.File.Header {
				if kv.Key == logfile.KeyRunID {
					ids[base+" "+kv.Value] = true
				}
			}
		}
	}
	if len(ids) != 2 {
		t.Errorf("run identifiers %v: want one per run, the same on every rank", ids)
	}
}

// TestCompiledLogTemplate: a --logfile template that would format
// anything but the rank is refused.
func TestCompiledLogTemplate(t *testing.T) {
	mpicc, mpirun := mpitest.Tools(t)
	dir := t.TempDir()
	exe := mpitest.Compile(t, mpicc, dir, mpitest.Build(t, "t.parley", []byte(`ALL TASKS LOG 1 AS "x".`)))
	for _, tmpl := range []string{"log-%s.log", "log-%d-%d.log", "log-%d%"} {
		out, err := mpitest.Run(t, mpirun, exe, 1, []string{"--logfile", filepath.Join(dir, tmpl)}, 60*time.Second)
		if err == nil || !strings.Contains(string(out.Stderr), "the template needs one %d") {
			t.Errorf("--logfile %s: %v\n%s", tmpl, err, out)
		}
	}
	if out, err := mpitest.Run(t, mpirun, exe, 1, []string{"--logfile", filepath.Join(dir, "100%%-%d.log")}, 60*time.Second); err != nil {
		t.Errorf("--logfile 100%%%%-%%d.log: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "100%-0.log")); err != nil {
		t.Error(err)
	}
}
