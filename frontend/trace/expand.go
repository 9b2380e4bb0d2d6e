package trace

import "iter"

// Events returns rank's events in the order the rank issued them, with
// every loop expanded and every site's cycle applied. The events yielded
// are shared with the trace: callers must not modify them.
func (t *Trace) Events(rank int) iter.Seq[*Event] {
	return func(yield func(*Event) bool) {
		runs := map[*Site]int64{}
		expand(t.Ranks[rank].Body, runs, yield)
	}
}

// expand yields body's events; it returns false once yield has.
func expand(body []Node, runs map[*Site]int64, yield func(*Event) bool) bool {
	for _, n := range body {
		switch {
		case n.Site != nil:
			k := runs[n.Site]
			runs[n.Site] = k + 1
			if !yield(&n.Site.Events[k%int64(len(n.Site.Events))]) {
				return false
			}
		case n.Loop != nil:
			for i := int64(0); i < n.Loop.Count; i++ {
				if !expand(n.Loop.Body, runs, yield) {
					return false
				}
			}
		}
	}
	return true
}
