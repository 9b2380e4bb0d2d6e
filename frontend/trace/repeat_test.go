package trace_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	. "github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/frontend/trace/scalatrace"
)

// recorder is a Sink that writes down every rank's events, repeats
// expanded, and counts what it was given.
type recorder struct {
	got     [][]string
	block   []int // per rank, where the events since the last Mark start
	events  int   // Event calls: the events matched one by one
	repeats int
	skipped int64 // events taken through Repeat
}

func (r *recorder) Event(rank int, e *Event) error {
	r.events++
	r.got[rank] = append(r.got[rank], fmt.Sprintf("%s @%s", e, e.Pos))
	return nil
}

func (r *recorder) Mark() {
	for i := range r.block {
		r.block[i] = len(r.got[i])
	}
}

func (r *recorder) Repeat(k int64) error {
	r.repeats++
	for i, from := range r.block {
		block := r.got[i][from:]
		r.skipped += k * int64(len(block))
		for range k {
			r.got[i] = append(r.got[i], block...)
		}
	}
	return nil
}

// matchWith runs one traversal of tr, skipping repeated iterations or
// not.
func matchWith(t *testing.T, tr *Trace, skip bool) (*recorder, *Matched) {
	t.Helper()
	rec := &recorder{got: make([][]string, tr.NumRanks), block: make([]int, tr.NumRanks)}
	res, err := MatchOnce(tr, rec, skip)
	if err != nil {
		t.Fatal(err)
	}
	return rec, res
}

// site makes a call site of one or more events.
func site(es ...Event) Node {
	for i := range es {
		es[i].Pos = Pos{File: "hand.trace", Line: 1 + i}
	}
	return Node{Site: &Site{Events: es}}
}

func loop(n int64, body ...Node) Node { return Node{Loop: &Loop{Count: n, Body: body}} }

// pipelineTrace: rank r receives from r-1 and sends to r+1, n times over
// (a wavefront whose ranks are iterations apart, messages in flight
// between them), message sizes taking turns; every rank also posts a nonblocking receive
// from its left and a send to its right and waits for the previous
// iteration's pair; rank 0 takes a message from each other rank per
// iteration with wildcard receives; an allreduce ends every iteration on
// odd ranks' loops nested one level deeper.
func pipelineTrace(ranks int, n int64) *Trace {
	tr := &Trace{Format: "test", NumRanks: ranks, Ranks: make([]Rank, ranks), Comms: [][]int{nil}}
	for r := range ranks {
		left, right := (r+ranks-1)%ranks, (r+1)%ranks
		// One site each for the receives and the sends, run twice an
		// iteration, whose sizes take turns.
		recv := site(Event{Op: Recv, Peer: r - 1, Count: 4, TypeSize: 8}, Event{Op: Recv, Peer: r - 1, Count: 2, TypeSize: 8})
		send := site(Event{Op: Send, Peer: r + 1, Count: 4, TypeSize: 8}, Event{Op: Send, Peer: r + 1, Count: 2, TypeSize: 8})
		var body []Node
		for range 2 {
			if r > 0 {
				body = append(body, recv)
			}
			body = append(body, site(Event{Op: Compute, Amount: 10}))
			if r < ranks-1 {
				body = append(body, send)
			}
		}
		body = append(body,
			site(Event{Op: Irecv, Peer: left, Count: 1, TypeSize: 8}),
			site(Event{Op: Isend, Peer: right, Count: 1, TypeSize: 8}),
			site(Event{Op: Wait, Waits: []int{3, 4}}))
		if r == 0 {
			body = append(body, loop(int64(ranks-1), site(Event{Op: Recv, Peer: AnySource, Tag: AnyTag, Count: 3, TypeSize: 8})))
		} else {
			body = append(body, site(Event{Op: Send, Peer: 0, Tag: r, Count: 3, TypeSize: 8}))
		}
		body = append(body, site(Event{Op: Allreduce, Count: 1, TypeSize: 8}))
		main := loop(n, body...)
		if r%2 == 1 {
			main = loop(1, main)
		}
		tr.Ranks[r].Body = []Node{
			site(Event{Op: Irecv, Peer: left, Count: 1, TypeSize: 8}),
			site(Event{Op: Isend, Peer: right, Count: 1, TypeSize: 8}),
			main,
			site(Event{Op: Wait, Waits: []int{1, 2}}),
			site(Event{Op: Finalize}),
		}
	}
	return tr
}

// TestSkippingMatchesEveryCallAlike: skipping the iterations that repeat
// gives every rank the same events, wildcard senders included, and the
// same counts as matching every call, on a pipeline with messages and
// requests in flight across iteration boundaries, on the shared LU and
// CG traces; and it does skip.
func TestSkippingMatchesEveryCallAlike(t *testing.T) {
	traces := map[string]*Trace{"pipeline": pipelineTrace(6, 40)}
	shared := []string{"lu-A-16-td", "cg-A-16-ti"}
	if testing.Short() {
		shared = nil // matching LU call by call takes half a minute
	}
	for _, name := range shared {
		tr, err := scalatrace.Read(filepath.Join("scalatrace", "testdata", "nas", name+".trace"))
		if err != nil {
			t.Fatal(err)
		}
		traces[name] = tr
	}
	for name, tr := range traces {
		t.Run(name, func(t *testing.T) {
			fast, fres := matchWith(t, tr, true)
			slow, sres := matchWith(t, tr, false)
			if fast.repeats == 0 || slow.repeats != 0 {
				t.Fatalf("%d repeats skipping, %d not; want some and none", fast.repeats, slow.repeats)
			}
			for r := range tr.NumRanks {
				if !slices.Equal(fast.got[r], slow.got[r]) {
					i := 0
					for i < len(fast.got[r]) && i < len(slow.got[r]) && fast.got[r][i] == slow.got[r][i] {
						i++
					}
					t.Fatalf("rank %d: %d events skipping, %d not; first difference at %d", r, len(fast.got[r]), len(slow.got[r]), i)
				}
			}
			// Match hands the skipped iterations to emit one by one.
			emitted := make([][]string, tr.NumRanks)
			if _, err := Match(tr, func(r int, e *Event) {
				emitted[r] = append(emitted[r], fmt.Sprintf("%s @%s", e, e.Pos))
			}); err != nil {
				t.Fatal(err)
			}
			for r := range tr.NumRanks {
				if !slices.Equal(emitted[r], slow.got[r]) {
					t.Fatalf("rank %d: Match emitted %d events; matching every call gives %d", r, len(emitted[r]), len(slow.got[r]))
				}
			}
			if fres.Wildcards != sres.Wildcards || !slices.Equal(fres.Unwaited, sres.Unwaited) {
				t.Errorf("skipping: %d wildcards, unwaited %v; not: %d, %v", fres.Wildcards, fres.Unwaited, sres.Wildcards, sres.Unwaited)
			}
			t.Logf("%d events matched one by one, %d taken through %d repeats", fast.events, fast.skipped, fast.repeats)
		})
	}
}

// TestSkippingWorkDoesNotGrowWithIterations: a hundred times the
// iterations, the same events matched one by one.
func TestSkippingWorkDoesNotGrowWithIterations(t *testing.T) {
	few, _ := matchWith(t, pipelineTrace(6, 40), true)
	many, _ := matchWith(t, pipelineTrace(6, 4000), true)
	if few.events != many.events {
		t.Errorf("%d events matched one by one for 40 iterations, %d for 4000; want the same", few.events, many.events)
	}
	if want := 100 * int64(len(few.got[0])); int64(len(many.got[0])) < want-int64(len(few.got[0])) {
		t.Errorf("rank 0 got %d events for 4000 iterations, %d for 40", len(many.got[0]), len(few.got[0]))
	}
}
