package trace

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// build makes a trace from per-rank event lists.
func build(n int, ranks map[int][]Event) *Trace {
	b := NewBuilder("test", n, Microseconds)
	for r := range n {
		for i, e := range ranks[r] {
			e.Pos = Pos{File: "hand.trace", Line: 10*r + i + 1}
			b.Add(r, e)
		}
	}
	return b.Trace()
}

// TestMatchResolvesWildcards: two wildcard receives on rank 0 get the
// ranks whose messages they matched (seed 000, Algorithm 2), and their
// tags; so does a receive from a known rank with any tag.
func TestMatchResolvesWildcards(t *testing.T) {
	tr := build(3, map[int][]Event{
		0: {{Op: Irecv, Peer: AnySource, Tag: AnyTag, Count: 1, TypeSize: 8},
			{Op: Irecv, Peer: AnySource, Tag: AnyTag, Count: 1, TypeSize: 8},
			{Op: Irecv, Peer: 2, Tag: AnyTag, Count: 1, TypeSize: 8},
			{Op: Wait, Waits: []int{3, 2, 1}}, {Op: Finalize}},
		1: {{Op: Send, Peer: 0, Tag: 101, Count: 1, TypeSize: 8}, {Op: Finalize}},
		2: {{Op: Send, Peer: 0, Tag: 102, Count: 1, TypeSize: 8}, {Op: Send, Peer: 0, Tag: 7, Count: 1, TypeSize: 8}, {Op: Finalize}},
	})
	var got [][2]int
	res, err := Match(tr, func(r int, e *Event) {
		if r == 0 && e.Op == Irecv {
			got = append(got, [2]int{e.Peer, e.Tag})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][2]int{{1, 101}, {2, 102}, {2, 7}}; !slices.Equal(got, want) || res.Wildcards != 2 {
		t.Errorf("receives resolved to (peer, tag) %v (%d wildcards); want %v and 2", got, res.Wildcards, want)
	}
}

// TestMatchReportsPotentialDeadlock is seed 000's Figure 5: rank 1's
// wildcard receive can take rank 0's message, after which its receive
// from rank 0 waits for ever. The report names the cycle and positions.
func TestMatchReportsPotentialDeadlock(t *testing.T) {
	tr := build(3, map[int][]Event{
		0: {{Op: Send, Peer: 1, Count: 1, TypeSize: 4}, {Op: Finalize}},
		1: {{Op: Recv, Peer: AnySource, Tag: AnyTag, Count: 1, TypeSize: 4},
			{Op: Recv, Peer: 0, Tag: AnyTag, Count: 1, TypeSize: 4}, {Op: Finalize}},
		2: {{Op: Send, Peer: 1, Count: 1, TypeSize: 4}, {Op: Finalize}},
	})
	_, err := Match(tr, func(int, *Event) {})
	var d *DeadlockError
	if !errors.As(err, &d) {
		t.Fatalf("Match = %v; want a *DeadlockError", err)
	}
	cycle := slices.Clone(d.Cycle)
	slices.Sort(cycle)
	if !slices.Equal(cycle, []int{0, 1}) {
		t.Errorf("cycle %v; want ranks 0 and 1\n%v", d.Cycle, err)
	}
	for _, want := range []string{"rank 1 is blocked in recv from 0", "hand.trace:12", "rank 0 is blocked in finalize", "hand.trace:2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("report lacks %q:\n%v", want, err)
		}
	}
}

// TestMatchRefusesMisalignedCollectives: rank 0's first collective is a
// barrier, rank 1's a broadcast.
func TestMatchRefusesMisalignedCollectives(t *testing.T) {
	tr := build(2, map[int][]Event{
		0: {{Op: Barrier}, {Op: Finalize}},
		1: {{Op: Bcast, Root: 0, Count: 1, TypeSize: 4}, {Op: Finalize}},
	})
	if _, err := Match(tr, func(int, *Event) {}); err == nil || !strings.Contains(err.Error(), "do not line up") {
		t.Errorf("Match = %v; want collectives that do not line up", err)
	}
}

// TestMatchUnreceived: a send nobody receives is reported.
func TestMatchUnreceived(t *testing.T) {
	tr := build(2, map[int][]Event{
		0: {{Op: Isend, Peer: 1, Count: 1, TypeSize: 4}, {Op: Wait, Waits: []int{1}}, {Op: Finalize}},
		1: {{Op: Finalize}},
	})
	_, err := Match(tr, func(int, *Event) {})
	if err == nil {
		t.Fatal("Match accepted a send that is never received")
	}
}

// TestMatchKeepsStencilPhases: ranks on a 4 x 4 mesh exchange with their
// neighbours twice through wildcard receives, as NAS LU's exchange_3 does
// once its tags are lost: along rows, receive from the west while sending
// east, then from the east while sending west; then along columns. Ranks
// on the edges have less to do and run ahead into the second exchange;
// their messages must not take receives posted for another neighbour.
func TestMatchKeepsStencilPhases(t *testing.T) {
	const w, big = 4, 1 << 10 // 8 KiB messages: rendezvous, above the eager limit
	n := w * w
	ranks := map[int][]Event{}
	want := map[int][]int{}
	recv := Event{Op: Irecv, Peer: AnySource, Tag: AnyTag, Count: big, TypeSize: 8}
	for r := range n {
		var evs []Event
		for range 2 {
			for _, step := range []int{1, w} {
				lo := r-step >= 0 && (step == w || r%w > 0)
				hi := r+step < n && (step == w || r%w < w-1)
				if lo {
					evs = append(evs, recv)
					want[r] = append(want[r], r-step)
				}
				if hi {
					evs = append(evs, Event{Op: Send, Peer: r + step, Count: big, TypeSize: 8})
				}
				if lo {
					evs = append(evs, Event{Op: Wait, Waits: []int{1}})
				}
				if hi {
					evs = append(evs, recv)
					want[r] = append(want[r], r+step)
				}
				if lo {
					evs = append(evs, Event{Op: Send, Peer: r - step, Count: big, TypeSize: 8})
				}
				if hi {
					evs = append(evs, Event{Op: Wait, Waits: []int{1}})
				}
			}
		}
		ranks[r] = append(evs, Event{Op: Finalize})
	}
	got := map[int][]int{}
	if _, err := Match(build(n, ranks), func(r int, e *Event) {
		if e.Op == Irecv {
			got[r] = append(got[r], e.Peer)
		}
	}); err != nil {
		t.Fatal(err)
	}
	for r := range n {
		if !slices.Equal(got[r], want[r]) {
			t.Errorf("rank %d's wildcard receives matched %v; want %v", r, got[r], want[r])
		}
	}
}

// BenchmarkMatchWildcards matches a master-worker trace: 255 workers each
// send 16 messages to rank 0, which takes them with wildcard receives. A
// wildcard receive waits until no rank can move, so each costs a round
// over every rank; this keeps that in sight.
func BenchmarkMatchWildcards(b *testing.B) {
	const workers, msgs = 255, 16
	ranks := map[int][]Event{}
	for range workers * msgs {
		ranks[0] = append(ranks[0], Event{Op: Recv, Peer: AnySource, Tag: AnyTag, Count: 1, TypeSize: 8})
	}
	ranks[0] = append(ranks[0], Event{Op: Finalize})
	for w := 1; w <= workers; w++ {
		for range msgs {
			ranks[w] = append(ranks[w], Event{Op: Send, Peer: 0, Count: 1, TypeSize: 8})
		}
		ranks[w] = append(ranks[w], Event{Op: Finalize})
	}
	tr := build(workers+1, ranks)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Match(tr, func(int, *Event) {}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMatchHoldsNoGoroutinePerRank: the traversal walks each rank's calls
// with a cursor of its own, not a coroutine (iter.Pull), whose stack cost
// a trace of a million ranks gigabytes even when few of them did anything.
func TestMatchHoldsNoGoroutinePerRank(t *testing.T) {
	const n = 4096
	tr := build(n, map[int][]Event{
		0:     {{Op: Send, Peer: n - 1, Count: 1, TypeSize: 8}},
		n - 1: {{Op: Recv, Peer: 0, Count: 1, TypeSize: 8}},
	})
	most := 0
	if _, err := Match(tr, func(int, *Event) { most = max(most, runtime.NumGoroutine()) }); err != nil {
		t.Fatal(err)
	}
	if most > 100 {
		t.Errorf("%d goroutines while matching %d ranks", most, n)
	}
}
