package ncptl_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/codegen/ncptl"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
)

// exported splits an export into its header comment and the program.
func exported(t *testing.T, src string, plat *netmodel.Platform) (header, body string) {
	t.Helper()
	prog := parse(t, "p.parley", []byte(src))
	before := string(lang.Format(prog))
	text, err := ncptl.Export(prog, ncptl.Options{Platform: plat})
	if err != nil {
		t.Fatalf("%s\n%v", src, err)
	}
	if after := string(lang.Format(prog)); after != before {
		t.Fatalf("Export changed its input:\n%s\nthen:\n%s", before, after)
	}
	header, body, ok := strings.Cut(string(text), "\n\n")
	if !ok || !strings.HasPrefix(header, "# ") {
		t.Fatalf("no header comment:\n%s", text)
	}
	return header, body
}

// lowering is one test of a lowering: a program, its export without the
// header comment, and the lowerings the header names ("line N: " and the
// start of its explanation).
type lowering struct {
	name, src, want string
	notes           []string
	plat            *netmodel.Platform
}

// machine is a platform with the given node groups, for compute.
func machine(tasksPerNode int, mapping netmodel.Mapping, groups ...netmodel.NodeGroup) *netmodel.Platform {
	return &netmodel.Platform{Name: "test", Machine: netmodel.Machine{
		TasksPerNode: tasksPerNode, Mapping: mapping, Nodes: groups, IntSize: 4, PageSize: 4096}}
}

func group(name string, count int, flops, bw, speed float64) netmodel.NodeGroup {
	return netmodel.NodeGroup{Name: name, Count: count, FlopRate: flops, MemBandwidth: bw, Speed: speed}
}

var (
	// Two groups that differ in flop rate, not in bandwidth, two tasks per node.
	mixed = machine(2, netmodel.Block, group("slow", 2, 1e12, 1e11, 1), group("fast", 0, 2e12, 1e11, 1))
	// The same, tasks dealt out to the nodes like cards.
	dealt = machine(2, netmodel.Cyclic, group("slow", 2, 1e12, 1e11, 1), group("fast", 0, 2e12, 1e11, 1))
	// Nodes of speed 2 after 4 nodes of speed 1; three groups, two alike.
	fast = machine(1, netmodel.Block, group("a", 4, 1e12, 1e11, 1), group("b", 4, 1e12, 1e11, 2), group("c", 0, 1e12, 1e11, 2))
)

var lowerings = []lowering{
	{name: "no extension", src: "TASK 0 SENDS A 3 - ABS(-2) BYTE MESSAGE FROM 2 KILOBYTES INTO BUFFER 1 TO TASK 1.",
		want:  "TASK 0 SENDS A 3 - (ABS(-2)) BYTE MESSAGE FROM 2 KILOBYTE INTO BUFFER 1 TO TASK 1.\n",
		notes: []string{"The program uses none of Parley's extensions"}},

	// Compute.
	{name: "work on ib-edr", src: "n IS \"n\" AND COMES FROM \"--n\" OR \"-n\" WITH DEFAULT 8.\nALL TASKS COMPUTE 8 * n FLOPS AND 16 * n BYTES OF MEMORY TRAFFIC.",
		want:  "n IS \"n\" AND COMES FROM \"--n\" OR \"-n\" WITH DEFAULT 8.\n\nALL TASKS COMPUTE FOR MAX((8 * n + 1000000) / 2000000, (16 * n + 100000) / 200000) MICROSECONDS.\n",
		notes: []string{"line 2: COMPUTES n FLOPS", "platform ib-edr", "node group skylake, every node: 2 Tflop/s and 200 GB/s per node; 1 task per node, block mapping"}},
	{name: "work in units", src: "TASK 0 COMPUTES 1000 FLOPS AND 2 KILOBYTES OF MEMORY TRAFFIC THEN TASK 1 COMPUTES 5 FLOPS AND 3 PAGES OF MEMORY TRAFFIC THEN TASK 2 COMPUTES 0 FLOPS AND 16 BITS OF MEMORY TRAFFIC.",
		want: "TASK 0 COMPUTES FOR MAX((1000 + 1000000) / 2000000, (2 * 1024 + 100000) / 200000) MICROSECONDS THEN\n" +
			"TASK 1 COMPUTES FOR MAX((5 + 1000000) / 2000000, (3 * 4096 + 100000) / 200000) MICROSECONDS THEN\n" +
			"TASK 2 COMPUTES FOR MAX((0 + 1000000) / 2000000, ((16 + 7) / 8 + 100000) / 200000) MICROSECONDS.\n",
		notes: []string{"line 1: COMPUTES n FLOPS"}},
	{name: "work on two node groups", plat: mixed, src: "ALL TASKS COMPUTE 100 FLOPS AND 64 BYTES OF MEMORY TRAFFIC.",
		want: "ALL TASKS task_number COMPUTE FOR MAX((100 + (250000 IF task_number / 2 < 2 OTHERWISE 500000)) / " +
			"(500000 IF task_number / 2 < 2 OTHERWISE 1000000), (64 + 25000) / 50000) MICROSECONDS.\n",
		notes: []string{"platform test", "node group slow, 2 nodes: 1 Tflop/s and 100 GB/s per node; node group fast, the other nodes: 2 Tflop/s and 100 GB/s per node; 2 tasks per node, block mapping"}},
	{name: "work on cyclic nodes", plat: dealt, src: "TASKS t SUCH THAT t > 0 COMPUTE 100 FLOPS THEN TASK 3 COMPUTES 7 FLOPS.",
		want: "TASKS t SUCH THAT t > 0 COMPUTE FOR (100 + (250000 IF t MOD ((num_tasks - 1) / 2 + 1) < 2 OTHERWISE 500000)) / " +
			"(500000 IF t MOD ((num_tasks - 1) / 2 + 1) < 2 OTHERWISE 1000000) MICROSECONDS THEN\n" +
			"TASK 3 COMPUTES FOR (7 + (250000 IF 3 MOD ((num_tasks - 1) / 2 + 1) < 2 OTHERWISE 500000)) / " +
			"(500000 IF 3 MOD ((num_tasks - 1) / 2 + 1) < 2 OTHERWISE 1000000) MICROSECONDS.\n"},
	{name: "work on moved tasks", plat: mixed, src: "TASK 0 IS ASSIGNED TO PROCESSOR 5 THEN TASKS {0, 2} COMPUTE 100 FLOPS.",
		want: "TASK 0 IS ASSIGNED TO PROCESSOR 5 THEN\n" +
			"TASKS task_number SUCH THAT task_number IS IN {0, 2} COMPUTE FOR (100 + (250000 IF PROCESSOR_OF(task_number) / 2 < 2 OTHERWISE 500000)) / " +
			"(500000 IF PROCESSOR_OF(task_number) / 2 < 2 OTHERWISE 1000000) MICROSECONDS.\n"},
	{name: "compute for on faster nodes", plat: fast, src: "ALL TASKS COMPUTE FOR 10 MILLISECONDS THEN TASK 1 SLEEPS FOR 3 SECONDS.",
		want: "ALL TASKS task_number COMPUTE FOR (10 * 1000 + (0 IF task_number < 4 OTHERWISE 1)) / (1 IF task_number < 4 OTHERWISE 2) MICROSECONDS THEN\n" +
			"TASK 1 SLEEPS FOR 3 SECONDS.\n",
		notes: []string{"line 1: COMPUTES FOR is divided by the speed", "node group a, 4 nodes: speed 1; node group b, 4 nodes: speed 2; node group c, the other nodes: speed 2"}},
	{name: "compute for at speed 1", src: "ALL TASKS COMPUTE FOR 10 MILLISECONDS.", want: "ALL TASKS COMPUTE FOR 10 MILLISECONDS.\n",
		notes: []string{"The program uses none of Parley's extensions"}},

	// Collectives.
	{name: "scatter", src: "TASK 0 SCATTERS A 1 KILOBYTE MESSAGE TO ALL TASKS THEN TASK 2 SCATTERS 2 8 BYTE MESSAGES TO TASKS t SUCH THAT t < 3.",
		want: "TASK 0 MULTICASTS A 1 KILOBYTE MESSAGE TO ALL OTHER TASKS THEN\n" +
			"TASK 2 MULTICASTS 2 8 BYTE MESSAGES TO TASKS t SUCH THAT t < 3.\n",
		notes: []string{"line 1: TASK r SCATTERS (MPI_Scatter) becomes TASK r MULTICASTS"}},
	{name: "scatterv", src: "TASK 1 SCATTERS A (t + 1) * 16 BYTE MESSAGE TO ALL TASKS t.",
		want:  "FOR EACH t IN {0, ..., num_tasks - 1}\n  IF t <> 1 THEN\n    TASK 1 MULTICASTS A (t + 1) * 16 BYTE MESSAGE TO TASK t.\n",
		notes: []string{"line 1: TASK r SCATTERS a size that depends on the target (MPI_Scatterv)"}},
	{name: "scatterv from a root that reads the target's name", src: "LET t BE 1 WHILE TASK t SCATTERS A t BYTE MESSAGE TO TASKS t SUCH THAT t > 0.",
		want: "LET t BE 1 WHILE\n  FOR EACH t2 IN {0, ..., num_tasks - 1}\n    IF t2 > 0 /\\ t2 <> t THEN\n      TASK t MULTICASTS A t2 BYTE MESSAGE TO TASK t2.\n"},
	{name: "gather", src: "TASK 2 GATHERS A 64 BYTE MESSAGE FROM TASKS g SUCH THAT g <> 0 THEN TASK 0 GATHERS A 8 BYTE MESSAGE FROM ALL OTHER TASKS.",
		want: "TASKS g SUCH THAT g <> 0 /\\ g <> 2 MULTICAST A 64 BYTE MESSAGE TO TASK 2 THEN\n" +
			"TASKS source SUCH THAT source <> 0 MULTICAST AN 8 BYTE MESSAGE TO TASK 0.\n",
		notes: []string{"line 1: TASK r GATHERS (MPI_Gather) becomes a MULTICAST"}},
	{name: "gatherv", src: "TASK 0 GATHERS A (t + 1) * 8 BYTE MESSAGE FROM ALL TASKS t.",
		want:  "FOR EACH t IN {0, ..., num_tasks - 1}\n  IF t <> 0 THEN\n    TASK t MULTICASTS A (t + 1) * 8 BYTE MESSAGE TO TASK 0.\n",
		notes: []string{"line 1: TASK r GATHERS a size that depends on the source (MPI_Gatherv)"}},
	{name: "allgather", src: "ALL TASKS GATHER A 4 KILOBYTE MESSAGE FROM ALL TASKS THEN ALL TASKS GATHER A t * 8 + 8 BYTE MESSAGE FROM ALL TASKS t.",
		want: "ALL TASKS MULTICAST A 4 KILOBYTE MESSAGE TO ALL OTHER TASKS THEN\n" +
			"FOR EACH t IN {0, ..., num_tasks - 1}\n  TASK t MULTICASTS A t * 8 + 8 BYTE MESSAGE TO ALL OTHER TASKS.\n",
		notes: []string{"line 1: ALL TASKS GATHER ... FROM ALL TASKS (MPI_Allgather)"}},
	{name: "exchange", src: "ALL TASKS EXCHANGE A 1 KILOBYTE MESSAGE WITH ALL OTHER TASKS THEN ALL TASKS s EXCHANGE A 8 BYTE MESSAGE WITH TASKS d SUCH THAT d <> s THEN TASK 0 EXCHANGES A 8 BYTE MESSAGE WITH ALL TASKS.",
		want: "ALL TASKS MULTICAST A 1 KILOBYTE MESSAGE TO ALL OTHER TASKS THEN\n" +
			"ALL TASKS s MULTICAST AN 8 BYTE MESSAGE TO TASKS d SUCH THAT d <> s THEN\n" +
			"TASKS sender SUCH THAT sender = 0 MULTICAST AN 8 BYTE MESSAGE TO TASKS peer SUCH THAT peer = 0 /\\ peer <> sender.\n",
		notes: []string{"line 1: tasks EXCHANGE ... WITH peers (MPI_Alltoall)"}},
	{name: "exchange per sender", src: "TASKS s SUCH THAT s < 3 EXCHANGE A s BYTE MESSAGE WITH ALL OTHER TASKS.",
		want: "FOR EACH s IN {0, ..., num_tasks - 1}\n  IF s < 3 THEN\n    TASK s MULTICASTS AN s BYTE MESSAGE TO TASKS peer SUCH THAT peer < 3 /\\ peer <> s.\n"},
	{name: "exchange per pair", src: "ALL TASKS s EXCHANGE A (s + d + 1) * 8 BYTE MESSAGE WITH TASKS d SUCH THAT d <> s.",
		want: "FOR EACH s IN {0, ..., num_tasks - 1}\n  FOR EACH d IN {0, ..., num_tasks - 1}\n    IF d <> s THEN\n" +
			"      TASK s MULTICASTS A (s + d + 1) * 8 BYTE MESSAGE TO TASK d.\n"},
	{name: "exchange in a group", src: "LET g BE TASKS t SUCH THAT t IS EVEN WHILE TASK GROUP g EXCHANGE A g BYTE MESSAGE WITH TASKS h SUCH THAT h > g.",
		want: "FOR EACH g IN {0, ..., num_tasks - 1}\n  IF g IS EVEN THEN\n    TASK g MULTICASTS A g BYTE MESSAGE TO TASKS h SUCH THAT h IS EVEN /\\ h > g /\\ h <> g.\n"},
	{name: "reduce-scatter", src: "ALL TASKS REDUCE 12 INTEGERS USING OPERATION MAXIMUM AND SCATTER THE RESULT.",
		want: "FOR EACH owner IN {0, ..., num_tasks - 1}\n" +
			"  ALL TASKS REDUCE 12 / num_tasks + (1 IF owner < 12 MOD num_tasks OTHERWISE 0) INTEGERS TO TASK owner.\n",
		notes: []string{"line 1: REDUCE n items AND SCATTER THE RESULT (MPI_Reduce_scatter)", "line 1: USING OPERATION is dropped"}},
	{name: "reduce", src: "ALL TASKS REDUCE 3 DOUBLEWORDS USING TAG 2 TO 3 DOUBLEWORDS WITH DATA TOUCHING USING OPERATION PRODUCT THEN ALL TASKS REDUCE AN INTEGER TO TASK 0 WHO RECEIVES THE RESULT INTO BUFFER 2.",
		want:  "ALL TASKS REDUCE 3 DOUBLEWORDS THEN\nALL TASKS REDUCE AN INTEGER TO TASK 0.\n",
		notes: []string{"line 1: USING OPERATION is dropped", "line 1: The result's own specification", "line 1: USING TAG on a MULTICAST"}},
	{name: "multicast", src: "TASK 0 ASYNCHRONOUSLY MULTICASTS A 8 BYTE PAGE ALIGNED MESSAGE WITH DATA TOUCHING USING TAG 4 TO ALL OTHER TASKS.",
		want:  "TASK 0 MULTICASTS AN 8 BYTE MESSAGE TO ALL OTHER TASKS.\n",
		notes: []string{"line 1: ASYNCHRONOUSLY MULTICASTS becomes a blocking MULTICAST", "line 1: The alignment, data touching or verification", "line 1: USING TAG"}},

	// Task variables in message specifications.
	{name: "send by source", src: "TASKS t SUCH THAT t IS ODD SEND A t * 10 BYTE MESSAGE USING TAG 7 TO TASK t XOR 1.",
		want:  "FOR EACH t IN {0, ..., num_tasks - 1}\n  IF t IS ODD THEN\n    TASK t SENDS A t * 10 BYTE MESSAGE USING TAG 7 TO TASK t XOR 1.\n",
		notes: []string{"line 1: A message whose size, count, tag or buffer uses a task variable"}},
	{name: "send by target", src: "TASK 0 ASYNCHRONOUSLY SENDS A d BYTE MESSAGE TO TASKS d SUCH THAT d > 0 WHO RECEIVES IT INTO BUFFER d.",
		want: "FOR EACH d IN {0, ..., num_tasks - 1}\n  IF d > 0 THEN\n    TASK 0 ASYNCHRONOUSLY SENDS A d BYTE MESSAGE TO TASK d WHO RECEIVES IT INTO BUFFER d.\n"},
	{name: "send by a target that reads the source", src: "ALL TASKS s ASYNCHRONOUSLY SENDS A 2 * d BYTE MESSAGE TO TASKS d SUCH THAT d <> s THEN ALL TASKS AWAIT COMPLETION.",
		want: "FOR EACH s IN {0, ..., num_tasks - 1}\n  FOR EACH d IN {0, ..., num_tasks - 1}\n    IF d <> s THEN\n" +
			"      TASK s ASYNCHRONOUSLY SENDS A 2 * d BYTE MESSAGE TO TASK d THEN\nALL TASKS AWAIT COMPLETION.\n"},
	{name: "send by group", src: "LET g BE TASKS t SUCH THAT t < 2 WHILE TASK GROUP g SENDS A g BYTE MESSAGE TO TASK g + 1.",
		want: "FOR EACH g IN {0, ..., num_tasks - 1}\n  IF g < 2 THEN\n    TASK g SENDS A g BYTE MESSAGE TO TASK g + 1.\n"},
	{name: "group kept", src: "LET g BE TASKS t SUCH THAT t < 2 WHILE TASK GROUP g SENDS A 4 BYTE MESSAGE TO TASK g + 1.",
		want: "LET g BE TASKS t SUCH THAT t < 2 WHILE\n  TASK GROUP g SENDS A 4 BYTE MESSAGE TO TASK g + 1.\n"},
	{name: "receive", src: "TASKS r SUCH THAT r = s + 1 RECEIVE A r BYTE MESSAGE FROM TASKS s SUCH THAT s < 2 THEN TASKS src - 1 RECEIVE A src BYTE MESSAGE FROM ALL TASKS src.",
		want: "FOR EACH s IN {0, ..., num_tasks - 1}\n  IF s < 2 THEN\n    FOR EACH r IN {0, ..., num_tasks - 1}\n      IF r = s + 1 THEN\n        TASK r RECEIVES AN r BYTE MESSAGE FROM TASK s THEN\n" +
			"FOR EACH src IN {0, ..., num_tasks - 1}\n  TASK src - 1 RECEIVES A src BYTE MESSAGE FROM TASK src.\n"},
	{name: "multicast by source", src: "TASKS s SUCH THAT s < 2 MULTICAST A s BYTE MESSAGE TO ALL OTHER TASKS.",
		want: "FOR EACH s IN {0, ..., num_tasks - 1}\n  IF s < 2 THEN\n    TASK s MULTICASTS AN s BYTE MESSAGE TO ALL OTHER TASKS.\n"},

	// Other extensions and differences.
	{name: "all tasks receive", src: "ALL TASKS dst RECEIVE A 8 BYTE MESSAGE FROM TASKS dst + 1 THEN ALL TASKS RECEIVE A 8 BYTE MESSAGE FROM TASK 0.",
		want: "TASKS dst SUCH THAT dst >= 0 RECEIVE AN 8 BYTE MESSAGE FROM TASK dst + 1 THEN\n" +
			"TASKS receiver SUCH THAT receiver >= 0 RECEIVE AN 8 BYTE MESSAGE FROM TASK 0.\n",
		notes: []string{"line 1: ALL TASKS v RECEIVE ... becomes TASKS v SUCH THAT v >= 0"}},
	{name: "mesh and root", src: "k IS \"k\" AND COMES FROM \"--k\" OR \"-k\" WITH DEFAULT 2.\nTASK 0 OUTPUTS MESH_NEIGHBOR((4, 4, 2), 3, (1)) AND ROOT(-3, 8) AND ROOT(2, 9) AND ROOT(k, 9).",
		want: "k IS \"k\" AND COMES FROM \"--k\" OR \"-k\" WITH DEFAULT 2.\n\n" +
			"TASK 0 OUTPUTS MESH_NEIGHBOR((4, 4, 2), 3, (1, 0, 0)) AND 1 / ROOT(3, 8) AND ROOT(2, 9) AND 1 / ROOT(-k, 9) IF k < 0 OTHERWISE ROOT(k, 9).\n",
		notes: []string{"line 2: MESH_NEIGHBOR with fewer offsets", "line 2: ROOT(-n, x)"}},
	{name: "sweep", src: "k IS \"k\" AND COMES FROM \"--k\" OR \"-k\" WITH DEFAULT 2 AND RANGES OVER {1, 2}.\nTASK 0 OUTPUTS k.",
		want:  "k IS \"k\" AND COMES FROM \"--k\" OR \"-k\" WITH DEFAULT 2.\n\nTASK 0 OUTPUTS k.\n",
		notes: []string{"line 1: AND RANGES OVER is dropped"}},
	{name: "comprehension variable hiding one its range reads", src: "LET x BE 4 WHILE\n  IF x IS IN {x * x FOR EACH x IN {1, ..., x}} THEN\n    TASK 0 OUTPUTS \"x \" AND x.",
		want:  "LET x BE 4 WHILE\n  IF x IS IN {x2 * x2 FOR EACH x2 IN {1, ..., x}} THEN\n    TASK 0 OUTPUTS \"x \" AND x.\n",
		notes: []string{"line 2: A comprehension's variable that has the name of a variable its own ranges read"}},
	{name: "seed without randomness", src: "s IS \"s\" AND COMES FROM \"--seed\" OR \"-s\" WITH DEFAULT 2.\nTASK 0 OUTPUTS s.",
		want: "s IS \"s\" AND COMES FROM \"--seed\" OR \"-s\" WITH DEFAULT 2.\n\nTASK 0 OUTPUTS s.\n"},
}

// TestLowerings checks each lowering's text, the header's account of it,
// and that Parley's interpreter runs the export as it runs the original
// (see sameRun).
func TestLowerings(t *testing.T) {
	ib := platform(t)
	for _, l := range lowerings {
		t.Run(l.name, func(t *testing.T) {
			plat := l.plat
			if plat == nil {
				plat = ib
			}
			header, body := exported(t, l.src, plat)
			sameRun(t, parse(t, "p.parley", []byte(l.src)), parse(t, "p.ncptl", []byte(header+"\n\n"+body)), exampleRun{tasks: 4})
			if body != l.want {
				t.Errorf("export of\n%s\ngot:\n%s\nwant:\n%s", l.src, body, l.want)
			}
			flat := strings.Join(strings.Fields(strings.ReplaceAll(header, "#", "")), " ")
			for _, n := range l.notes {
				if !strings.Contains(flat, n) {
					t.Errorf("the header does not say %q:\n%s", n, header)
				}
			}
		})
	}
}

// TestComputeTimes: where node groups differ, each task of the export
// computes as long as Parley says it does in the original, to the
// microsecond the export rounds to, whatever the number of tasks (and so
// of nodes, which the cyclic mapping depends on) and wherever ARE ASSIGNED
// TO puts the tasks. The program's expressions keep integer arithmetic.
func TestComputeTimes(t *testing.T) {
	src := "TASK 0 IS ASSIGNED TO PROCESSOR 2 THEN\n" +
		"ALL TASKS COMPUTE 3E10 FLOPS AND 1E9 BYTES OF MEMORY TRAFFIC THEN\n" +
		// Integer arithmetic: 7E10 flops, not 7.5E10.
		"ALL TASKS COMPUTE 75E9 / 1E10 * 1E10 FLOPS AND 1E9 BYTES OF MEMORY TRAFFIC THEN\n" +
		"ALL TASKS COMPUTE FOR 1 MILLISECOND THEN\n" +
		"TASKS t SUCH THAT t IS ODD COMPUTE 7E10 FLOPS.\n"
	orig := parse(t, "p.parley", []byte(src))
	for name, plat := range map[string]*netmodel.Platform{"mixed": mixed, "dealt": dealt, "fast": fast} {
		text, err := ncptl.Export(orig, ncptl.Options{Platform: plat})
		if err != nil {
			t.Fatal(err)
		}
		exported := parse(t, "p.ncptl", text)
		// The export's durations are for a machine that runs COMPUTES FOR
		// as written: Parley must not divide them by the speed again.
		asWritten := *plat
		asWritten.Machine.Nodes = slices.Clone(plat.Machine.Nodes)
		for i := range asWritten.Machine.Nodes {
			asWritten.Machine.Nodes[i].Speed = 1
		}
		for _, n := range []int64{3, 5, 8, 11} {
			want := predictOn(t, orig, exampleRun{tasks: n}, plat)
			got := predictOn(t, exported, exampleRun{tasks: n}, &asWritten)
			for r := range want.Tasks {
				w, g := want.Tasks[r].Compute.Micros(), got.Tasks[r].Compute.Micros()
				if math.Abs(w-g) > 1.5 {
					t.Errorf("%s, %d tasks: task %d computes %gus in the original, %gus in the export:\n%s", name, n, r, w, g, text)
				}
			}
		}
	}
}

// TestLoweringsOnRealCoNCePTuaL compiles every lowering's export to C with
// coNCePTuaL's own compiler.
func TestLoweringsOnRealCoNCePTuaL(t *testing.T) {
	compiler := realCompiler(t)
	ib := platform(t)
	dir := t.TempDir()
	for i, l := range lowerings {
		t.Run(l.name, func(t *testing.T) {
			plat := l.plat
			if plat == nil {
				plat = ib
			}
			text, err := ncptl.Export(parse(t, "p.parley", []byte(l.src)), ncptl.Options{Platform: plat})
			if err != nil {
				t.Fatal(err)
			}
			compileReal(t, compiler, dir, fmt.Sprintf("case%d", i), text, false)
		})
	}
}

// TestRefusals: constructs with no coNCePTuaL form stop the export with
// their position, what is wrong and what to do, and no text.
func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string // "line:col: message" substrings, one per diagnostic, and hints
	}{
		{"nested timed loops", "FOR 1 SECOND {\n  FOR 2 MILLISECONDS TASK 0 SENDS A 8 BYTE MESSAGE TO TASK 1\n}",
			[]string{"p.parley:2:3: error: no coNCePTuaL form: a timed loop inside a timed loop", "hint: time the outer loop only"}},
		{"blocking all-to-all", "ALL TASKS SEND A 8 BYTE MESSAGE TO ALL OTHER TASKS.",
			[]string{"p.parley:1:1: error: no coNCePTuaL form: ALL TASKS blocking-send to ALL OTHER TASKS", "hint: send ASYNCHRONOUSLY"}},
		{"reduce-scatter among some tasks", "TASKS t SUCH THAT t < 2 REDUCE A DOUBLEWORD AND SCATTER THE RESULT.",
			[]string{"p.parley:1:1: error: no coNCePTuaL form: a reduce-scatter among some of the tasks", "hint: reduce-scatter among ALL TASKS"}},
		{"reserved options", "p IS \"p\" AND COMES FROM \"--logfile\" OR \"-p\" WITH DEFAULT 1.\nq IS \"q\" AND COMES FROM \"--comment\" OR \"-q\" WITH DEFAULT 1.\n" +
			"r IS \"r\" AND COMES FROM \"--no-trap\" OR \"-r\" WITH DEFAULT 1.\nd IS \"d\" AND COMES FROM \"--seed\" OR \"-d\" WITH DEFAULT 1.\n" +
			"TASK 0 OUTPUTS p + q + r + d + RANDOM_UNIFORM(0, 1).",
			[]string{"p.parley:1:25: error: no coNCePTuaL form: coNCePTuaL's run time defines the option --logfile",
				"p.parley:2:25: error: no coNCePTuaL form: coNCePTuaL's run time defines the option --comment",
				"p.parley:3:25: error: no coNCePTuaL form: coNCePTuaL's run time defines the option --no-trap",
				"p.parley:4:25: error: no coNCePTuaL form: coNCePTuaL's run time defines the option --seed for every program that draws random numbers",
				"hint: choose another long option for d"}},
		{"a group's variable hidden", "n IS \"n\" AND COMES FROM \"--n\" OR \"-n\" WITH DEFAULT 2.\n" +
			"LET g BE TASKS t SUCH THAT t < n WHILE\n  FOR EACH n IN {1, 2}\n    TASK GROUP g SENDS A g BYTE MESSAGE TO TASK g + n.",
			[]string{"p.parley:4:5: error: no coNCePTuaL form: task group g uses the variable n, which is bound again where the group is used",
				"hint: rename the variable n"}},
		{"a group's variable hidden by the statement", "n IS \"n\" AND COMES FROM \"--n\" OR \"-n\" WITH DEFAULT 2.\n" +
			"LET g BE TASKS t SUCH THAT t < n WHILE\n  ALL TASKS n SEND A g BYTE MESSAGE TO TASK GROUP g.",
			[]string{"p.parley:3:3: error: no coNCePTuaL form: task group g uses the variable n, which is bound again where the group is used"}},
		{"reduce targets reading the sources' variable", "TASKS s SUCH THAT s IS EVEN REDUCE A DOUBLEWORD TO TASKS r SUCH THAT r = s + 1.",
			[]string{"p.parley:1:52: error: no coNCePTuaL form: a REDUCE whose targets' SUCH THAT reads the sources' variable s", "hint: describe the targets without s"}},
		{"sides that read each other", "TASKS r SUCH THAT r = s + 1 RECEIVE A r + s BYTE MESSAGE FROM TASKS s SUCH THAT s = r - 1.",
			[]string{"p.parley:1:1: error: no coNCePTuaL form: each side's task description uses the other's variable"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := parse(t, "p.parley", []byte(c.src))
			text, err := ncptl.Export(prog, ncptl.Options{Platform: platform(t)})
			var diags lang.Diagnostics
			if !errors.As(err, &diags) || text != nil {
				t.Fatalf("export of\n%s\ngave %v and\n%s", c.src, err, text)
			}
			all := diags.Error()
			for _, w := range c.want {
				if !strings.Contains(all, w) {
					t.Errorf("diagnostics lack %q:\n%s", w, all)
				}
			}
			if n := strings.Count(strings.Join(c.want, "\n"), ": error: "); n != len(diags) {
				t.Errorf("%d diagnostics, want %d:\n%s", len(diags), n, all)
			}
		})
	}
}

// TestPlatformErrors: a platform whose rates cannot be written exactly in
// coNCePTuaL's integers, or no platform at all, is an error, not a panic.
func TestPlatformErrors(t *testing.T) {
	prog := parse(t, "p.parley", []byte("ALL TASKS COMPUTE 5 FLOPS."))
	tiny := machine(1, netmodel.Block, group("tiny", 0, 1e-300, 1, 1))
	for _, c := range []struct {
		plat *netmodel.Platform
		want string
	}{
		{nil, "no platform"},
		{tiny, "platform test: a rate or speed has no exact form"},
		{machine(0, netmodel.Block, group("g", 0, 1, 1, 1)), "tasks_per_node"},
	} {
		_, err := ncptl.Export(prog, ncptl.Options{Platform: c.plat})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// TestHeader: the header says where the export comes from, how to compile
// it, and lists each lowering once with all its lines.
func TestHeader(t *testing.T) {
	src := "REQUIRE LANGUAGE VERSION \"1.5\".\n# about the body\nTASK 0 SCATTERS A 8 BYTE MESSAGE TO ALL TASKS.\nTASK 1 SCATTERS A 8 BYTE MESSAGE TO ALL TASKS.\n"
	prog := parse(t, "dir/scat.parley", []byte(src))
	text, err := ncptl.Export(prog, ncptl.Options{Platform: platform(t), Command: "parley export --format ncptl"})
	if err != nil {
		t.Fatal(err)
	}
	want := `# dir/scat.parley as strict coNCePTuaL 1.5, written by Parley's export (parley
# export --format ncptl). Compile it with coNCePTuaL's own compiler, e.g.
#   ncptl --backend=c_mpi --output=scat scat.ncptl
#
# Parley's extensions, lowered (lines of dir/scat.parley):
# - lines 3, 4: TASK r SCATTERS (MPI_Scatter) becomes TASK r MULTICASTS the
`
	if !strings.HasPrefix(string(text), want) {
		t.Errorf("got:\n%s\nwant it to begin with:\n%s", text, want)
	}
	if !regexp.MustCompile(`(?m)^REQUIRE LANGUAGE VERSION "1.5".\n\n# about the body\nTASK 0 MULTICASTS`).Match(text) {
		t.Errorf("the program's comment is not kept in place:\n%s", text)
	}
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "#") && len(line) > 78 {
			t.Errorf("header line longer than 78 columns: %q", line)
		}
	}
	_ = os.Stdout
}
