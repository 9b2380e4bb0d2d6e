package ptrace

import "github.com/parley-hpc/parley/frontend/trace"

// cut shortens each rank of t, a trace that ends early, to the longest
// prefix of its calls in which every message sent is received, every
// receive has its message and every collective (and Finalize) is entered
// by all the members of its communicator, so that the ranks' calls can be
// run against each other. It returns the calls kept and the calls traced.
//
// The cut is found by counting: a rank that sent more messages to a peer
// than the peer's prefix receives from it is cut at the first send in
// excess, and the same for receives and for collective calls on each
// communicator, until nothing changes. Wildcard receives count against
// all the messages sent to their rank.
func cut(t *trace.Trace) (kept, total int) {
	n := t.NumRanks
	events := make([][]*trace.Event, n)
	keep := make([]int, n)
	for r := range n {
		for e := range t.Events(r) {
			events[r] = append(events[r], e)
		}
		keep[r] = len(events[r])
		total += keep[r]
	}
	for changed := true; changed; {
		changed = false
		lower := func(r, k int) {
			if k < keep[r] {
				keep[r], changed = k, true
			}
		}
		// Point to point: per ordered pair, sends against receives; per
		// rank, all sends to it against all its receives.
		type pair struct{ from, to int }
		sends := map[pair][]int{}   // positions of the sender's sends
		recvs := map[pair][]int{}   // positions of the receiver's receives, specific sources
		sendsTo := make([]int, n)   // messages sent to each rank
		recvAll := make([][]int, n) // every receive's position
		for r := range n {
			for i, e := range events[r][:keep[r]] {
				switch {
				case e.Op.IsSend():
					sends[pair{r, e.Peer}] = append(sends[pair{r, e.Peer}], i)
					sendsTo[e.Peer]++
				case e.Op.IsRecv():
					if e.Peer != trace.AnySource {
						recvs[pair{e.Peer, r}] = append(recvs[pair{e.Peer, r}], i)
					}
					recvAll[r] = append(recvAll[r], i)
				}
			}
		}
		for p, s := range sends {
			rv := recvs[p]
			if len(s) > len(rv) && len(recvAll[p.to]) == len(rv) {
				lower(p.from, s[len(rv)])
			}
			if len(rv) > len(s) {
				lower(p.to, rv[len(s)])
			}
		}
		for p, rv := range recvs {
			if _, ok := sends[p]; !ok && len(rv) > 0 {
				lower(p.to, rv[0])
			}
		}
		for r := range n {
			if len(recvAll[r]) > sendsTo[r] {
				lower(r, recvAll[r][sendsTo[r]])
			}
		}
		// Collectives: the k-th on a communicator needs every member's k-th.
		colls := map[int][][]int{} // comm -> rank -> positions
		for r := range n {
			for i, e := range events[r][:keep[r]] {
				if e.Op.IsCollective() || e.Op == trace.Finalize {
					if colls[e.Comm] == nil {
						colls[e.Comm] = make([][]int, n)
					}
					colls[e.Comm][r] = append(colls[e.Comm][r], i)
				}
			}
		}
		for c, per := range colls {
			members := t.Comms[c]
			if c == 0 {
				members = nil
				for r := range n {
					members = append(members, r)
				}
			}
			least := -1
			for _, m := range members {
				if least < 0 || len(per[m]) < least {
					least = len(per[m])
				}
			}
			for _, m := range members {
				if len(per[m]) > least {
					lower(m, per[m][least])
				}
			}
		}
	}
	for r := range n {
		c := trace.NewCompressor()
		for _, e := range events[r][:keep[r]] {
			c.Add(*e)
		}
		t.Ranks[r].Body = c.Finish()
		kept += keep[r]
	}
	return kept, total
}
