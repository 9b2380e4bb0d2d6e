package lower

import "github.com/parley-hpc/parley/frontend/trace"

// markIdleWaits sets each AWAIT COMPLETION statement's idle ranks: those
// that take no part in it and have no request outstanding there, on any
// pass through the enclosing loops. Such a rank may join the statement,
// where it waits for nothing, when that makes the statement's task set
// simpler: ALL TASKS AWAIT COMPLETION rather than the ranks that posted.
func (l *lowerer) markIdleWaits(body []stmt) {
	pending := make([]bool, l.t.NumRanks)
	l.idleWalk(body, pending, map[*stmt]bool{})
}

// idleWalk runs body from the outstanding state pending, updated in
// place; seen marks the waits visited before, whose idle ranks a later
// pass may only narrow.
func (l *lowerer) idleWalk(body []stmt, pending []bool, seen map[*stmt]bool) {
	for i := range body {
		st := &body[i]
		var inner []stmt
		switch {
		case st.loop != nil:
			inner = st.loop.body
		case st.each != nil:
			inner = st.each.body
		}
		if inner != nil {
			// Later passes start from what earlier ones left pending too;
			// the flags only grow, so this settles.
			for {
				before := append([]bool(nil), pending...)
				l.idleWalk(inner, pending, seen)
				grew := false
				for r := range pending {
					if pending[r] && !before[r] {
						grew = true
					}
					pending[r] = pending[r] || before[r]
				}
				if !grew {
					break
				}
			}
			continue
		}
		switch op := l.table[st.calls[0].it.sym].op; {
		case op.IsAsync():
			for _, c := range st.calls {
				pending[c.rank] = true
			}
		case op == trace.Wait:
			in := make([]bool, len(pending))
			for _, c := range st.calls {
				in[c.rank] = true
			}
			wasIdle := make([]bool, len(pending))
			for _, r := range st.idle {
				wasIdle[r] = true
			}
			var idle []int
			for r, p := range pending {
				if !in[r] && !p && (!seen[st] || wasIdle[r]) {
					idle = append(idle, r)
				}
			}
			st.idle, seen[st] = idle, true
			for _, c := range st.calls {
				pending[c.rank] = false
			}
		}
	}
}

// waiters renders the task set of a wait by rs whose idle ranks may join
// it or not, whichever reads simpler.
func (l *lowerer) waiters(rs, idle []int) string {
	n := l.t.NumRanks
	plain, _ := l.tasks(rs, false)
	switch {
	case len(rs)+len(idle) == n:
		return "ALL TASKS"
	case len(idle) == 0 || len(rs) == 1:
		return plain
	}
	free := make([]bool, n)
	for _, r := range rs {
		free[r] = true
	}
	for _, r := range idle {
		free[r] = true
	}
	var busy []int // ranks with requests that are not theirs to complete here
	for r := range n {
		if !free[r] {
			busy = append(busy, r)
		}
	}
	if rel := l.rel.relationFor(rs, busy); relationCost(rel) < relationCost(l.rel.set(rs)) {
		return "TASKS t SUCH THAT " + rel
	}
	return plain
}
