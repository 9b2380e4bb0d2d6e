package trace

import (
	"fmt"
	"slices"
	"testing"
)

// fuzzTrace decodes data into a small SPMD trace: every rank runs the same
// calls to its neighbours in a loop, some with a wildcard source on rank
// 0, some sites with values that take turns, a loop nested in it.
func fuzzTrace(data []byte) *Trace {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	n := 2 + next()%3
	outer, inner := int64(1+next()%12), int64(1+next()%4)
	ops := 1 + next()%7
	kinds := make([]int, ops)
	for i := range kinds {
		kinds[i] = next()
	}
	tr := &Trace{Format: "fuzz", NumRanks: n, Ranks: make([]Rank, n), Comms: [][]int{nil}}
	for r := range n {
		var body []Node
		for i, k := range kinds {
			peer := (r + 1 + k/16%2*(n-2)) % n // right or left neighbour
			from := (r + n - 1 - k/16%2*(n-2)) % n
			size := int64(1 + k/32%2)
			var es []Event
			switch k % 8 {
			case 0:
				es = []Event{{Op: Send, Peer: peer, Count: size, TypeSize: 8}, {Op: Send, Peer: peer, Count: 3, TypeSize: 8}}
			case 1:
				es = []Event{{Op: Isend, Peer: peer, Count: size, TypeSize: 8}}
			case 2:
				es = []Event{{Op: Recv, Peer: from, Count: size, TypeSize: 8}, {Op: Recv, Peer: from, Count: 3, TypeSize: 8}}
			case 3:
				if r == 0 && k/64%2 == 1 {
					from = AnySource
				}
				es = []Event{{Op: Irecv, Peer: from, Tag: AnyTag, Count: size, TypeSize: 8}}
			case 4:
				es = []Event{{Op: Wait, Waits: []int{1 + k/16%3}}}
			case 5:
				es = []Event{{Op: Allreduce, Count: 1, TypeSize: 8}}
			case 6:
				es = []Event{{Op: Compute, Amount: float64(k)}}
			default:
				es = []Event{{Op: Wait, Waits: []int{1, 2}}}
			}
			for j := range es {
				es[j].Pos = Pos{File: "fuzz", Line: i + 1}
			}
			body = append(body, Node{Site: &Site{Events: es}})
		}
		split := len(body) / 2
		loop := append([]Node{{Loop: &Loop{Count: inner, Body: body[:split]}}}, body[split:]...)
		tr.Ranks[r].Body = []Node{{Loop: &Loop{Count: outer, Body: loop}}, {Site: &Site{Events: []Event{{Op: Finalize}}}}}
	}
	return tr
}

// matchTo runs one traversal of tr, skipping or not, and writes down
// every rank's events, repeats expanded.
func matchTo(tr *Trace, skip bool) ([][]string, *Matched, error) {
	got := make([][]string, tr.NumRanks)
	s := &replaySink{logs: make([][]*Event, tr.NumRanks), emit: func(r int, e *Event) {
		got[r] = append(got[r], fmt.Sprintf("%s @%s", e, e.Pos))
	}}
	m := newMatcher(tr, s)
	m.eager, m.sameSize, m.skip = DefaultEager, true, skip
	res, err := m.run()
	return got, res, err
}

// FuzzSkipping: on any trace, skipping the iterations that repeat gives
// the outcome of matching every call: the same error, or the same events
// for every rank and the same counts.
func FuzzSkipping(f *testing.F) {
	// Three traces whose iterations are skipped, and one that deadlocks.
	f.Add([]byte{0x23, 0x17, 0x72, 0xcb, 0x5, 0xbf, 0x8c, 0xae, 0x2, 0x23})
	f.Add([]byte{0x50, 0x9a, 0x76, 0x4d, 0x1d, 0x1f, 0x92, 0xf6, 0x3a, 0x37})
	f.Add([]byte{0xa, 0xd6, 0xd3, 0xbf, 0x7e, 0x4d, 0xe, 0x0, 0x64, 0xc6})
	f.Add([]byte{0, 5, 1, 6, 3, 17, 1, 7, 5, 6})
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := fuzzTrace(data)
		fast, fres, ferr := matchTo(tr, true)
		slow, sres, serr := matchTo(tr, false)
		if (ferr == nil) != (serr == nil) || ferr != nil && ferr.Error() != serr.Error() {
			t.Fatalf("skipping: %v; matching every call: %v", ferr, serr)
		}
		if serr != nil {
			return
		}
		for r := range tr.NumRanks {
			if !slices.Equal(fast[r], slow[r]) {
				t.Fatalf("rank %d: skipping gives\n%v\nmatching every call\n%v", r, fast[r], slow[r])
			}
		}
		if fres.Wildcards != sres.Wildcards || !slices.Equal(fres.Unwaited, sres.Unwaited) {
			t.Fatalf("skipping: %d wildcards, unwaited %v; matching every call: %d, %v", fres.Wildcards, fres.Unwaited, sres.Wildcards, sres.Unwaited)
		}
	})
}
