package netmodel

import (
	"errors"
	"testing"
)

// twoFastThenSlow has two fast nodes followed by as many slow ones as a
// run needs.
func twoFastThenSlow(tasksPerNode int, mapping Mapping) *Machine {
	return &Machine{
		TasksPerNode: tasksPerNode,
		Mapping:      mapping,
		Nodes: []NodeGroup{
			{Name: "fast", Count: 2, FlopRate: 4e12, MemBandwidth: 400e9, Speed: 2},
			{Name: "slow", Count: 0, FlopRate: 1e12, MemBandwidth: 100e9, Speed: 0.5},
		},
		IntSize:  4,
		PageSize: 4096,
	}
}

func TestNodeOf(t *testing.T) {
	// 10 tasks, 4 per node, occupy 3 nodes.
	block := twoFastThenSlow(4, Block)
	cyclic := twoFastThenSlow(4, Cyclic)
	wantBlock := []int64{0, 0, 0, 0, 1, 1, 1, 1, 2, 2}
	wantCyclic := []int64{0, 1, 2, 0, 1, 2, 0, 1, 2, 0}
	for task := range int64(10) {
		if got := block.NodeOf(task, 10); got != wantBlock[task] {
			t.Errorf("block: NodeOf(%d, 10) = %d, want %d", task, got, wantBlock[task])
		}
		if got := cyclic.NodeOf(task, 10); got != wantCyclic[task] {
			t.Errorf("cyclic: NodeOf(%d, 10) = %d, want %d", task, got, wantCyclic[task])
		}
	}
	for _, c := range []struct{ tasks, want int64 }{{1, 1}, {4, 1}, {5, 2}, {8, 2}, {10, 3}} {
		if got := block.NodeCount(c.tasks); got != c.want {
			t.Errorf("NodeCount(%d) = %d, want %d", c.tasks, got, c.want)
		}
	}
	if !block.SameNode(0, 3, 10) || block.SameNode(3, 4, 10) {
		t.Error("block: tasks 0 and 3 share node 0; 3 and 4 do not")
	}
	if !cyclic.SameNode(0, 3, 10) || cyclic.SameNode(0, 1, 10) {
		t.Error("cyclic: tasks 0 and 3 share node 0; 0 and 1 do not")
	}
}

func TestGroupOf(t *testing.T) {
	m := twoFastThenSlow(1, Block)
	for node, want := range map[int64]string{0: "fast", 1: "fast", 2: "slow", 3: "slow", 1000: "slow"} {
		if got := m.GroupOf(node).Name; got != want {
			t.Errorf("GroupOf(%d) = %s, want %s", node, got, want)
		}
	}
	// With fixed counts only, the last group repeats.
	fixed := &Machine{Nodes: []NodeGroup{{Name: "a", Count: 1}, {Name: "b", Count: 2}}}
	for node, want := range map[int64]string{0: "a", 1: "b", 2: "b", 3: "b", 50: "b"} {
		if got := fixed.GroupOf(node).Name; got != want {
			t.Errorf("fixed: GroupOf(%d) = %s, want %s", node, got, want)
		}
	}
}

func TestComputeFor(t *testing.T) {
	m := twoFastThenSlow(2, Block) // tasks 0-3 on fast nodes, 4 and up on slow ones
	for _, c := range []struct {
		task int64
		d    Duration
		want Duration
	}{
		{0, Millisecond, 500 * Microsecond},
		{3, 3, 2}, // 1.5 ps rounds up
		{4, Millisecond, 2 * Millisecond},
		{7, 0, 0},
	} {
		if got := m.ComputeFor(c.task, 8, c.d); got != c.want {
			t.Errorf("ComputeFor(%d, 8, %v) = %v, want %v", c.task, c.d, got, c.want)
		}
	}
}

func TestWork(t *testing.T) {
	// 2 tasks per node on 2 TF/s, 200 GB/s nodes: each task has 1 TF/s and
	// 100 GB/s.
	m := &Machine{TasksPerNode: 2, Nodes: []NodeGroup{{Count: 0, FlopRate: 2e12, MemBandwidth: 200e9, Speed: 1}}}
	for _, c := range []struct {
		flops, bytes int64
		want         Duration
	}{
		{1e9, 0, Millisecond},
		{0, 1e9, 10 * Millisecond},
		{1e9, 1e8, Millisecond},       // compute-bound: memory takes exactly as long
		{1e9, 2e8, 2 * Millisecond},   // memory-bound
		{1e10, 1e8, 10 * Millisecond}, // compute-bound
		{1, 0, 1},
		{0, 0, 0},
		{-5, -5, 0},
	} {
		if got := m.Work(0, 4, c.flops, c.bytes); got != c.want {
			t.Errorf("Work(%d flops, %d bytes) = %v, want %v", c.flops, c.bytes, got, c.want)
		}
	}
	if got, want := m.Touch(1, 4, 1e9), 10*Millisecond; got != want {
		t.Errorf("Touch(1e9 bytes) = %v, want %v", got, want)
	}
}

func TestWorkHeterogeneous(t *testing.T) {
	// Cyclic, 2 tasks per node, 8 tasks: 4 nodes, tasks t and t+4 on node t.
	// Nodes 0 and 1 are fast (4 TF/s, 400 GB/s), 2 and 3 slow (1 TF/s,
	// 100 GB/s); speed does not affect Work.
	m := twoFastThenSlow(2, Cyclic)
	for task, want := range []Duration{
		500 * Microsecond, 500 * Microsecond, 2 * Millisecond, 2 * Millisecond,
		500 * Microsecond, 500 * Microsecond, 2 * Millisecond, 2 * Millisecond,
	} {
		if got := m.Work(int64(task), 8, 1e9, 0); got != want {
			t.Errorf("task %d: Work(1e9 flops) = %v, want %v", task, got, want)
		}
	}
	if got, want := m.Touch(2, 8, 1e9), 20*Millisecond; got != want {
		t.Errorf("task 2: Touch(1e9 bytes) = %v, want %v", got, want)
	}
}

func TestMachineValidate(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(*Machine)
		field string
	}{
		{"valid", func(*Machine) {}, ""},
		{"no tasks", func(m *Machine) { m.TasksPerNode = 0 }, "machine.tasks_per_node"},
		{"bad mapping", func(m *Machine) { m.Mapping = 7 }, "machine.mapping"},
		{"no int size", func(m *Machine) { m.IntSize = 0 }, "machine.int_size"},
		{"no page size", func(m *Machine) { m.PageSize = 0 }, "machine.page_size"},
		{"no nodes", func(m *Machine) { m.Nodes = nil }, "machine.nodes"},
		{"negative count", func(m *Machine) { m.Nodes[1].Count = -1 }, "machine.nodes[1].count"},
		{"count 0 not last", func(m *Machine) { m.Nodes[0].Count = 0 }, "machine.nodes[0].count"},
		{"no flops", func(m *Machine) { m.Nodes[0].FlopRate = 0 }, "machine.nodes[0].flops"},
		{"no bandwidth", func(m *Machine) { m.Nodes[1].MemBandwidth = -1 }, "machine.nodes[1].memory_bandwidth"},
		{"no speed", func(m *Machine) { m.Nodes[1].Speed = 0 }, "machine.nodes[1].speed"},
	} {
		m := twoFastThenSlow(2, Block)
		c.edit(m)
		err := m.Validate()
		var perr *PlatformError
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: unexpected error: %v", c.name, err)
		case c.field != "" && !errors.As(err, &perr):
			t.Errorf("%s: got %v, want a *PlatformError", c.name, err)
		case c.field != "" && perr.Field != c.field:
			t.Errorf("%s: error %q names field %q, want %q", c.name, err, perr.Field, c.field)
		}
	}
}

func TestLinkTo(t *testing.T) {
	intra := LogGP{Latency: 100 * Nanosecond}
	p := &Platform{Network: LogGP{Latency: Microsecond}, Intra: &intra, Machine: *twoFastThenSlow(2, Block)}
	if got := p.LinkTo(0, 1, 4); got != &intra {
		t.Errorf("LinkTo(0, 1) = %+v, want Intra", got)
	}
	if got := p.LinkTo(1, 2, 4); got != &p.Network {
		t.Errorf("LinkTo(1, 2) = %+v, want Network", got)
	}
	p.Intra = nil
	if got := p.LinkTo(0, 1, 4); got != &p.Network {
		t.Errorf("without Intra, LinkTo(0, 1) = %+v, want Network", got)
	}
}

func TestMappingString(t *testing.T) {
	for m, want := range map[Mapping]string{Block: "block", Cyclic: "cyclic", 5: "Mapping(5)"} {
		if got := m.String(); got != want {
			t.Errorf("Mapping(%d).String() = %q, want %q", int(m), got, want)
		}
	}
}
