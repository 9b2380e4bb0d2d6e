package interp

import (
	"slices"

	"github.com/parley-hpc/parley/ir"
)

// mapping is a task-to-processor assignment made by ARE ASSIGNED TO.
// Processors are what the simulation runs; task numbers are what the
// program names. Every task applies each assignment statement itself, so
// each holds the mapping it has reached; they agree once all have applied
// the same statements.
type mapping struct {
	v2p []int32 // task -> processor
	p2v []int32 // processor -> task
}

// ProcessorOf implements ir.ProcMap.
func (m *mapping) ProcessorOf(task int64) int64 { return int64(m.v2p[task]) }

// TaskOf implements ir.ProcMap.
func (m *mapping) TaskOf(proc int64) int64 { return int64(m.p2v[proc]) }

// assign applies `tasks ARE ASSIGNED TO PROCESSOR p` for every member, in
// ascending order, swapping with the task that held the processor so that
// the mapping stays one-to-one (the coNCePTuaL manual's rule).
func (s *Sim) assign(t *task, a *ir.Assign) {
	n := s.g.NumTasks
	m := &mapping{}
	if old := t.more().mapv; old != nil {
		m.v2p, m.p2v = slices.Clone(old.v2p), slices.Clone(old.p2v)
	} else {
		m.v2p, m.p2v = make([]int32, n), make([]int32, n)
		for i := range m.v2p {
			m.v2p[i], m.p2v[i] = int32(i), int32(i)
		}
	}
	f := s.scratch(t)
	a.Tasks.Each(f, -1, func(v int64) bool {
		var p int64
		if a.Processor == nil {
			// A random processor, drawn from the stream all tasks share.
			p = int64(t.frame().SyncRand().Uint64() % uint64(n))
		} else {
			p = a.Processor.Int(f)
		}
		if p < 0 || p >= n {
			return true
		}
		w := m.p2v[p]
		old := m.v2p[v]
		m.v2p[v], m.p2v[p] = int32(p), int32(v)
		m.v2p[w], m.p2v[old] = old, w
		return true
	})
	// The frame filled for t saw the old mapping; the next is filled
	// with the new.
	s.releaseFrame()
	t.rare.mapv = m
}
