package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/netmodel"
	"github.com/parley-hpc/parley/parser"
)

// session returns a new session writing into buffers.
func session(t testing.TB) (*Session, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errOut bytes.Buffer
	s, err := New(&out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	return s, &out, &errOut
}

// script runs lines as a scripted session and returns its exit status,
// output and messages.
func script(t testing.TB, lines ...string) (int, string, string) {
	t.Helper()
	s, out, errOut := session(t)
	code := s.Script(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	return code, out.String(), errOut.String()
}

// summary is what parley run prints for an example on a platform.
func summary(t *testing.T, example string, opts interp.Options) string {
	t.Helper()
	src, err := examples.Read(example)
	if err != nil {
		t.Fatal(err)
	}
	prog, diags := parser.Parse(example, src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, err := ir.Build(prog)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Platform == nil {
		if opts.Platform, err = netmodel.Resolve(netmodel.DefaultPlatform); err != nil {
			t.Fatal(err)
		}
	}
	res, err := interp.Run(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	res.WriteSummary(&b, 8)
	return b.String()
}

// TestRunIsParleyRun: run prints exactly the summary parley run prints for
// the same program, tasks, parameters and platform.
func TestRunIsParleyRun(t *testing.T) {
	code, out, errOut := script(t, "load halo3d.parley", "run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "loaded halo3d.parley: 5 parameters, 2 top-level statements\n" + summary(t, "halo3d.parley", interp.Options{NumTasks: 64})
	if out != want {
		t.Errorf("run printed\n%s\nwant\n%s", out, want)
	}

	// Parameters, tasks and a platform.
	eth, err := netmodel.Resolve("ethernet")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut = script(t, "load halo3d.parley", "platform ethernet", "set px 2", "set pz 2", "tasks 16", "run")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want = summary(t, "halo3d.parley", interp.Options{NumTasks: 16, Platform: eth, Args: []string{"--px", "2", "--pz", "2"}})
	if _, got, _ := strings.Cut(out, "\n"); got != want {
		t.Errorf("run printed\n%s\nwant\n%s", got, want)
	}
}

// TestTypedProgram: statements typed in a new session make a program;
// errors point into the typed line and change nothing.
func TestTypedProgram(t *testing.T) {
	// A ring of blocking sends deadlocks, as in coNCePTuaL; the session
	// reports it and goes on.
	code, out, errOut := script(t,
		"tasks 4",
		"all tasks t send a 1 kilobyte message to task (t+1) mod num_tasks",
		"run",
		"new",
		"all tasks t asynchronously send a 1 kilobyte message to task (t+1) mod num_tasks then",
		"all tasks await completion",
		"run")
	if code != 1 || !strings.Contains(out, "Deadlock after 0ps: no prediction  (<session> on 4 tasks, platform ib-edr)") ||
		!strings.Contains(errOut, "<session>:1:1: error: deadlock: 0 -> 3 -> 2 -> 1 -> 0") ||
		!strings.Contains(out, "Predicted run time: 1.38525us  (<session> on 4 tasks, platform ib-edr)") ||
		!strings.Contains(out, "Messages: 4 point-to-point (4096 bytes)") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}

	s, out2, errOut2 := session(t)
	s.Script(strings.NewReader("task 0 outputs 1\n"))
	before := s.prog.src
	err := s.Exec(context.Background(), "all tasks t send a 1 kilobyte message to task (t+1) mod num_taks")
	want := "<input>:1:57: error: undefined variable num_taks\n    all tasks t send a 1 kilobyte message to task (t+1) mod num_taks."
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "did you mean num_tasks?") {
		t.Errorf("error %v\nwant %q", err, want)
	}
	if err := s.Exec(context.Background(), "task 0 sneds a message to task 1"); err == nil || !strings.HasPrefix(err.Error(), "<input>:1:8: error: syntax error: unexpected name sneds") {
		t.Errorf("syntax error: %v", err)
	}
	if !bytes.Equal(s.prog.src, before) {
		t.Errorf("a bad statement changed the program:\n%s", s.prog.src)
	}
	_ = out2
	_ = errOut2

	// Declarations go before the statements, and statements go on over
	// lines while they are unfinished.
	code, out, errOut = script(t,
		"task 1 sends a 8 byte message to task 0",
		`reps is "Repetitions" and comes from "--reps" or "-r" with default 3`,
		"for reps repetitions {",
		"  task 0 sends a 8 byte message to task 1",
		"}",
		"tasks 2",
		"run",
		"set reps 5",
		"run",
		"show")
	if code != 0 || !strings.Contains(out, "Messages: 4 point-to-point") || !strings.Contains(out, "Messages: 6 point-to-point") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "reps IS \"Repetitions\" AND COMES FROM \"--reps\" OR \"-r\" WITH DEFAULT 3.\n\nTASK 1 SENDS") {
		t.Errorf("show does not put the declaration first:\n%s", out)
	}
}

// TestBadInput: each mistake gets one message, the script's status is 1,
// and the session goes on with its state unchanged.
func TestBadInput(t *testing.T) {
	s, out, errOut := session(t)
	if err := s.Load("halo3d.parley"); err != nil {
		t.Fatal(err)
	}
	show := func() string {
		out.Reset()
		s.Show()
		return out.String()
	}
	before := show()
	for _, c := range []struct{ line, want string }{
		{"frobnicate", "frobnicate is not a command"},
		{"rn", "rn is not a command"},
		{"tasks -3", "the number of tasks must be between 1"},
		{"tasks many", "tasks many: not a whole number"},
		{"set nosuch 3", "the program has no parameter nosuch; its parameters: px, py, pz, n, steps"},
		{"set px lots", "px: "},
		{"set network.Q 1", "network.Q: unknown key (known keys here: model, L, o, g, G, O, S, regime, intra)"},
		{"set network.L 20parsecs", `network.L: "20parsecs" is not a duration`},
		{"set machine.nodes[7].flops 1TF/s", "there is no nodes[7]: the platform has 1"},
		{"set collectives.allreduce magic", `"magic" is not an algorithm of allreduce`},
		{"set max-events -1", "max-events takes a whole number of at least 0"},
		{"scale compute -1", "the factor must be a number from 0 (free) to 1e6"},
		{"scale memory 2", "scale compute or network"},
		{"platform nowhere", `platform "nowhere" is neither a preset`},
		{"load nowhere.parley", "no such file"},
		{"sweep tasks", "usage: sweep NAME V1 V2 ..."},
		{"sweep nosuch 1 2", "no parameter nosuch"},
		{"unset network.L", "network.L was not set"},
		{"plot out.svg", "no sweep yet"},
		{"compare", "compare needs two runs"},
		{"timeline t.json", "no run yet"},
		{"help frob", `no command "frob"`},
		{"run 3", "usage: run"},
	} {
		err := s.Exec(context.Background(), c.line)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Count(strings.TrimSpace(err.Error()), "\n") > 0 {
			t.Errorf("%s: %v, want one line with %q", c.line, err, c.want)
		}
		if after := show(); after != before {
			t.Errorf("%s changed the session:\n%s", c.line, after)
		}
	}
	_ = errOut

	// A deadlock and a program that never ends: the run says so, the
	// session goes on.
	code, out2, errOut2 := script(t,
		"load deadlock-ring.parley", "tasks 4", "run",
		"new", "for 1000000000 repetitions task 0 sends a 8 byte message to task 1", "tasks 2", "set max-events 10000", "run",
		"load ring.parley", "tasks 4", "run")
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	for _, want := range []string{"Deadlock after", "Stopped after 10000 events", "(ring.parley on 4 tasks"} {
		if !strings.Contains(out2, want) {
			t.Errorf("output lacks %q:\n%s", want, out2)
		}
	}
	for _, want := range []string{"error: deadlock: 0 -> 3 -> 2 -> 1 -> 0", "stopped after 10000 events"} {
		if !strings.Contains(errOut2, want) {
			t.Errorf("messages lack %q:\n%s", want, errOut2)
		}
	}
	if code, _, errOut := script(t, "for 3 repetitions {", "task 0 outputs 1"); code != 1 || !strings.Contains(errOut, "line 1: the statement that starts there is unfinished") {
		t.Errorf("unfinished statement: %d %q", code, errOut)
	}
}

// TestWhatIfs: platform fields, scales, compare, sweep, plot and timeline.
func TestWhatIfs(t *testing.T) {
	dir := t.TempDir()
	svg, png, tl := filepath.Join(dir, "s.svg"), filepath.Join(dir, "s.png"), filepath.Join(dir, "tl.json")
	code, out, errOut := script(t,
		"load halo3d.parley",
		"run",
		"scale compute 0.5",
		"run",
		"compare",
		"sweep scale.compute 1 0.5 0.25 0.125",
		"plot "+svg,
		"set network.L 10us",
		"set machine.nodes.flops 4TF/s",
		"sweep n 16 32 64",
		"plot "+png,
		"timeline "+tl,
	)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"Predicted run time: 432.731us  (halo3d.parley on 64 tasks, platform ib-edr, compute x0.5)",
		"run 1: 64 tasks, ib-edr\nrun 2: 64 tasks, ib-edr, compute x0.5\n",
		"predicted  537.592us  432.731us  0.8049",
		"compute (mean)  209.722us  104.861us     0.5",
		"scale.compute  predicted    compute       comm   wait",
		"0.125  354.085us  26.2153us  211.869us  116us",
		"wrote " + svg + ": 4 points of the sweep over scale.compute",
		"wrote " + png + ": 3 points of the sweep over n",
		"wrote the timeline of run 2 (64 tasks, ib-edr, compute x0.5) to " + tl,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if data, err := os.ReadFile(svg); err != nil || !bytes.Contains(data, []byte("<svg")) {
		t.Errorf("svg: %v", err)
	}
	if data, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Errorf("png: %v", err)
	}
	if data, err := os.ReadFile(tl); err != nil || !json.Valid(data) || !bytes.Contains(data, []byte(`"compute"`)) {
		t.Errorf("timeline: %v", err)
	}
	// A field set on the platform changes the prediction as the same
	// field in a platform file does.
	plat, err := netmodel.Resolve("ib-edr")
	if err != nil {
		t.Fatal(err)
	}
	plat.Network.Latency = 10 * netmodel.Microsecond
	want := summary(t, "halo3d.parley", interp.Options{NumTasks: 64, Platform: plat})
	_, out, _ = script(t, "load halo3d.parley", "set network.L 10us", "run")
	headline, _, _ := strings.Cut(want, "  (")
	if !strings.Contains(out, headline) {
		t.Errorf("set network.L 10us: %s\nwant %s", out, headline)
	}
}

// TestInterruptedRun: a run whose context is cancelled (Ctrl-C) stops with
// a partial summary and leaves the session usable.
func TestInterruptedRun(t *testing.T) {
	s, out, errOut := session(t)
	if err := s.Exec(context.Background(), "for 1000000000 repetitions task 0 sends a 8 byte message to task 1"); err != nil {
		t.Fatal(err)
	}
	s.SetTasks(2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Run(ctx); err != errProblems {
		t.Errorf("Run = %v", err)
	}
	if !strings.HasPrefix(out.String(), "Stopped after ") || !strings.Contains(errOut.String(), "interrupted") {
		t.Errorf("out %q\nerr %q", out.String(), errOut.String())
	}
}

// TestCompletion: commands, their arguments and keywords complete.
func TestCompletion(t *testing.T) {
	s, _, _ := session(t)
	if err := s.Load("halo3d.parley"); err != nil {
		t.Fatal(err)
	}
	c := completer{s}
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"sw", []string{"eep "}},
		{"set p", []string{"x ", "y ", "z "}},
		{"set network.", []string{"G ", "L ", "O ", "S ", "g ", "intra.G ", "intra.L ", "intra.O ", "intra.S ", "intra.g ", "intra.o ", "model ", "o "}},
		{"set machine.nodes.f", []string{"lops "}},
		{"platform eth", []string{"ernet "}},
		{"load ring", []string{".parley "}},
		{"scale c", []string{"ompute "}},
		{"sweep scale.", []string{"compute ", "network "}},
		{"all tasks sy", []string{"nchronization ", "nchronize ", "nchronizes ", "nchronously "}},
		{"ALL TASKS SY", []string{"NCHRONIZATION ", "NCHRONIZE ", "NCHRONIZES ", "NCHRONOUSLY "}},
	} {
		got, n := c.Do([]rune(tc.line), len([]rune(tc.line)))
		var words []string
		for _, g := range got {
			words = append(words, string(g))
		}
		last := tc.line[strings.LastIndexByte(tc.line, ' ')+1:]
		if n != len(last) || strings.Join(words, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%q: %q (%d), want %q", tc.line, words, n, tc.want)
		}
	}
}

// BenchmarkRunHalo3D is a run of halo3d.parley at its defaults, the
// question a session answers most; the goal is under 100 ms.
func BenchmarkRunHalo3D(b *testing.B) {
	s, out, _ := session(b)
	if err := s.Load("halo3d.parley"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		out.Reset()
		if err := s.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSweepHalo3D10 is a 10-point sweep of halo3d.parley; the goal
// is under a second.
func BenchmarkSweepHalo3D10(b *testing.B) {
	s, out, _ := session(b)
	if err := s.Load("halo3d.parley"); err != nil {
		b.Fatal(err)
	}
	values := strings.Fields("1 0.9 0.8 0.7 0.6 0.5 0.4 0.3 0.2 0.1")
	for b.Loop() {
		out.Reset()
		if err := s.Sweep(context.Background(), "scale.compute", values); err != nil {
			b.Fatal(err)
		}
	}
}
