package interp_test

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
	"github.com/parley-hpc/parley/parser"
)

// testPlatform has round LogGP numbers and one task per node, so every
// message crosses the network: L=5us, o=1us, g=2us, G=1ns/byte, O=0, and
// messages above 64 KiB use a rendezvous. A flop takes 1 ns and a byte of
// memory traffic 1 ns.
const testPlatform = `
name = "test"
[network]
model = "loggp"
L = "5us"
o = "1us"
g = "2us"
G = "1GB/s"
O = "0ns/B"
S = "64KiB"
[machine]
tasks_per_node = 1
[[machine.nodes]]
name = "node"
flops = "1GF/s"
memory_bandwidth = "1GB/s"
`

func platform(t testing.TB, extra string) *netmodel.Platform {
	t.Helper()
	p, err := netmodel.Parse([]byte(testPlatform+extra), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// build parses, checks and resolves a program.
func build(t testing.TB, name, src string) *ir.Program {
	t.Helper()
	prog, diags := parser.Parse(name, []byte(src))
	if prog != nil && !diags.HasErrors() {
		diags = append(diags, lang.Check(prog)...)
	}
	if prog == nil || diags.HasErrors() {
		t.Fatalf("%s does not compile:\n%v", name, diags)
	}
	p, err := ir.Build(prog)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// run predicts src on n tasks and returns the result and the program's
// output.
func run(t testing.TB, src string, n int64, plat *netmodel.Platform, args ...string) (*interp.Result, string) {
	t.Helper()
	var out bytes.Buffer
	res, err := interp.Run(build(t, "test.parley", src), interp.Options{NumTasks: n, Platform: plat, Args: args, Seed: 1, Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	return res, out.String()
}

func runOK(t testing.TB, src string, n int64, plat *netmodel.Platform, args ...string) (*interp.Result, string) {
	t.Helper()
	res, out := run(t, src, n, plat, args...)
	if !res.OK() {
		t.Fatalf("unexpected problems: %v", res.Problems)
	}
	return res, out
}

func us(x float64) netmodel.Duration { return netmodel.FromMicros(x) }

func TestOneWayFormula(t *testing.T) {
	// Pin the formula itself once, by hand: o + L + o + (n-1)G.
	net := platform(t, "").Network
	if got, want := net.OneWay(1000), us(1+5+1+0.999); got != want {
		t.Fatalf("OneWay(1000) = %v, want %v", got, want)
	}
}

func TestPingPong(t *testing.T) {
	plat := platform(t, "")
	net := &plat.Network
	for _, n := range []int64{0, 1, 1000, 65536} {
		src := `
n IS "bytes" AND COMES FROM "--bytes" OR "-b" WITH DEFAULT 0.
FOR 10 REPETITIONS {
  TASK 0 SENDS AN n BYTE MESSAGE TO TASK 1 THEN
  TASK 1 SENDS AN n BYTE MESSAGE TO TASK 0
}`
		res, _ := runOK(t, src, 2, plat, "--bytes", itoa(n))
		if want := 20 * net.OneWay(n); res.Predicted != want {
			t.Errorf("ping-pong of %d bytes: predicted %v, want 20 one-way times = %v", n, res.Predicted, want)
		}
		for task, ts := range res.Tasks {
			if ts.MsgsSent != 10 || ts.MsgsReceived != 10 || ts.BytesSent != 10*n || ts.BytesReceived != 10*n {
				t.Errorf("%d bytes: task %d sent %d msgs/%d bytes, received %d/%d; want 10/%d each way", n, task, ts.MsgsSent, ts.BytesSent, ts.MsgsReceived, ts.BytesReceived, 10*n)
			}
		}
	}
}

// A rendezvous adds the request's and the clear-to-send's trips:
// o + L (request) + L (clear to send) + L + o + (n-1)G (the data).
func TestPingPongRendezvous(t *testing.T) {
	plat := platform(t, "")
	net := &plat.Network
	const n = 1 << 20
	res, _ := runOK(t, `FOR 3 REPETITIONS { TASK 0 SENDS A 1 MEGABYTE MESSAGE TO TASK 1 THEN TASK 1 SENDS A 1 MEGABYTE MESSAGE TO TASK 0 }`, 2, plat)
	oneWay := 2*net.Overhead + 3*net.Latency + net.ByteGap.Times(n-1)
	if want := 6 * oneWay; res.Predicted != want {
		t.Errorf("rendezvous ping-pong: predicted %v, want %v", res.Predicted, want)
	}
}

// Asynchronous ring shift: every task's message travels at once, so each
// shift costs one one-way time.
func TestRingShift(t *testing.T) {
	plat := platform(t, "")
	net := &plat.Network
	for _, tasks := range []int64{2, 5, 64} {
		res, _ := runOK(t, `
FOR 7 REPETITIONS {
  ALL TASKS t ASYNCHRONOUSLY SEND A 4 KILOBYTE MESSAGE TO TASK (t + 1) MOD num_tasks THEN
  ALL TASKS AWAIT COMPLETION
}`, tasks, plat)
		if want := 7 * net.OneWay(4096); res.Predicted != want {
			t.Errorf("%d tasks: ring predicted %v, want 7 one-way times = %v", tasks, res.Predicted, want)
		}
	}
}

// Blocking sends from t to t+1 form a pipeline: the implied receive comes
// first, so each task forwards only after hearing from its left neighbour.
func TestPipeline(t *testing.T) {
	plat := platform(t, "")
	net := &plat.Network
	for _, tasks := range []int64{2, 3, 8, 33} {
		res, _ := runOK(t, `ALL TASKS t SEND A 100 BYTE MESSAGE TO TASK t + 1`, tasks, plat)
		if want := netmodel.Duration(tasks-1) * net.OneWay(100); res.Predicted != want {
			t.Errorf("%d tasks: pipeline predicted %v, want %d hops = %v", tasks, res.Predicted, tasks-1, want)
		}
	}
}

// A binomial broadcast on 2^k tasks reaches its last task after k
// one-way times (along the chain of first children), provided a sender's
// next message can start before a one-way time has passed.
func TestBinomialBroadcast(t *testing.T) {
	plat := platform(t, "[collectives]\nbcast = \"binomial\"\n")
	net := &plat.Network
	for k := 1; k <= 6; k++ {
		tasks := int64(1) << k
		for _, n := range []int64{8, 8192} {
			src := `n IS "bytes" AND COMES FROM "--bytes" OR "-b" WITH DEFAULT 8.
TASK 0 MULTICASTS AN n BYTE MESSAGE TO ALL OTHER TASKS`
			res, _ := runOK(t, src, tasks, plat, "--bytes", itoa(n))
			if want := netmodel.Duration(k) * net.OneWay(n); res.Predicted != want {
				t.Errorf("%d tasks, %d bytes: binomial broadcast predicted %v, want %d one-way times = %v", tasks, n, res.Predicted, k, want)
			}
		}
	}
}

// Recursive doubling on 2^k tasks: k rounds, each a one-way time plus the
// combining, which reads two operands and writes the result (3n bytes of
// memory traffic).
func TestRecursiveDoublingAllreduce(t *testing.T) {
	plat := platform(t, "[collectives]\nallreduce = \"recursive_doubling\"\n")
	net := &plat.Network
	for k := 1; k <= 7; k++ {
		tasks := int64(1) << k
		res, _ := runOK(t, `ALL TASKS REDUCE 128 DOUBLEWORDS`, tasks, plat)
		const n = 128 * 8
		combine := plat.Machine.Touch(0, tasks, 3*n)
		if combine != us(3*n/1000.0) {
			t.Fatalf("combining %d bytes costs %v, want %v at 1 GB/s", n, combine, us(3*n/1000.0))
		}
		if want := netmodel.Duration(k) * (net.OneWay(n) + combine); res.Predicted != want {
			t.Errorf("%d tasks: recursive-doubling allreduce predicted %v, want %d rounds = %v", tasks, res.Predicted, k, want)
		}
		for i, ts := range res.Tasks {
			if ts.MsgsSent != 0 || ts.CollMsgs != int64(2*k) || ts.CollBytes != int64(2*k)*n {
				t.Errorf("%d tasks: task %d has %d program messages and %d (%d bytes) inside collectives, want 0 and %d (%d bytes)", tasks, i, ts.MsgsSent, ts.CollMsgs, ts.CollBytes, 2*k, int64(2*k)*n)
			}
		}
	}
}

func TestComputeCosts(t *testing.T) {
	plat := platform(t, "")
	res, _ := runOK(t, `
ALL TASKS COMPUTE FOR 3 MILLISECONDS THEN
ALL TASKS SLEEP FOR 2 MICROSECONDS THEN
ALL TASKS COMPUTE 1000 FLOPS AND 500 BYTES OF MEMORY TRAFFIC`, 3, plat)
	want := us(3000) + us(2) + plat.Machine.Work(0, 3, 1000, 500)
	if res.Predicted != want {
		t.Errorf("predicted %v, want %v", res.Predicted, want)
	}
	for i, ts := range res.Tasks {
		if ts.Compute != want || ts.Comm != 0 || ts.Wait != 0 {
			t.Errorf("task %d: compute %v comm %v wait %v, want all compute", i, ts.Compute, ts.Comm, ts.Wait)
		}
	}
}

// TOUCHES reads and writes every item it touches: 2 x 8 bytes per
// doubleword, at the test platform's 1 GB/s.
func TestTouchCosts(t *testing.T) {
	plat := platform(t, "")
	res, _ := runOK(t, `
ALL TASKS TOUCH A 64 KILOBYTE MEMORY REGION THEN
ALL TASKS TOUCH 1000 DOUBLEWORDS OF A 1 MEGABYTE MEMORY REGION WITH STRIDE 8 DOUBLEWORDS`, 2, plat)
	// 64 KiB of words: 16384 words read and written; then 1000 doublewords.
	want := plat.Machine.Touch(0, 2, 2*65536) + plat.Machine.Touch(0, 2, 2*1000*8)
	if want != us(2*65536/1000.0+16) || res.Predicted != want {
		t.Errorf("predicted %v, want %v", res.Predicted, want)
	}
}

// Tasks on one node talk through [network.intra]: with two tasks per node,
// 0 and 1 share a node and 0 and 2 do not.
func TestIntraNodeLink(t *testing.T) {
	src := strings.Replace(testPlatform, "tasks_per_node = 1", "tasks_per_node = 2", 1)
	plat, err := netmodel.Parse([]byte(src+"[network.intra]\nL = \"100ns\"\no = \"50ns\"\nG = \"10GB/s\"\n"), "intra.toml")
	if err != nil {
		t.Fatal(err)
	}
	intra := plat.Intra
	res, _ := runOK(t, "TASK 0 SENDS A 1001 BYTE MESSAGE TO TASK 1", 4, plat)
	if want := intra.OneWay(1001); res.Predicted != want || want != us(0.05+0.1+0.05+0.1) {
		t.Errorf("same node: predicted %v, want %v", res.Predicted, want)
	}
	res, _ = runOK(t, "TASK 0 SENDS A 1001 BYTE MESSAGE TO TASK 2", 4, plat)
	if want := plat.Network.OneWay(1001); res.Predicted != want {
		t.Errorf("other node: predicted %v, want %v", res.Predicted, want)
	}
	// With one task per node, under either mapping, only a task's
	// messages to itself stay on its node.
	for _, mapping := range []string{"block", "cyclic"} {
		one := strings.Replace(testPlatform, "tasks_per_node = 1", "tasks_per_node = 1\nmapping = \""+mapping+"\"", 1)
		plat, err := netmodel.Parse([]byte(one+"[network.intra]\nL = \"100ns\"\no = \"50ns\"\nG = \"10GB/s\"\n"), "intra.toml")
		if err != nil {
			t.Fatal(err)
		}
		res, _ := runOK(t, "TASK 1 ASYNCHRONOUSLY SENDS A 1001 BYTE MESSAGE TO TASK 1 THEN TASK 1 AWAITS COMPLETION", 4, plat)
		if want := plat.Intra.OneWay(1001); res.Predicted != want {
			t.Errorf("%s mapping, one task per node, to itself: predicted %v, want %v", mapping, res.Predicted, want)
		}
		res, _ = runOK(t, "TASK 1 SENDS A 1001 BYTE MESSAGE TO TASK 2", 4, plat)
		if want := plat.Network.OneWay(1001); res.Predicted != want {
			t.Errorf("%s mapping, one task per node, to another: predicted %v, want %v", mapping, res.Predicted, want)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestReduceTargetsReadTheSources: a REDUCE target that reads the sources'
// variable names the union of its tasks over the sources, as coNCePTuaL's
// C backend computes it (issue 20): with 6 tasks the sources are 0 and 3
// and the targets 0/2 = 0 and 3/2 = 1, so task 1 takes part and tasks 2, 4
// and 5 do not. Evaluated once with a stale variable, the targets were
// task 0 alone.
func TestReduceTargetsReadTheSources(t *testing.T) {
	for _, src := range []string{
		`TASKS third SUCH THAT 3 DIVIDES third REDUCE A DOUBLEWORD TO TASKS third/2`,
		`TASKS third SUCH THAT 3 DIVIDES third REDUCE A DOUBLEWORD TO TASKS r SUCH THAT r = third/2`,
	} {
		res, _ := runOK(t, src, 6, platform(t, ""))
		var inside []int
		for i, ts := range res.Tasks {
			if ts.CollMsgs > 0 {
				inside = append(inside, i)
			}
		}
		if want := []int{0, 1, 3}; !slices.Equal(inside, want) {
			t.Errorf("%s: tasks %v take part, want %v", src, inside, want)
		}
	}
}
