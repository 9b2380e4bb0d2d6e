package netmodel

import (
	"math"
	"testing"
)

// TestMaxBytes: the per-byte costs of a message of MaxBytes stay within
// MaxTime, and one byte more goes past it.
func TestMaxBytes(t *testing.T) {
	for _, l := range []LogGP{
		{ByteGap: 80000},
		{ByteGap: 1, ByteOverhead: 80000},
		{ByteGap: 1},
		{ByteGap: 125},
		{ByteGap: 126},
		{ByteGap: math.MaxInt64},
		{},
	} {
		n := l.MaxBytes()
		cpu, wire := l.DataCosts(n)
		if cpu > MaxTime || wire > MaxTime {
			t.Errorf("%+v: a message of MaxBytes = %d costs %v and %v, past %v", l, n, cpu, wire, MaxTime)
		}
		if n == math.MaxInt64 {
			continue
		}
		cpu, wire = l.DataCosts(n + 1000)
		if cpu <= MaxTime && wire <= MaxTime {
			t.Errorf("%+v: MaxBytes = %d, but %d bytes cost only %v and %v", l, n, n+1000, cpu, wire)
		}
	}
}

// TestNodeCountHugeTasksPerNode: (numTasks + tasks_per_node - 1) wrapped
// around for huge tasks_per_node, giving a negative node count.
func TestNodeCountHugeTasksPerNode(t *testing.T) {
	m := &Machine{TasksPerNode: math.MaxInt64, Mapping: Cyclic, Nodes: []NodeGroup{{FlopRate: 1, MemBandwidth: 1, Speed: 1}}}
	if got := m.NodeCount(10); got != 1 {
		t.Errorf("NodeCount(10) = %d, want 1", got)
	}
	if got := m.NodeOf(7, 10); got != 0 {
		t.Errorf("NodeOf(7, 10) = %d, want 0", got)
	}
	m.TasksPerNode = 4
	for n, want := range map[int64]int64{0: 0, 1: 1, 4: 1, 5: 2, math.MaxInt64: math.MaxInt64/4 + 1} {
		if got := m.NodeCount(n); got != want {
			t.Errorf("NodeCount(%d) with 4 per node = %d, want %d", n, got, want)
		}
	}
}

// TestTimesLarge: per-byte costs past 2^63 femtoseconds (about 2.6 hours)
// used to saturate to MaxInt64 picoseconds (106 days).
func TestTimesLarge(t *testing.T) {
	for _, c := range []struct {
		p    PerByte
		n    int64
		want Duration
	}{
		{80000, 1e15, 8e16},
		{80000, math.MaxInt64, math.MaxInt64}, // 7.4e20 ps: saturates
		{1000, math.MaxInt64, math.MaxInt64},
		{999, math.MaxInt64, 9214148664817921031}, // (2^63-1)*999/1000, rounded
		{1500, 1 << 62, 6917529027641081856},
		{3, 1, 0},
		{500, 1, 1},
	} {
		if got := c.p.Times(c.n); got != c.want {
			t.Errorf("PerByte(%d).Times(%d) = %d, want %d", c.p, c.n, got, c.want)
		}
	}
}
