package codegen_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/internal/mpitest"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/logfile"
	"github.com/parley-hpc/parley/netmodel"
)

// The differential test of DESIGN.md: every example, compiled and run
// under mpirun, and interpreted, both on 4 tasks, must agree per task on
// messages and bytes sent and received, on the OUTPUTS lines and on the
// number of LOG rows.

// diffCase is one program run both ways.
type diffCase struct {
	name  string // the example's file name
	tasks int64
	args  []string
	src   []byte
}

func TestDifferentialExamples(t *testing.T) {
	mpicc, mpirun := mpitest.Tools(t)
	names, err := fs.Glob(examples.FS, "*.parley")
	if err != nil || len(names) < 12 {
		t.Fatalf("%d examples, %v", len(names), err)
	}
	cases := []diffCase{}
	for _, name := range names {
		src, _ := fs.ReadFile(examples.FS, name)
		cases = append(cases, diffCase{name: name, tasks: 4, args: mpitest.ExampleArgs[name], src: src})
	}
	// LULESH needs a cube of tasks: 8 tasks with p=2 exercises its 26
	// neighbours for real.
	lulesh, _ := fs.ReadFile(examples.FS, "lulesh.parley")
	cases = append(cases, diffCase{name: "lulesh.parley", tasks: 8, args: []string{"--side", "2", "--elements", "4"}, src: lulesh})
	// Programs written for this test, covering what the examples do not.
	more, _ := filepath.Glob("testdata/diff/*.parley")
	for _, path := range more {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int64{4, 7} {
			cases = append(cases, diffCase{name: filepath.Base(path), tasks: n, src: src})
		}
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%d", strings.TrimSuffix(c.name, ".parley"), c.tasks), func(t *testing.T) {
			differential(t, mpicc, mpirun, c)
		})
	}
}

func differential(t *testing.T, mpicc, mpirun string, c diffCase) {
	dir := t.TempDir()
	p := mpitest.Build(t, c.name, c.src)
	exe := mpitest.Compile(t, mpicc, dir, p)

	// The interpreter.
	var predOut bytes.Buffer
	plat, err := netmodel.Resolve(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := interp.New(p, interp.Options{NumTasks: c.tasks, Args: c.args, Platform: plat, Seed: 1, Output: &predOut, Logs: true})
	if err != nil {
		t.Fatal(err)
	}
	res := sim.Run()
	predDir := filepath.Join(dir, "pred")
	if err := sim.WriteLogs(predDir, "prog"); err != nil {
		t.Fatal(err)
	}
	deadlock := slices.ContainsFunc(res.Problems, func(p interp.Problem) bool { return p.Kind == "deadlock" })

	// The compiled program.
	realDir := filepath.Join(dir, "real")
	os.MkdirAll(realDir, 0o755)
	timeout := 120 * time.Second
	if deadlock {
		timeout = 5 * time.Second
	}
	out, runErr := mpitest.Run(t, mpirun, exe, c.tasks, append(slices.Clone(c.args), "--logfile", filepath.Join(realDir, "prog-%d.log")), timeout)
	if deadlock {
		if !errors.Is(runErr, context.DeadlineExceeded) {
			t.Fatalf("the interpreter reports a deadlock but the compiled program ended (%v):\n%s", runErr, out)
		}
		return
	}
	assertFailed := slices.ContainsFunc(res.Problems, func(p interp.Problem) bool { return p.Kind == "assertion" })
	if assertFailed != (runErr != nil) {
		t.Fatalf("interpreter problems %v, compiled run error %v:\n%s", res.Problems, runErr, out)
	}
	if len(res.Problems) > 0 && !assertFailed {
		t.Fatalf("the interpreter reports problems: %v", res.Problems)
	}

	// OUTPUTS lines, as multisets: tasks print concurrently under mpirun.
	want, got := mpitest.Lines(predOut.String()), mpitest.Lines(string(out.Stdout))
	if !slices.Equal(want, got) {
		t.Errorf("OUTPUTS differ:\ninterpreter:\n%s\ncompiled:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
	for rank := range c.tasks {
		pf := mpitest.ReadLog(t, filepath.Join(predDir, fmt.Sprintf("prog-%d.log", rank)))
		rf := mpitest.ReadLog(t, filepath.Join(realDir, fmt.Sprintf("prog-%d.log", rank)))
		for _, key := range []string{"Messages sent", "Messages received", "Bytes sent", "Bytes received"} {
			if a, b := mpitest.Footer(pf, key), mpitest.Footer(rf, key); a != b || a == "" {
				t.Errorf("task %d: %s: interpreter %q, compiled %q", rank, key, a, b)
			}
		}
		if a, b := logRows(pf), logRows(rf); !slices.Equal(a, b) {
			t.Errorf("task %d: LOG rows per table and column: interpreter %v, compiled %v", rank, a, b)
		}
		if a, b := headers(pf), headers(rf); !slices.Equal(a, b) {
			t.Errorf("task %d: log header keys differ:\ninterpreter %q\ncompiled    %q", rank, a, b)
		}
	}
}

func headers(f *logfile.File) []string {
	var keys []string
	for _, kv := range f.Header {
		keys = append(keys, kv.Key)
	}
	return keys
}

// logRows lists, per table and column, the heading and the number of rows.
func logRows(f *logfile.File) []string {
	var out []string
	for i, tab := range f.Tables {
		for _, c := range tab.Columns {
			out = append(out, fmt.Sprintf("table %d %q %s: %d rows", i, c.Heading, c.Label, len(c.Rows)))
		}
	}
	return out
}
