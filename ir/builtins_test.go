package ir_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/ir"
)

// The worked examples of the coNCePTuaL manual, section "Built-in
// functions", each with the number of tasks it assumes.
func TestManualTopologyExamples(t *testing.T) {
	tests := []struct {
		expr     string
		numTasks int64
		want     int64
	}{
		// k-nomial trees, 8 tasks, k = 2.
		{"KNOMIAL_PARENT(0)", 8, -1},
		{"KNOMIAL_PARENT(1)", 8, 0},
		{"KNOMIAL_CHILDREN(1)", 8, 2},
		{"KNOMIAL_CHILD(1, 0)", 8, 3},
		{"KNOMIAL_CHILD(1, 1)", 8, 5},
		{"KNOMIAL_CHILDREN(7)", 8, 0},
		{"KNOMIAL_CHILD(7, 0)", 8, -1},
		{"KNOMIAL_CHILDREN(0)", 8, 3},
		{"KNOMIAL_CHILD(0, 0)", 8, 1},
		{"KNOMIAL_CHILD(0, 1)", 8, 2},
		{"KNOMIAL_CHILD(0, 2)", 8, 4},
		// 27 tasks, k = 3.
		{"KNOMIAL_PARENT(0, 3)", 27, -1},
		{"KNOMIAL_PARENT(2, 3)", 27, 0},
		{"KNOMIAL_CHILDREN(2, 3)", 27, 4},
		{"KNOMIAL_CHILD(2, 0, 3)", 27, 5},
		{"KNOMIAL_CHILD(2, 1, 3)", 27, 8},
		{"KNOMIAL_CHILD(2, 2, 3)", 27, 11},
		{"KNOMIAL_CHILD(2, 3, 3)", 27, 20},
		{"KNOMIAL_CHILD(2, 4, 3)", 27, -1},
		{"KNOMIAL_CHILDREN(8, 3)", 27, 2},
		{"KNOMIAL_CHILDREN(8, 3, 26)", 27, 1},
		{"KNOMIAL_CHILDREN(8, 3, 10)", 27, 0},
		// 1-D mesh of 4.
		{"MESH_NEIGHBOR((4), 0, (-1))", 4, -1},
		{"MESH_NEIGHBOR((4), 0, (+1))", 4, 1},
		{"MESH_NEIGHBOR((4), 1, (-1))", 4, 0},
		{"MESH_NEIGHBOR((4), 1, (+1))", 4, 2},
		{"MESH_NEIGHBOR((4), 2, (-1))", 4, 1},
		{"MESH_NEIGHBOR((4), 2, (+1))", 4, 3},
		{"MESH_NEIGHBOR((4), 3, (-1))", 4, 2},
		{"MESH_NEIGHBOR((4), 3, (+1))", 4, -1},
		{"MESH_COORDINATE((4), -1, 0)", 4, -1},
		{"MESH_COORDINATE((4), 0, 0)", 4, 0},
		{"MESH_COORDINATE((4), 1, 0)", 4, 1},
		{"MESH_COORDINATE((4), 2, 0)", 4, 2},
		{"MESH_COORDINATE((4), 3, 0)", 4, 3},
		{"MESH_COORDINATE((4), 4, 0)", 4, -1},
		{"MESH_COORDINATE((4), 2, 1)", 4, 0},
		{"MESH_COORDINATE((4), 2, 2)", 4, 0},
		{"MESH_DISTANCE((4), -1, 0)", 4, -1},
		{"MESH_DISTANCE((4), 1, 2)", 4, 1},
		{"MESH_DISTANCE((4), 0, 3)", 4, 3},
		// 1-D torus.
		{"MESH_NEIGHBOR((4*), 0, (-1))", 4, 3},
		{"MESH_NEIGHBOR((4*), 3, (+1))", 4, 0},
		{"MESH_DISTANCE((4*), -1, 0)", 4, -1},
		{"MESH_DISTANCE((4*), 1, 2)", 4, 1},
		{"MESH_DISTANCE((4*), 0, 3)", 4, 1},
		// 2-D 4x3 mesh.
		{"MESH_NEIGHBOR((4, 3), 5, (-1, -1))", 12, 0},
		{"MESH_NEIGHBOR((4, 3), 5, ( 0, -1))", 12, 1},
		{"MESH_NEIGHBOR((4, 3), 5, (+1, -1))", 12, 2},
		{"MESH_NEIGHBOR((4, 3), 5, (-1,  0))", 12, 4},
		{"MESH_NEIGHBOR((4, 3), 5, ( 0,  0))", 12, 5},
		{"MESH_NEIGHBOR((4, 3), 5, (+1,  0))", 12, 6},
		{"MESH_NEIGHBOR((4, 3), 5, (-1, +1))", 12, 8},
		{"MESH_NEIGHBOR((4, 3), 5, ( 0, +1))", 12, 9},
		{"MESH_NEIGHBOR((4, 3), 5, (+1, +1))", 12, 10},
		{"MESH_COORDINATE((4, 3), 1, 0)", 12, 1},
		{"MESH_COORDINATE((4, 3), 6, 0)", 12, 2},
		{"MESH_COORDINATE((4, 3), 6, 1)", 12, 1},
		{"MESH_COORDINATE((4, 3), 6, 2)", 12, 0},
		{"MESH_COORDINATE((4, 3), 8, 0)", 12, 0},
		{"MESH_COORDINATE((4, 3), 8, 1)", 12, 2},
		{"MESH_COORDINATE((4, 3), 12, 0)", 12, -1},
		{"MESH_DISTANCE((4, 3), 1, 2)", 12, 1},
		{"MESH_DISTANCE((4, 3), 2, 6)", 12, 1},
		{"MESH_DISTANCE((4, 3), 0, 5)", 12, 2},
		{"MESH_DISTANCE((4, 3), 3, 9)", 12, 4},
		{"MESH_DISTANCE((4, 3), 11, 0)", 12, 5},
		// 2-D with wraparound.
		{"MESH_NEIGHBOR((4, 3), 5, (-2, 0))", 12, -1},
		{"MESH_NEIGHBOR((4, 3), 5, (-2, -2))", 12, -1},
		{"MESH_NEIGHBOR((4, 3*), 5, (-2, 0))", 12, -1},
		{"MESH_NEIGHBOR((4, 3*), 5, (-2, -2))", 12, -1},
		{"MESH_NEIGHBOR((4*, 3), 5, (-2, 0))", 12, 7},
		{"MESH_NEIGHBOR((4*, 3), 5, (-2, -2))", 12, -1},
		{"MESH_NEIGHBOR((4*, 3*), 5, (-2, 0))", 12, 7},
		{"MESH_NEIGHBOR((4*, 3*), 5, (-2, -2))", 12, 11},
		{"MESH_DISTANCE((4*, 3*), 1, 2)", 12, 1},
		{"MESH_DISTANCE((4*, 3*), 2, 6)", 12, 1},
		{"MESH_DISTANCE((4*, 3*), 0, 5)", 12, 2},
		{"MESH_DISTANCE((4*, 3*), 3, 9)", 12, 3},
		{"MESH_DISTANCE((4*, 3*), 11, 0)", 12, 2},
		// 3-D 4x3x2 mesh.
		{"MESH_NEIGHBOR((4, 3, 2), 0, (0, 0, +1))", 24, 12},
		{"MESH_NEIGHBOR((4, 3, 2), 0, (0, +1, 0))", 24, 4},
		{"MESH_NEIGHBOR((4, 3, 2), 0, (+1, 0, 0))", 24, 1},
		{"MESH_NEIGHBOR((4, 3, 2), 0, (+1, +1, +1))", 24, 17},
		{"MESH_NEIGHBOR((4, 3, 2), 17, (+2, -1, -1))", 24, 3},
		{"MESH_NEIGHBOR((4, 3, 2), 23, (+1, +1, +1))", 24, -1},
		{"MESH_NEIGHBOR((4, 3, 2), 7, (+100, -200, +300))", 24, -1},
		{"MESH_COORDINATE((4, 3, 2), -5, 0)", 24, -1},
		{"MESH_COORDINATE((4, 3, 2), 1, 0)", 24, 1},
		{"MESH_COORDINATE((4, 3, 2), 6, 0)", 24, 2},
		{"MESH_COORDINATE((4, 3, 2), 6, 1)", 24, 1},
		{"MESH_COORDINATE((4, 3, 2), 6, 2)", 24, 0},
		{"MESH_COORDINATE((4, 3, 2), 18, 0)", 24, 2},
		{"MESH_COORDINATE((4, 3, 2), 18, 1)", 24, 1},
		{"MESH_COORDINATE((4, 3, 2), 18, 2)", 24, 1},
		{"MESH_DISTANCE((4, 3, 2), 23, 24)", 24, -1},
		{"MESH_DISTANCE((4, 3, 2), 5, 17)", 24, 1},
		{"MESH_DISTANCE((4, 3, 2), 1, 16)", 24, 3},
		{"MESH_DISTANCE((4, 3, 2), 14, 8)", 24, 5},
		{"MESH_DISTANCE((4, 3, 2), 0, 23)", 24, 6},
		// 3-D torus.
		{"MESH_NEIGHBOR((4*, 3*, 2*), 23, (+1, +1, +1))", 24, 0},
		{"MESH_NEIGHBOR((4*, 3*, 2*), 7, (+100, -200, +300))", 24, 11},
		{"MESH_DISTANCE((4*, 3*, 2*), 23, 24)", 24, -1},
		{"MESH_DISTANCE((4*, 3*, 2*), 5, 17)", 24, 1},
		{"MESH_DISTANCE((4*, 3*, 2*), 1, 16)", 24, 3},
		{"MESH_DISTANCE((4*, 3*, 2*), 14, 8)", 24, 4},
		{"MESH_DISTANCE((4*, 3*, 2*), 0, 23)", 24, 3},
	}
	for _, tt := range tests {
		e, f := outputExpr(t, tt.expr, tt.numTasks)
		got, err := ir.EvalInt(e, f)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s = %d with %d tasks, want %d", tt.expr, got, tt.numTasks, tt.want)
		}
	}
}

// TestKnomialTreeIsATree checks, beyond the manual's examples, that
// parents and children agree for many sizes and fan-outs: every task but
// the root is exactly one child of its parent.
func TestKnomialTreeIsATree(t *testing.T) {
	for _, k := range []int64{2, 3, 4} {
		for n := int64(1); n <= 40; n++ {
			seen := make([]int, n)
			for task := range n {
				for c := range ir.KnomialChildren(sp, task, k, n) {
					child := ir.KnomialChild(sp, task, c, k, n)
					if p := ir.KnomialParent(sp, child, k, n); p != task {
						t.Fatalf("k=%d n=%d: child %d of %d has parent %d", k, n, child, task, p)
					}
					seen[child]++
				}
			}
			for task := int64(1); task < n; task++ {
				if seen[task] != 1 {
					t.Fatalf("k=%d n=%d: task %d is a child %d times", k, n, task, seen[task])
				}
			}
		}
	}
}

func TestFileData(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/example.dat"
	data := "Eir    231  58 490 703  19 644 967\n" +
		"Gunnr  901 875 141 372 374 618  77\n" +
		"Herja   17 979 363 930 977\n" +
		"Hrist  100 132 981 246  93 614\n" +
		"Svipul 688 536 965 746 209\n"
	if err := writeFile(path, data); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args string
		want int64
		err  string
	}{
		{"", 0, ""},
		{", 3", 58, ""},
		{", 3, 2", 875, ""},
		{", 3, -4", 875, ""},
		{", -3, -2", 246, ""},
		{", 3, -6", 0, "row -6 does not exist"},
		{", 0", 0, "column numbers start at 1"},
	}
	for _, tt := range tests {
		e, f := outputExpr(t, `STATIC_FILE_DATA("`+path+`"`+tt.args+`)`, 1)
		got, err := ir.EvalInt(e, f)
		if tt.err != "" {
			if err == nil || !contains(err.Error(), tt.err) {
				t.Errorf("FILE_DATA(%s): error %v, want %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("FILE_DATA(%s) = %d, %v; want %d", tt.args, got, err, tt.want)
		}
	}
}

// TestFileDataLongField: a 200,000-digit field took quadratic time (every
// prefix was tried as a number); it must read as the number it is, and a
// number beyond float64's range as an infinity, as strtod reads it.
func TestFileDataLongField(t *testing.T) {
	path := t.TempDir() + "/long.dat"
	ones := strings.Repeat("1", 199998)
	if err := writeFile(path, "3."+ones+" 3."+ones+"junk -"+strings.Repeat("9", 200000)+" 2\n"); err != nil {
		t.Fatal(err)
	}
	for col, want := range map[int]float64{1: 28.0 / 9, 2: 28.0 / 9, 3: math.Inf(-1), 4: 2} {
		e, f := outputExpr(t, fmt.Sprintf(`STATIC_FILE_DATA("%s", %d)`, path, col), 1)
		if got, err := ir.EvalFloat(e, f); err != nil || got != want {
			t.Errorf("column %d = %g, %v; want %g", col, got, err, want)
		}
	}
}

// TestFileDataWideRow reads every column of a 50,000-column row, which
// split the row once per column (quadratic time) before rows were cached.
func TestFileDataWideRow(t *testing.T) {
	path := t.TempDir() + "/wide.dat"
	const n = 50000
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d ", i)
	}
	if err := writeFile(path, "header\n"+b.String()+"\n"); err != nil {
		t.Fatal(err)
	}
	var c ir.FileCache
	sum := 0.0
	for col := int64(1); col <= n; col++ {
		v, err := c.Cell(path, col, -1, "", "")
		if err != nil {
			t.Fatal(err)
		}
		sum += v
	}
	if want := float64(n * (n - 1) / 2); sum != want {
		t.Errorf("the columns add up to %g, want %g", sum, want)
	}
}
