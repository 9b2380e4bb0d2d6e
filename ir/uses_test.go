package ir_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/parley-hpc/parley/ir"
)

// TestInspect: every expression of a statement's parts is visited once,
// outer expressions before their operands, through conditions, ranges,
// task sets and message sizes alike; Uses reads its answer off the same
// walk.
func TestInspect(t *testing.T) {
	p := build(t, `n IS "n" AND COMES FROM "--n" OR "-n" WITH DEFAULT 2.
LET k BE 3 WHILE
  FOR EACH i IN {1, ..., k}
    TASKS s SUCH THAT s > i SEND A (i + ABS(n - k)) BYTE MESSAGE TO TASK (s + k) MOD num_tasks.
TASK 0 OUTPUTS RANDOM_UNIFORM(1, n).`)
	loop := p.Body[0].Stmts[0].(*ir.Let).Body.(*ir.ForEach)
	send := loop.Body.(*ir.Send)
	var kinds []string
	ir.Inspect(func(e ir.Expr) { kinds = append(kinds, fmt.Sprintf("%T", e)) }, loop.Ranges[0], send.Source, send.Msg, send.Target)
	want := []string{
		"*ir.Const", "*ir.Var", // {1, ..., k}
		"*ir.Var", "*ir.Var", // s > i
		"*ir.Const", "*ir.Const", // the message's count (A) and tag (none)
		"*ir.Binary", "*ir.Var", "*ir.Call", "*ir.Binary", "*ir.Param", "*ir.Var", // i + ABS(n - k)
		"*ir.Binary", "*ir.Binary", "*ir.Var", "*ir.Var", "*ir.NumTasks", // (s + k) MOD num_tasks
	}
	if !slices.Equal(kinds, want) {
		t.Errorf("visited %v\nwant    %v", kinds, want)
	}
	k := p.Body[0].Stmts[0].(*ir.Let).Bindings[0].Slot
	if slots, dynamic := ir.Uses(send.Msg, nil); !slices.Equal(slots, []int{k, loop.Slot}) || dynamic {
		t.Errorf("Uses(message) = %v, %v; want [%d %d] (k, i), false", slots, dynamic, k, loop.Slot)
	}
	out := p.Body[1].Stmts[0].(*ir.Output)
	if slots, dynamic := ir.Uses(out.Items[0].X); len(slots) != 0 || !dynamic {
		t.Errorf("Uses(RANDOM_UNIFORM(1, n)) = %v, %v; want no slots, true", slots, dynamic)
	}
}
