package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parley-hpc/parley/codegen/sgplatform"
	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/netmodel"
	"github.com/parley-hpc/parley/parser"
)

// exportTasks is the number of tasks each example runs on by default (as
// in examples/examples_test.go).
var exportTasks = map[string]int64{
	"halo3d.parley": 64, "halo2d.parley": 16, "wavefront.parley": 16, "lulesh.parley": 27,
}

func exportTasksFor(name string) int64 {
	if n, ok := exportTasks[name]; ok {
		return n
	}
	return 8
}

// readTraces returns the lines of each rank's trace in dir.
func readTraces(t *testing.T, dir, base string, n int64) [][]string {
	t.Helper()
	out := make([][]string, n)
	for r := range n {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s-%d.tit", base, r)))
		if err != nil {
			t.Fatal(err)
		}
		out[r] = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
	return out
}

func TestExportRing(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := parley(t, "", "export", "--format", "tit", "ring.parley", "--tasks", "4", "-o", dir, "--", "--reps", "2")
	if code != 0 || errOut != "" {
		t.Fatalf("%d %q", code, errOut)
	}
	for _, want := range []string{"Wrote 4 rank traces and the index " + filepath.Join(dir, "ring.tit"), "2Tf (node group skylake)", "smpirun -np 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	traces := readTraces(t, dir, "ring", 4)
	// Two warmup shifts, the synchronization, two shifts: each shift an
	// asynchronous receive from the left (SEND's implied receive comes
	// first), a send to the right, and AWAIT COMPLETION.
	for r := range 4 {
		left, right := (r+3)%4, (r+1)%4
		shift := fmt.Sprintf("%[1]d irecv %[2]d 0 65536\n%[1]d isend %[3]d 0 65536\n%[1]d waitall\n", r, left, right)
		want := fmt.Sprintf("%[1]d init\n%[2]s%[2]s%[1]d barrier\n%[2]s%[2]s%[1]d finalize", r, shift)
		if got := strings.Join(traces[r], "\n"); got != want {
			t.Errorf("rank %d:\n%s\nwant:\n%s", r, got, want)
		}
	}
	idx, _ := os.ReadFile(filepath.Join(dir, "ring.tit"))
	if want := filepath.Join(dir, "ring-0.tit") + "\n"; !strings.HasPrefix(string(idx), want) || strings.Count(string(idx), "\n") != 4 {
		t.Errorf("index:\n%s", idx)
	}
}

// TestExportReduce: on ib-edr a rank computes at 2e12 flop/s and moves
// memory at 200 GB/s, so combining k bytes (3k bytes of traffic) takes
// 15k ps, 30k flops. On 4 ranks a recursive-doubling allreduce combines
// twice; the binomial reduce to 0 combines twice on rank 0 and never on
// rank 1; the recursive-halving reduce-scatter of 4 blocks of b bytes
// combines 2b then b bytes.
func TestExportReduce(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := parley(t, "", "export", "--format=tit", "-o", dir, "reduce.parley", "--tasks", "4", "--", "--reps", "1", "--maxcount", "8")
	if code != 0 || errOut != "" {
		t.Fatalf("%d %q", code, errOut)
	}
	traces := readTraces(t, dir, "reduce", 4)
	// Counts of 1 and 8 doubles (8 and 64 bytes): two warmups, the
	// synchronization, one repetition each.
	round := func(r, b int, reduceFlops int) string {
		return fmt.Sprintf("%[1]d reduce %[2]d %[3]d 0\n%[1]d allreduce %[2]d %[4]d\n%[1]d allreduce %[2]d %[4]d\n%[1]d reducescatter %[2]d %[2]d %[2]d %[2]d %[5]d\n",
			r, b, reduceFlops, 2*30*b, 3*30*b)
	}
	for r, rootFlops := range []int{2, 0} {
		var want strings.Builder
		fmt.Fprintf(&want, "%d init\n", r)
		for _, b := range []int{8, 64} {
			x := round(r, b, rootFlops*30*b)
			fmt.Fprintf(&want, "%s%s%d barrier\n%s", x, x, r, x)
		}
		fmt.Fprintf(&want, "%d finalize", r)
		if got := strings.Join(traces[r], "\n"); got != want.String() {
			t.Errorf("rank %d:\n%s\nwant:\n%s", r, got, want.String())
		}
	}
}

// statements has a timed loop, collectives over some of the tasks, every
// kind of compute, a negative tag and AWAIT COMPLETION.
const statements = `REQUIRE LANGUAGE VERSION "1.5".

FOR 10 MICROSECONDS {
  TASK 0 SENDS A 16 BYTE MESSAGE TO TASK 1
}

TASKS t SUCH THAT t < 2 SYNCHRONIZE.

TASK 0 COMPUTES FOR 5 MICROSECONDS.

TASK 1 SLEEPS FOR 3 MICROSECONDS.

TASK 2 TOUCHES A 1 KILOBYTE MEMORY REGION.

TASK 2 COMPUTES 1000 FLOPS.

TASK 0 ASYNCHRONOUSLY SENDS A 10 BYTE MESSAGE USING TAG 5 TO TASK 2.

TASK 2 ASYNCHRONOUSLY SENDS A 10 BYTE MESSAGE USING TAG -3 TO TASK 0.

ALL TASKS AWAIT COMPLETION.

TASKS t SUCH THAT t > 0 REDUCE 2 DOUBLEWORDS.
`

// reassigned moves task 0 to processor 2 (and task 2 to processor 0)
// before a send, a gather to task 0 and an allreduce of tasks 0 and 1.
const reassigned = `REQUIRE LANGUAGE VERSION "1.5".

TASK 0 IS ASSIGNED TO PROCESSOR 2.

TASK 0 SENDS AN 8 BYTE MESSAGE TO TASK 1.

TASK 0 GATHERS A 4 BYTE MESSAGE FROM ALL TASKS.

TASKS t SUCH THAT t < 2 REDUCE 1 DOUBLEWORD.
`

// TestExportReassigned: ranks are processors; collectives over every task
// name their root by processor.
func TestExportReassigned(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "re.parley")
	if err := os.WriteFile(prog, []byte(reassigned), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := parley(t, "", "export", "--format", "tit", prog, "--tasks", "3", "-o", dir)
	if code != 0 || errOut != "" {
		t.Fatalf("%d %q", code, errOut)
	}
	traces := readTraces(t, dir, "re", 3)
	// Task 0 on processor 2 sends to task 1 on processor 1; the gather's
	// root, task 0, is rank 2; the allreduce of tasks 0 and 1 is an
	// exchange between ranks 2 and 1 (8 bytes combined: 24 bytes of
	// traffic at 200 GB/s, 120 ps, 240 flops at 2 Tflop/s).
	tag := regexp.MustCompile(`-1\d{9}`)
	want := []string{
		"0 init\n0 gather 4 4 2\n0 finalize",
		"1 init\n1 recv 2 0 8\n1 gather 4 4 2\n1 irecv 2 T 8\n1 isend 2 T 8\n1 wait 2 1 T\n1 wait 1 2 T\n1 compute 240\n1 finalize",
		"2 init\n2 send 1 0 8\n2 gather 4 4 2\n2 irecv 1 T 8\n2 isend 1 T 8\n2 wait 1 2 T\n2 wait 2 1 T\n2 compute 240\n2 finalize",
	}
	for r, lines := range traces {
		if got := tag.ReplaceAllString(strings.Join(lines, "\n"), "T"); got != want[r] {
			t.Errorf("rank %d:\n%s\nwant:\n%s", r, got, want[r])
		}
	}
}

// TestExportStatements: a timed loop (trial iteration, agreement,
// iterations), collectives over some of the tasks, every kind of compute,
// a negative tag and AWAIT COMPLETION, on the laptop preset: 8 tasks share
// a node of 384 Gflop/s and 60 GB/s, so a rank computes at 48 Gflop/s and
// moves memory at 7.5 GB/s.
func TestExportStatements(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "st.parley")
	if err := os.WriteFile(prog, []byte(statements), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, errOut := parley(t, "", "export", "--format", "tit", prog, "--tasks", "3", "--platform", "laptop", "-o", out)
	if code != 0 || errOut != "" {
		t.Fatalf("%d %q", code, errOut)
	}
	if !strings.Contains(stdout, "48Gf (node group laptop)") {
		t.Errorf("output:\n%s", stdout)
	}
	traces := readTraces(t, out, "st", 3)
	// The timed loop: one trial send, the agreement (an allreduce of 8
	// bytes over all 3 tasks), then as many sends as fit in 10 us at the
	// trial's pace: as many as parley run makes.
	sends := 0
	for _, l := range traces[0] {
		if l == "0 send 1 0 16" {
			sends++
		}
	}
	if traces[0][1] != "0 send 1 0 16" || traces[0][2] != "0 allreduce 8 0" || sends < 2 {
		t.Errorf("timed loop: %q", traces[0][:4])
	}
	want := [][]string{
		{
			// The synchronization of tasks 0 and 1 (a dissemination
			// barrier: one empty exchange), in point-to-point steps.
			"0 irecv 1 TAG 0", "0 isend 1 TAG 0", "0 wait 1 0 TAG", "0 wait 0 1 TAG",
			// 5 us at 48 Gflop/s.
			"0 compute 240000",
			"0 isend 2 5 10", "0 irecv 2 2147483645 10", "0 waitall", "0 finalize",
		},
		{
			"1 irecv 0 TAG 0", "1 isend 0 TAG 0", "1 wait 0 1 TAG", "1 wait 1 0 TAG",
			"1 sleep 0.000003", "1 waitall",
			// The allreduce of tasks 1 and 2: one exchange, combining 16
			// bytes: 48 bytes of traffic, 6.4 ns, 307 flops.
			"1 irecv 2 TAG2 16", "1 isend 2 TAG2 16", "1 wait 2 1 TAG2", "1 wait 1 2 TAG2", "1 compute 307",
			"1 finalize",
		},
		{
			// The agreement on 3 ranks folds rank 0 into rank 1: rank 2
			// combines once (24 bytes of traffic, 3.2 ns, 154 flops).
			"2 init", "2 allreduce 8 154",
			// 1 KiB touched: 2048 bytes of traffic, 273.07 ns.
			"2 compute 13107",
			// 1000 flops, flop-bound.
			"2 compute 1000",
			"2 irecv 0 5 10", "2 isend 0 2147483645 10", "2 waitall",
			"2 irecv 1 TAG2 16", "2 isend 1 TAG2 16", "2 wait 1 2 TAG2", "2 wait 2 1 TAG2", "2 compute 307",
			"2 finalize",
		},
	}
	// The subset collectives' tags, in the order rank 1 meets them.
	tags := regexp.MustCompile(`-1\d{9}`)
	names := map[string]string{}
	for _, l := range traces[1] {
		for _, tag := range tags.FindAllString(l, -1) {
			if names[tag] == "" {
				names[tag] = []string{"TAG", "TAG2", "TAG3"}[min(len(names), 2)]
			}
		}
	}
	if len(names) != 2 {
		t.Errorf("rank 1 has %d collective tags, want 2", len(names))
	}
	for r, lines := range want {
		if len(traces[r]) < len(lines) {
			t.Fatalf("rank %d has %d lines:\n%s", r, len(traces[r]), strings.Join(traces[r], "\n"))
		}
		got := traces[r][len(traces[r])-len(lines):]
		if r == 2 && len(traces[r]) != len(lines) {
			t.Errorf("rank 2 has %d lines, want %d", len(traces[r]), len(lines))
		}
		var norm []string
		for _, l := range got {
			norm = append(norm, tags.ReplaceAllStringFunc(l, func(tag string) string { return names[tag] }))
		}
		if strings.Join(norm, "\n") != strings.Join(lines, "\n") {
			t.Errorf("rank %d ends:\n%s\nwant:\n%s", r, strings.Join(got, "\n"), strings.Join(lines, "\n"))
		}
	}
	if traces[1][2] != "1 allreduce 8 307" {
		t.Errorf("rank 1's agreement: %q", traces[1][2])
	}
}

// TestExportBytes: for every example, each rank's program bytes in the
// export (send and isend, recv and irecv, with a program's non-negative
// tag) are the interpreter's BytesSent and BytesReceived. Where the run
// has a problem (deadlock-ring) receives may be issued and never complete:
// the export holds what was issued.
func TestExportBytes(t *testing.T) {
	names, err := fs.Glob(examples.FS, "*.parley")
	if err != nil || len(names) < 12 {
		t.Fatalf("%d examples, %v", len(names), err)
	}
	plat, err := netmodel.Preset(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			n := exportTasksFor(name)
			dir := t.TempDir()
			code, _, errOut := parley(t, "", "export", "--format", "tit", name, "--tasks", strconv.FormatInt(n, 10), "-o", dir)
			src, _ := fs.ReadFile(examples.FS, name)
			prog, diags := parser.Parse(name, src)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			p, err := ir.Build(prog)
			if err != nil {
				t.Fatal(err)
			}
			res, err := interp.Run(p, interp.Options{NumTasks: n, Platform: plat, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 0, false: 1}[res.OK()]; code != want {
				t.Fatalf("exit %d, want %d: %s", code, want, errOut)
			}
			traces := readTraces(t, dir, strings.TrimSuffix(name, ".parley"), n)
			var colls int
			for r, lines := range traces {
				var sent, recvd int64
				for _, l := range lines {
					f := strings.Fields(l)
					if len(f) == 5 && (f[1] == "send" || f[1] == "isend" || f[1] == "recv" || f[1] == "irecv") && !strings.HasPrefix(f[3], "-") {
						b, _ := strconv.ParseInt(f[4], 10, 64)
						if strings.HasSuffix(f[1], "send") {
							sent += b
						} else {
							recvd += b
						}
					}
					if len(f) >= 2 && strings.Contains(" barrier bcast reduce allreduce reducescatter gather gatherv allgather allgatherv scatter scatterv alltoall alltoallv ", " "+f[1]+" ") {
						colls++
					}
				}
				ts := res.Tasks[r]
				if sent != ts.BytesSent || (recvd != ts.BytesReceived && res.OK()) || recvd < ts.BytesReceived {
					t.Errorf("rank %d: export sends %d and receives %d bytes; parley run: %d and %d", r, sent, recvd, ts.BytesSent, ts.BytesReceived)
				}
			}
			var collMsgs int64
			for _, ts := range res.Tasks {
				collMsgs += ts.CollMsgs
			}
			if collMsgs > 0 && colls == 0 {
				t.Errorf("the run has collective messages but the export no collective")
			}
		})
	}
}

func TestExportUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ring.parley", "-o", dir}, "--format is required (known formats: tit, ncptl, simgrid-platform)"},
		{[]string{"--format", "otf2", "ring.parley", "-o", dir}, `unknown format "otf2" (known formats: tit, ncptl, simgrid-platform)`},
		{[]string{"--format", "simgrid-platform", "--platform", "star-edr"}, "-o FILE.xml is required"},
		{[]string{"--format", "simgrid-platform", "--platform", "nowhere", "-o", "-"}, "nowhere"},
		{[]string{"--format", "tit", "ring.parley"}, "-o DIR is required"},
		{[]string{"--format", "tit", "-o", dir}, "no program"},
		{[]string{"--format", "tit", "-o", dir, "ring.parley", "--tasks", "0"}, "at least 1"},
		{[]string{"--format", "tit", "-o", dir, "ring.parley", "--platform", "nowhere"}, "nowhere"},
		{[]string{"--format", "tit", "-o", filepath.Join(dir, "new"), "ring.parley", "--", "--bogus", "1"}, "bogus"},
	} {
		code, _, errOut := parley(t, "", append([]string{"export"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Error("a usage error left a directory behind")
	}
	code, out, _ := parley(t, "", "export", "--help")
	if code != 0 || !strings.Contains(out, "smpirun -np N -platform cluster.xml -replay DIR/BASE.tit") || !strings.Contains(out, "tasks_per_node") {
		t.Errorf("--help: %d\n%s", code, out)
	}
	code, out, _ = parley(t, "", "export", "--format", "tit", "-o", dir, "ring.parley", "--", "--help")
	if code != 0 || !strings.Contains(out, "--msgsize") {
		t.Errorf("program help: %d\n%s", code, out)
	}
}

// TestExportProblems: a deadlocked run still writes what every task had
// issued, prints the problem and exits 1.
func TestExportProblems(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := parley(t, "", "export", "--format", "tit", "deadlock-ring.parley", "--tasks", "4", "-o", dir)
	if code != 1 || !strings.Contains(errOut, "deadlock") || !strings.Contains(errOut, "traces hold what each task issued") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	for r, lines := range readTraces(t, dir, "deadlock-ring", 4) {
		want := fmt.Sprintf("%[1]d init\n%[1]d recv %[2]d 0 1024\n%[1]d finalize", r, (r+3)%4)
		if got := strings.Join(lines, "\n"); got != want {
			t.Errorf("rank %d:\n%s\nwant:\n%s", r, got, want)
		}
	}
}

// TestExportSimGridReplay replays the export of every example that runs
// cleanly with SimGrid's smpirun, when SimGrid is installed (Debian:
// apt-get install libsimgrid-dev), on a cluster whose hosts compute at the
// per-rank flop rate, and checks that each replay runs to completion. The
// compute-bound example must take about the time parley predicts.
func TestExportSimGridReplay(t *testing.T) {
	smpirun, err := exec.LookPath("smpirun")
	if err != nil {
		t.Skip("smpirun not found: install SimGrid (Debian: apt-get install libsimgrid-dev) to replay exported traces")
	}
	if testing.Short() {
		t.Skip("replays take a few seconds")
	}
	names, _ := fs.Glob(examples.FS, "*.parley")
	dir := t.TempDir()
	// ib-edr: one task per 2 TF/s node.
	platform := filepath.Join(dir, "cluster.xml")
	xml := `<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node-" suffix="" radical="0-63" speed="2Tf" bw="12GBps" lat="0.9us" bb_bw="1TBps" bb_lat="0us"/>
</platform>
`
	if err := os.WriteFile(platform, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	simTime := regexp.MustCompile(`Simulation time ([0-9.e+-]+)`)
	// Besides the examples, the programs above, on 3 tasks: collectives
	// over some tasks (point-to-point steps with wait) and reassigned tasks.
	for file, src := range map[string]string{"statements.parley": statements, "reassigned.parley": reassigned} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, file)
	}
	for _, name := range names {
		if name == "deadlock-ring.parley" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			n := strconv.FormatInt(exportTasksFor(name), 10)
			prog := name
			if strings.HasPrefix(name, "statements") || strings.HasPrefix(name, "reassigned") {
				n, prog = "3", filepath.Join(dir, name)
			}
			out := filepath.Join(dir, strings.TrimSuffix(name, ".parley"))
			code, stdout, errOut := parley(t, "", "export", "--format", "tit", prog, "--tasks", n, "-o", out)
			if code != 0 {
				t.Fatalf("export: %d %s", code, errOut)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, smpirun, "-np", n, "-platform", platform,
				"-replay", filepath.Join(out, strings.TrimSuffix(name, ".parley")+".tit"),
				"--log=root.thresh:warning", "--log=smpi_replay.thresh:info")
			cmd.Dir = dir
			var buf bytes.Buffer
			cmd.Stdout, cmd.Stderr = &buf, &buf
			if err := cmd.Run(); err != nil {
				t.Fatalf("smpirun: %v\n%s", err, buf.String())
			}
			m := simTime.FindStringSubmatch(buf.String())
			if m == nil {
				t.Fatalf("smpirun did not finish the replay:\n%s", buf.String())
			}
			if name != "compute-model.parley" {
				return
			}
			got, _ := strconv.ParseFloat(m[1], 64)
			pm := regexp.MustCompile(`predicted ([0-9.]+)ms`).FindStringSubmatch(stdout)
			if pm == nil {
				t.Fatalf("no prediction in %q", stdout)
			}
			want, _ := strconv.ParseFloat(pm[1], 64)
			if math.Abs(got*1e3-want) > 0.05*want {
				t.Errorf("SimGrid replays %s in %gs; parley predicts %gms", name, got, want)
			}
		})
	}
}

// TestExportNcptl: the ncptl format writes the program, lowered, to
// standard output or to -o FILE, without running it.
func TestExportNcptl(t *testing.T) {
	code, out, errOut := parley(t, "", "export", "--format", "ncptl", "compute-model.parley", "--platform", "laptop")
	if code != 0 || errOut != "" {
		t.Fatalf("%d %q", code, errOut)
	}
	for _, want := range []string{
		"# compute-model.parley as strict coNCePTuaL 1.5, written by Parley's export",
		"(parley export --format ncptl --platform laptop)",
		"#   ncptl --backend=c_mpi --output=compute-model compute-model.ncptl",
		"# - line 13: COMPUTES n FLOPS",
		// 8 tasks share a laptop's 384 Gflop/s and 60 GB/s.
		"ALL TASKS COMPUTE FOR MAX((intensity * n + 24000) / 48000, (16 * n + 3750) / 7500) MICROSECONDS THEN",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "ring.ncptl")
	code, out, errOut = parley(t, "", "export", "--format=ncptl", "ring.parley", "-o", file)
	if code != 0 || out != "" || !strings.Contains(errOut, "wrote "+file+"; compile it with coNCePTuaL: ncptl --backend=c_mpi --output=ring "+file) {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
	text, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(text), "uses none of Parley's extensions") ||
		!strings.Contains(string(text), "ALL TASKS t ASYNCHRONOUSLY SEND A msgsize BYTE MESSAGE TO TASK (t + 1) MOD num_tasks THEN") {
		t.Errorf("%v\n%s", err, text)
	}
	code, out, _ = parley(t, "", "export", "--format", "ncptl", "ring.parley", "-o", "-")
	if code != 0 || out != string(text) {
		t.Errorf("-o -: %d\n%s", code, out)
	}
}

// TestExportNcptlRefuses: a construct with no coNCePTuaL form stops the
// export with its position, what to change and nothing written; options of
// a run are bad usage.
func TestExportNcptlRefuses(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "bad.parley")
	src := "REQUIRE LANGUAGE VERSION \"1.5\".\nTASKS t SUCH THAT t < 2 REDUCE 4 DOUBLEWORDS AND SCATTER THE RESULT.\n"
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "bad.ncptl")
	code, stdout, errOut := parley(t, "", "export", "--format", "ncptl", prog, "-o", out)
	for _, want := range []string{
		prog + ":2:1: error: no coNCePTuaL form: a reduce-scatter among some of the tasks",
		"    TASKS t SUCH THAT t < 2 REDUCE 4 DOUBLEWORDS AND SCATTER THE RESULT.\n    ^~~~",
		"hint: reduce-scatter among ALL TASKS",
		"parley export: " + prog + " has 1 construct(s) with no coNCePTuaL form; nothing written",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if code != 1 || stdout != "" {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused export wrote its file")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ring.parley", "--tasks", "4"}, "--tasks does not apply to --format ncptl"},
		{[]string{"ring.parley", "--seed", "4"}, "--seed does not apply"},
		{[]string{"ring.parley", "--", "--reps", "3"}, "program options (--reps 3) do not apply to --format ncptl"},
		{[]string{"ring.parley", "--platform", "nowhere"}, "nowhere"},
		{[]string{prog, "-o", prog}, "would overwrite the program"},
		{[]string{"ring.parley", "-o", filepath.Join(dir, "x.parley")}, "name a .ncptl file"},
	} {
		code, _, errOut := parley(t, "", append([]string{"export", "--format", "ncptl"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// simgridNetwork is the network of a flow platform that SimGrid's replay
// prices as Parley does: SimGrid's factors, no CPU costs, and an eager
// limit above every message of the examples (Parley's rendezvous adds a
// handshake that SMPI's does not; see docs/networks.md). A topology of 64
// nodes follows.
const simgridNetwork = `[network]
model = "flow"
o = "0"
g = "0"
S = "4MiB"
factors = "simgrid"
[machine]
[[machine.nodes]]
name = "node"
flops = "1GF/s"
memory_bandwidth = "1GB/s"
[network.topology]
bandwidth = "10GB/s"
latency = "1us"
`

// simgridStar is simgridNetwork on a star.
const simgridStar = `name = "star"
` + simgridNetwork + `kind = "star"
nodes = 64
`

// simgridFatTree is simgridNetwork on a 4-ary 3-tree, every link alike
// as SimGrid's FAT_TREE has them.
const simgridFatTree = `name = "fattree"
` + simgridNetwork + `kind = "fattree"
k = 4
n = 3
host_bandwidth = "10GB/s"
host_latency = "1us"
`

// TestExportSimGridPlatform: a star exports as a SimGrid cluster whose
// comment gives the replay options; a torus is refused.
func TestExportSimGridPlatform(t *testing.T) {
	dir := t.TempDir()
	plat := filepath.Join(dir, "star.toml")
	if err := os.WriteFile(plat, []byte(simgridStar), 0o644); err != nil {
		t.Fatal(err)
	}
	xmlFile := filepath.Join(dir, "star.xml")
	if code, _, errOut := parley(t, "", "export", "--format", "simgrid-platform", "--platform", plat, "-o", xmlFile); code != 0 {
		t.Fatalf("export: %d %s", code, errOut)
	}
	data, err := os.ReadFile(xmlFile)
	if err != nil || !strings.Contains(string(data), `radical="0-63"`) ||
		!strings.Contains(string(data), "Replay with the smpirun options cfg=network/model:LV08, cfg=smpi/send-is-detached-thresh:4194305, cfg=smpi/async-small-thresh:4194305.") {
		t.Fatalf("%v\n%s", err, data)
	}
	if code, _, errOut := parley(t, "", "export", "--format", "simgrid-platform", "--platform", "torus-bgq", "-o", "-"); code != 2 || !strings.Contains(errOut, "preset torus-bgq: network.topology.kind") {
		t.Errorf("torus: %d %q", code, errOut)
	}
	if code, _, errOut := parley(t, "", "export", "--format", "tit", "--collectives", "some", "ring.parley", "-o", dir); code != 2 || !strings.Contains(errOut, "--collectives \"some\": simgrid or steps") {
		t.Errorf("--collectives some: %d %q", code, errOut)
	}
}

// TestFlowAgreesWithSimGrid compares the flow model with SimGrid's replay
// on the same machine, every example and two closed forms (disjoint pairs
// and an incast of 7 x 1 MiB), on a star and a fat tree: the platform
// exported by --format simgrid-platform, the run exported by --format tit with
// --collectives steps (so that SimGrid sends the messages of the
// interpreter's collective algorithms, not of its own), and smpirun
// -replay with the options the platform file names. Each prediction must
// be within 5% of SimGrid's.
func TestFlowAgreesWithSimGrid(t *testing.T) {
	smpirun, err := exec.LookPath("smpirun")
	if err != nil {
		t.Skip("smpirun not found: install SimGrid (Debian: apt-get install libsimgrid-dev) to compare with its replay")
	}
	if testing.Short() {
		t.Skip("replays every example")
	}
	dir := t.TempDir()
	var hostList strings.Builder
	for i := range 64 {
		fmt.Fprintf(&hostList, "node-%d\n", i)
	}
	hosts := filepath.Join(dir, "hosts")
	if err := os.WriteFile(hosts, []byte(hostList.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	names, _ := fs.Glob(examples.FS, "*.parley")
	names = slices.DeleteFunc(names, func(n string) bool { return n == "deadlock-ring.parley" })
	for file, src := range map[string]string{
		"pairs.parley":  "TASKS t SUCH THAT t IS EVEN SEND A 1 MEGABYTE MESSAGE TO TASK t + 1.\n",
		"incast.parley": "TASKS t SUCH THAT t > 0 SEND A 1 MEGABYTE MESSAGE TO TASK 0.\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, filepath.Join(dir, file))
	}
	for _, platform := range []struct{ name, toml string }{{"star", simgridStar}, {"fattree", simgridFatTree}} {
		plat := filepath.Join(dir, platform.name+".toml")
		if err := os.WriteFile(plat, []byte(platform.toml), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := netmodel.Load(plat)
		if err != nil {
			t.Fatal(err)
		}
		xmlFile := filepath.Join(dir, platform.name+".xml")
		if code, _, errOut := parley(t, "", "export", "--format", "simgrid-platform", "--platform", plat, "-o", xmlFile); code != 0 {
			t.Fatalf("export: %d %s", code, errOut)
		}
		for _, prog := range names {
			base := strings.TrimSuffix(filepath.Base(prog), ".parley")
			t.Run(platform.name+"/"+base, func(t *testing.T) {
				agreeWithSimGrid(t, smpirun, dir, prog, plat, xmlFile, hosts, p)
			})
		}
	}
}

// agreeWithSimGrid predicts prog on platform plat (p once loaded), replays
// its TIT export on xmlFile, and requires the two within 5%.
func agreeWithSimGrid(t *testing.T, smpirun, dir, prog, plat, xmlFile, hosts string, p *netmodel.Platform) {
	predicted := regexp.MustCompile(`Predicted run time: ([0-9.]+)(s|ms|us|ns)`)
	simTime := regexp.MustCompile(`Simulation time ([0-9.e+-]+)`)
	unit := map[string]float64{"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
	base := strings.TrimSuffix(filepath.Base(prog), ".parley")
	n := strconv.FormatInt(exportTasksFor(filepath.Base(prog)), 10)
	code, out, errOut := parley(t, "", "run", prog, "--tasks", n, "--platform", plat)
	pm := predicted.FindStringSubmatch(out)
	if code != 0 || pm == nil {
		t.Fatalf("run: %d %q\n%s", code, errOut, out)
	}
	want, _ := strconv.ParseFloat(pm[1], 64)
	want *= unit[pm[2]]
	traces := filepath.Join(t.TempDir(), base)
	if code, _, errOut := parley(t, "", "export", "--format", "tit", "--collectives", "steps", prog, "--tasks", n, "--platform", plat, "-o", traces); code != 0 {
		t.Fatalf("export tit: %d %s", code, errOut)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := []string{"-np", n, "-platform", xmlFile, "-hostfile", hosts, "-replay", filepath.Join(traces, base+".tit")}
	for _, item := range sgplatform.ReplayConfig(p) {
		args = append(args, "--cfg="+item)
	}
	cmd := exec.CommandContext(ctx, smpirun, append(args, "--log=root.thresh:warning", "--log=smpi_replay.thresh:info")...)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		t.Fatalf("smpirun: %v\n%s", err, buf.String())
	}
	m := simTime.FindStringSubmatch(buf.String())
	if m == nil {
		t.Fatalf("smpirun did not finish the replay:\n%s", buf.String())
	}
	simgrid, _ := strconv.ParseFloat(m[1], 64)
	t.Logf("%s on %s tasks: flow model %.6g s, SimGrid %.6g s (%+.2f%%)", base, n, want, simgrid, 100*(want-simgrid)/simgrid)
	if math.Abs(want-simgrid) > 0.05*simgrid {
		t.Errorf("flow model %.6g s, SimGrid %.6g s: more than 5%% apart", want, simgrid)
	}
}
