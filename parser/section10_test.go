package parser_test

import (
	"slices"
	"testing"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/parser"
)

func mustBuild(t *testing.T, src string) (*lang.Program, *ir.Program) {
	t.Helper()
	p, diags := parser.Parse("s10.parley", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if d := lang.Check(p).Errors(); len(d) > 0 {
		t.Fatal(d)
	}
	b, err := ir.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, b
}

// sendPairs lists (source, target) pairs of the first statement, a SEND.
func sendPairs(t *testing.T, b *ir.Program, n int64) [][2]int64 {
	g, err := b.Configure(ir.Config{NumTasks: n})
	if err != nil {
		t.Fatal(err)
	}
	f := ir.NewFrame(g, b, 0)
	s := b.Body[0].Stmts[0].(*ir.Send)
	var out [][2]int64
	s.Source.Each(f, -1, func(src int64) bool {
		s.Target.Each(f, src, func(dst int64) bool {
			out = append(out, [2]int64{src, dst})
			return true
		})
		return true
	})
	return out
}

// LANGUAGE.md section 10, first item: ALL TASKS t SEND A 1 KILOBYTE MESSAGE
// TO TASK t+1 - the last task sends nothing and task 0 receives nothing;
// every receive is implied (blocking, posted before the sends).
func TestSection10Pipeline(t *testing.T) {
	p, b := mustBuild(t, "ALL TASKS t SEND A 1 KILOBYTE MESSAGE TO TASK t+1.")
	send := p.Body[0].Stmts[0].(*lang.Send)
	if send.Unsuspecting || send.Blocking != 0 {
		t.Errorf("pipeline send is not a blocking send with implied receives: %+v", send)
	}
	if lang.FormatTasks(send.Source) != "ALL TASKS t" || lang.FormatTasks(send.Target) != "TASK t + 1" {
		t.Errorf("descriptors %q -> %q", lang.FormatTasks(send.Source), lang.FormatTasks(send.Target))
	}
	got := sendPairs(t, b, 4)
	if want := [][2]int64{{0, 1}, {1, 2}, {2, 3}}; !slices.Equal(got, want) {
		t.Errorf("pairs %v, want %v", got, want)
	}
	irSend := b.Body[0].Stmts[0].(*ir.Send)
	if irSend.Async || irSend.RecvAsync || irSend.Recv == nil {
		t.Errorf("receives must be implied and blocking")
	}
	g, _ := b.Configure(ir.Config{NumTasks: 4})
	if n := irSend.Msg.Size.Bytes(ir.NewFrame(g, b, 0)); n != 1024 {
		t.Errorf("message size %d, want 1024", n)
	}
}

// Second item: the ring with MOD closes the cycle (every task sends and
// receives), blocking or asynchronous.
func TestSection10Ring(t *testing.T) {
	for _, src := range []string{
		"ALL TASKS t SEND A 1 KILOBYTE MESSAGE TO TASK (t+1) MOD num_tasks.",
		"ALL TASKS t ASYNCHRONOUSLY SEND A 1 KILOBYTE MESSAGE TO TASK (t+1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION.",
	} {
		_, b := mustBuild(t, src)
		got := sendPairs(t, b, 4)
		if want := [][2]int64{{0, 1}, {1, 2}, {2, 3}, {3, 0}}; !slices.Equal(got, want) {
			t.Errorf("%s: pairs %v, want %v", src, got, want)
		}
	}
	_, b := mustBuild(t, "ALL TASKS t ASYNCHRONOUSLY SEND A 1 KILOBYTE MESSAGE TO TASK (t+1) MOD num_tasks THEN ALL TASKS AWAIT COMPLETION.")
	if s := b.Body[0].Stmts[0].(*ir.Send); !s.Async || !s.RecvAsync {
		t.Errorf("asynchronous send must imply asynchronous receives")
	}
	if _, ok := b.Body[0].Stmts[1].(*ir.Await); !ok {
		t.Errorf("AWAIT COMPLETION missing")
	}
}

// Third item: a program may end with a message never received or an
// asynchronous operation never awaited; it is still a valid program (the
// interpreter reports it at run time).
func TestSection10Unmatched(t *testing.T) {
	mustBuild(t, "TASK 0 SENDS A MESSAGE TO UNSUSPECTING TASK 1.")
	mustBuild(t, "TASK 0 ASYNCHRONOUSLY SENDS A MESSAGE TO TASK 1.")
}

// The example: a receive whose receivers use a variable bound by
// its senders.
func TestVariablesAcrossSides(t *testing.T) {
	p, _ := mustBuild(t, "TASK (n+1) MOD num_tasks RECEIVES A 4 KILOBYTE MESSAGE FROM TASK n SUCH THAT n < 4.")
	r := p.Body[0].Stmts[0].(*lang.Receive)
	if _, ok := r.Source.(*lang.TasksSuchThat); !ok {
		t.Errorf("source is %T, want TASKS n SUCH THAT", r.Source)
	}
}
