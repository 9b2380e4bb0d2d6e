package ir_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/ir"
)

// members lists the tasks of the first statement's task set (its performer)
// in the order Each visits them, checking Contains and Count agree.
func members(t *testing.T, src string, numTasks int64) []int64 {
	t.Helper()
	p := build(t, src)
	g := globals(t, p, numTasks)
	f := ir.NewFrame(g, p, 0)
	var set *ir.TaskSet
	switch s := p.Body[0].Stmts[0].(type) {
	case *ir.Output:
		set = s.Tasks
	case *ir.Let:
		set = s.Body.(*ir.Output).Tasks
	default:
		t.Fatalf("unexpected statement %T", s)
	}
	var got []int64
	if err := ir.Catch(func() {
		set.Each(f, -1, func(task int64) bool { got = append(got, task); return true })
	}); err != nil {
		t.Fatal(err)
	}
	var byContains []int64
	for task := int64(-3); task < numTasks+3; task++ {
		if set.Contains(f, task, -1) {
			byContains = append(byContains, task)
		}
	}
	if !slices.Equal(got, byContains) {
		t.Fatalf("%s: Each visits %v but Contains accepts %v", src, got, byContains)
	}
	if c := set.Count(f, -1); c != int64(len(got)) {
		t.Fatalf("%s: Count = %d, Each visits %d", src, c, len(got))
	}
	return got
}

func TestTaskSets(t *testing.T) {
	tests := []struct {
		src  string
		want []int64
	}{
		{"ALL TASKS OUTPUT 1.", []int64{0, 1, 2, 3, 4, 5, 6, 7}},
		{"TASK 3 OUTPUTS 1.", []int64{3}},
		{"TASK 2*3+1 OUTPUTS 1.", []int64{7}},
		{"TASK 8 OUTPUTS 1.", nil},  // out of range: dropped
		{"TASK -1 OUTPUTS 1.", nil}, // likewise
		{"TASKS t SUCH THAT t IS EVEN OUTPUT t.", []int64{0, 2, 4, 6}},
		{"TASKS thr SUCH THAT 3 DIVIDES thr-1 OUTPUT thr.", []int64{1, 4, 7}},
		{"TASKS x SUCH THAT x>0 /\\ x<num_tasks-1 OUTPUT x.", []int64{1, 2, 3, 4, 5, 6}},
		{"TASKS t SUCH THAT t < 3 OUTPUT t.", []int64{0, 1, 2}},
		{"TASKS t SUCH THAT 5 <= t OUTPUT t.", []int64{5, 6, 7}},
		{"TASKS t SUCH THAT t = 100 OUTPUT t.", nil},
		{"TASKS t SUCH THAT t IS IN [2, 4] /\\ t <> 3 OUTPUT t.", []int64{2, 4}},
		{"TASKS t SUCH THAT t > 2 \\/ t = 0 OUTPUT t.", []int64{0, 3, 4, 5, 6, 7}},
		{"TASKS {3, 5, 8} OUTPUT 1.", []int64{3, 5}},
		{"TASKS {6, 2, 3, 2} OUTPUT 1.", []int64{2, 3, 6}},
		{"TASKS {-4, ..., 20} OUTPUT 1.", []int64{0, 1, 2, 3, 4, 5, 6, 7}},
		{"TASKS {7, 5, ..., -3} OUTPUT 1.", []int64{1, 3, 5, 7}},
		{"TASKS {1, 4, ..., 100} OUTPUT 1.", []int64{1, 4, 7}},
		{"TASKS {0}, {1, 2, 4, ..., num_tasks} OUTPUT 1.", []int64{0, 1, 2, 4}},
		{"TASKS {z-z FOR EACH z IN {10, ..., 20}} OUTPUT 1.", []int64{0}},
		{"LET left BE TASKS t SUCH THAT t < num_tasks/2 WHILE TASK GROUP left OUTPUTS left.", []int64{0, 1, 2, 3}},
	}
	for _, tt := range tests {
		got := members(t, tt.src, 8)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: members %v, want %v", tt.src, got, tt.want)
		}
	}
}

// TestTargetsSeeSourceVariable: target descriptions are evaluated with the
// source's variable bound, ALL OTHER TASKS excludes the source, and the
// pairs come out in the order coNCePTuaL documents (sources ascending, then
// targets ascending).
func TestTargetsSeeSourceVariable(t *testing.T) {
	pairs := func(src string, n int64) [][2]int64 {
		p := build(t, src)
		g := globals(t, p, n)
		f := ir.NewFrame(g, p, 0)
		send := p.Body[0].Stmts[0].(*ir.Send)
		var out [][2]int64
		send.Source.Each(f, -1, func(s int64) bool {
			send.Target.Each(f, s, func(d int64) bool {
				out = append(out, [2]int64{s, d})
				return true
			})
			return true
		})
		return out
	}
	got := pairs("ALL TASKS t SEND A 1 KILOBYTE MESSAGE TO TASK t+1.", 4)
	if want := [][2]int64{{0, 1}, {1, 2}, {2, 3}}; !slices.Equal(got, want) {
		t.Errorf("pipeline pairs %v, want %v (the last task sends nothing)", got, want)
	}
	got = pairs("TASKS x SUCH THAT x IS IN {1,4,5} SEND A 768 BYTE MESSAGE TO TASKS y SUCH THAT y IS IN {6,2,3}.", 8)
	want := [][2]int64{{1, 2}, {1, 3}, {1, 6}, {4, 2}, {4, 3}, {4, 6}, {5, 2}, {5, 3}, {5, 6}}
	if !slices.Equal(got, want) {
		t.Errorf("manual's nine messages: %v, want %v", got, want)
	}
	got = pairs("TASK 2 SENDS A MESSAGE TO ALL OTHER TASKS.", 4)
	if want := [][2]int64{{2, 0}, {2, 1}, {2, 3}}; !slices.Equal(got, want) {
		t.Errorf("ALL OTHER TASKS: %v, want %v", got, want)
	}
	got = pairs("TASKS src SUCH THAT 3 DIVIDES src SEND A MESSAGE TO TASKS dst SUCH THAT dst > src /\\ dst < src + 3.", 7)
	if want := [][2]int64{{0, 1}, {0, 2}, {3, 4}, {3, 5}}; !slices.Equal(got, want) {
		t.Errorf("SUCH THAT on both sides: %v, want %v (task 6's targets do not exist)", got, want)
	}
}

// TestReceiveBindsBothWays: in `TASK (n+1) MOD num_tasks RECEIVES ... FROM
// TASK n SUCH THAT n < 4` the receivers' expression uses the senders'
// variable.
func TestReceiveBindsBothWays(t *testing.T) {
	p := build(t, "TASK (n+1) MOD num_tasks RECEIVES A MESSAGE FROM TASK n SUCH THAT n < 4.")
	g := globals(t, p, 4)
	f := ir.NewFrame(g, p, 0)
	recv := p.Body[0].Stmts[0].(*ir.Receive)
	var got [][2]int64
	recv.Senders.Each(f, -1, func(s int64) bool {
		recv.Receivers.Each(f, s, func(r int64) bool {
			got = append(got, [2]int64{s, r})
			return true
		})
		return true
	})
	if want := [][2]int64{{0, 1}, {1, 2}, {2, 3}, {3, 0}}; !slices.Equal(got, want) {
		t.Errorf("ring receives %v, want %v", got, want)
	}
}

// TestMillionTasksLazily: visiting a small subset of a million tasks costs
// the subset, not the million, and ranges never turn into lists of tasks.
func TestMillionTasksLazily(t *testing.T) {
	const n = 1_000_000
	tests := []struct {
		src  string
		want int64
	}{
		{"TASKS t SUCH THAT t < 3 OUTPUT t.", 3},
		{"TASKS t SUCH THAT t >= num_tasks - 2 OUTPUT t.", 2},
		{"TASKS {0, 2, ..., num_tasks-1} OUTPUT 1.", n / 2},
		{"TASK num_tasks - 1 OUTPUTS 1.", 1},
	}
	for _, tt := range tests {
		if got := int64(len(members(t, tt.src, n))); got != tt.want {
			t.Errorf("%s: %d members, want %d", tt.src, got, tt.want)
		}
	}
}

func TestConfigure(t *testing.T) {
	p := build(t, `reps IS "Repetitions" AND COMES FROM "--reps" OR "-r" WITH DEFAULT 25*4.
size IS "Message size" AND COMES FROM "--size" OR "-s" WITH DEFAULT 1K.
TASK 0 OUTPUTS reps AND size.`)
	tests := []struct {
		args []string
		reps int64
		size int64
	}{
		{nil, 100, 1024},
		{[]string{"--reps", "7"}, 7, 1024},
		{[]string{"--reps=7", "-s", "64K"}, 7, 65536},
		{[]string{"-r", "-3", "--size=1E3"}, -3, 1000},
	}
	for _, tt := range tests {
		g, err := p.Configure(ir.Config{NumTasks: 2, Args: tt.args})
		if err != nil {
			t.Errorf("%v: %v", tt.args, err)
			continue
		}
		if g.Params[0] != tt.reps || g.Params[1] != tt.size {
			t.Errorf("%v: reps=%d size=%d, want %d %d", tt.args, g.Params[0], g.Params[1], tt.reps, tt.size)
		}
	}
	for _, bad := range [][]string{{"--bogus", "1"}, {"--reps"}, {"--reps", "many"}} {
		if _, err := p.Configure(ir.Config{NumTasks: 2, Args: bad}); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
	_, err := p.Configure(ir.Config{NumTasks: 2, Args: []string{"--help"}})
	if !errors.Is(err, ir.ErrHelp) {
		t.Errorf("--help: %v, want ErrHelp", err)
	}
	if u := p.Usage(); !strings.Contains(u, "-r, --reps=<number>") || !strings.Contains(u, "[default: 25 * 4]") {
		t.Errorf("usage lacks options or defaults:\n%s", u)
	}
	if _, err := p.Configure(ir.Config{NumTasks: 0}); err == nil {
		t.Errorf("zero tasks accepted")
	}
}
