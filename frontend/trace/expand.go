package trace

import "iter"

// Events returns rank's events in the order the rank issued them, with
// every loop expanded and every site's cycle applied. The events yielded
// are shared with the trace: callers must not modify them.
func (t *Trace) Events(rank int) iter.Seq[*Event] {
	return func(yield func(*Event) bool) {
		c := t.cursor(rank)
		for e := c.next(); e != nil; e = c.next() {
			if !yield(e) {
				return
			}
		}
	}
}

// eventCursor walks one rank's events, as Events yields them, keeping its
// place in an explicit stack of loops. The matcher holds one per rank:
// iter.Pull's coroutine per rank cost a trace of a million ranks gigabytes
// of goroutine stacks, for ranks that mostly do nothing.
type eventCursor struct {
	stack []cursorFrame
	runs  map[*Site]int64 // executions so far of each site with several events
	wraps int64           // iterations begun by top-level loops after their first
}

// cursorFrame is a place in a body: the top level of the rank's calls, or
// a loop with left iterations to go after the current one.
type cursorFrame struct {
	body []Node
	i    int
	left int64
}

// cursor starts a walk over rank's events; a rank without any costs no
// more than the cursor itself.
func (t *Trace) cursor(rank int) eventCursor {
	if len(t.Ranks[rank].Body) == 0 {
		return eventCursor{}
	}
	return eventCursor{stack: []cursorFrame{{body: t.Ranks[rank].Body}}}
}

// next returns the next event, or nil after the last.
func (c *eventCursor) next() *Event {
	for len(c.stack) > 0 {
		f := &c.stack[len(c.stack)-1]
		if f.i == len(f.body) {
			if f.left > 0 {
				f.left--
				f.i = 0
				if len(c.stack) == 2 {
					c.wraps++
				}
			} else {
				c.stack = c.stack[:len(c.stack)-1]
			}
			continue
		}
		n := f.body[f.i]
		f.i++
		switch {
		case n.Site != nil && len(n.Site.Events) == 1:
			return &n.Site.Events[0]
		case n.Site != nil:
			if c.runs == nil {
				c.runs = map[*Site]int64{}
			}
			k := c.runs[n.Site]
			c.runs[n.Site] = k + 1
			return &n.Site.Events[k%int64(len(n.Site.Events))]
		case n.Loop != nil && n.Loop.Count > 0:
			c.stack = append(c.stack, cursorFrame{body: n.Loop.Body, left: n.Loop.Count - 1})
		}
	}
	return nil
}
