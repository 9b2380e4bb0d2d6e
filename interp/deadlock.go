package interp

import (
	"fmt"
	"slices"
	"strings"
)

type waitKind uint8

const (
	waitNone  waitKind = iota
	waitRecv           // a blocking receive from peer
	waitSend           // a blocking rendezvous send to peer
	waitAwait          // AWAIT COMPLETION
	waitColl           // a collective step with peer
)

// noWait is the wait of a task that is not blocked.
var noWait = waitInfo{stmt: noStmt}

// waitInfo is what a blocked task is waiting for.
type waitInfo struct {
	kind waitKind
	peer int32 // processor
	stmt stmtRef
}

// finishChecks runs when no event is left. Tasks that have not finished are
// deadlocked; finished tasks may have left messages unreceived or
// asynchronous operations unawaited.
func (s *Sim) finishChecks() {
	var stuck []int32
	for i := range s.tasks {
		if s.tasks[i].status != done {
			stuck = append(stuck, int32(i))
		}
	}
	if len(stuck) > 0 {
		s.deadlock(stuck)
		return
	}
	for i := range s.tasks {
		p := s.tasks[i].pt
		if p == nil {
			continue
		}
		if p.unexpected.len() > 0 {
			bySrc := map[int32]int{}
			var first *message
			p.unexpected.each(func(id int32) {
				m := s.msgs.at(id)
				bySrc[m.src]++
				if first == nil {
					first = m
				}
			})
			srcs := make([]string, 0, len(bySrc))
			for src, n := range bySrc {
				srcs = append(srcs, fmt.Sprintf("%d from task %d", n, src))
			}
			slices.Sort(srcs)
			pr := Problem{Kind: "unreceived", Task: int64(i),
				Msg: fmt.Sprintf("task %d never received %d message(s): %s", i, p.unexpected.len(), strings.Join(srcs, ", "))}
			pr.Span = s.span(first.stmt)
			s.problem(pr)
		}
		if p.unawaited > 0 {
			s.problem(Problem{Kind: "unawaited", Task: int64(i), Span: s.span(p.unawaitedAt),
				Msg: fmt.Sprintf("task %d finished with %d asynchronous operation(s) that no AWAIT COMPLETION followed", i, p.unawaited)})
		}
	}
}

// deadlock reports the tasks that can never finish, and a cycle of tasks
// waiting for each other if there is one.
func (s *Sim) deadlock(stuck []int32) {
	s.deadlocked = true
	// Rendezvous requests still waiting for a receive, by sender.
	unmatched := map[int32][]int32{}
	for id := range s.msgs.n {
		if m := s.msgs.at(id); m.live && m.rendezvous && m.recv == 0 {
			unmatched[m.src] = append(unmatched[m.src], m.dst)
		}
	}
	waitsFor := func(t *task) []int32 {
		switch t.waitOn.kind {
		case waitRecv, waitSend, waitColl:
			return []int32{t.waitOn.peer}
		case waitAwait:
			var out []int32
			if t.pt != nil {
				t.pt.posted.each(func(r int32) { out = append(out, s.reqs.at(r).src) })
			}
			return append(out, unmatched[t.id]...)
		}
		return nil
	}
	// Follow the first wait of each task from the lowest stuck task until a
	// task repeats: that is a cycle, if the walk stays among stuck tasks.
	cycle := findCycle(stuck, func(v int32) []int32 { return waitsFor(&s.tasks[v]) }, func(v int32) bool { return s.tasks[v].status != done })
	var b strings.Builder
	if len(cycle) > 0 {
		parts := make([]string, 0, len(cycle)+1)
		for _, v := range cycle {
			parts = append(parts, fmt.Sprint(v))
		}
		parts = append(parts, fmt.Sprint(cycle[0]))
		const show = 12
		if len(parts) > show {
			parts = append(parts[:show/2], append([]string{"..."}, parts[len(parts)-show/2:]...)...)
		}
		fmt.Fprintf(&b, "deadlock: %s (each task waits for the next)", strings.Join(parts, " -> "))
	} else {
		fmt.Fprintf(&b, "deadlock: %d task(s) wait for tasks that have finished", len(stuck))
	}
	shown := cycle
	if len(shown) == 0 {
		shown = stuck
	}
	p := Problem{Kind: "deadlock", Task: -1}
	for i, v := range shown {
		if i == 6 {
			fmt.Fprintf(&b, "\n\t... and %d more", len(shown)-i)
			break
		}
		t := &s.tasks[v]
		fmt.Fprintf(&b, "\n\t%s", s.describeWait(t))
		if !p.Span.Start.IsValid() {
			p.Span = s.span(t.waitOn.stmt)
		}
	}
	if len(shown) < len(stuck) {
		fmt.Fprintf(&b, "\n\t%d task(s) in all cannot finish", len(stuck))
	}
	p.Msg = b.String()
	s.problem(p)
}

func (s *Sim) describeWait(t *task) string {
	where := ""
	if sp := s.span(t.waitOn.stmt); sp.Start.IsValid() {
		where = fmt.Sprintf(" at %s", sp.Start)
	}
	peer := t.waitOn.peer
	state := ""
	if peer >= 0 && int(peer) < len(s.tasks) && s.tasks[peer].status == done {
		state = ", which has finished"
	}
	switch t.waitOn.kind {
	case waitRecv:
		return fmt.Sprintf("task %d waits to receive from task %d%s%s", t.id, peer, state, where)
	case waitSend:
		return fmt.Sprintf("task %d waits for task %d to receive its message%s%s", t.id, peer, state, where)
	case waitColl:
		return fmt.Sprintf("task %d waits for task %d in a collective%s%s", t.id, peer, state, where)
	case waitAwait:
		return fmt.Sprintf("task %d waits in AWAIT COMPLETION for %d operation(s)%s", t.id, t.asyncPending(), where)
	}
	return fmt.Sprintf("task %d is stuck", t.id)
}

// findCycle walks from each start along the first edge until it revisits
// a vertex; the revisited loop is a cycle. Vertices for which alive is
// false end a walk.
func findCycle(starts []int32, edges func(int32) []int32, alive func(int32) bool) []int32 {
	visited := map[int32]bool{}
	for _, start := range starts {
		if visited[start] {
			continue
		}
		pos := map[int32]int{}
		var path []int32
		v := start
		for {
			if i, ok := pos[v]; ok {
				return path[i:]
			}
			if visited[v] || !alive(v) {
				break
			}
			visited[v] = true
			pos[v] = len(path)
			path = append(path, v)
			next := edges(v)
			if len(next) == 0 {
				break
			}
			v = next[0]
		}
	}
	return nil
}
