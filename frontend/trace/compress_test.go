package trace

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// compressTestEvent draws an event from a small pool of values, so that
// streams repeat, with every field that takes part in interning varied.
func compressTestEvent(r *rand.Rand, numRanks int) Event {
	switch r.IntN(6) {
	case 0:
		return Event{Op: Compute, Amount: float64(r.IntN(3)) * 1.5}
	case 1:
		return Event{Op: Isend, Peer: r.IntN(numRanks), Tag: r.IntN(2), Count: 1 + int64(r.IntN(2)), TypeSize: 8}
	case 2:
		return Event{Op: Irecv, Peer: []int{AnySource, 0}[r.IntN(2)], Tag: AnyTag, Count: 1, TypeSize: 8}
	case 3:
		// Fresh slices each time: interning must compare their contents.
		return Event{Op: Wait, Waits: []int{1, 2}[:1+r.IntN(2)]}
	case 4:
		return Event{Op: Allgatherv, Comm: r.IntN(2), TypeSize: 4, Counts: []int64{3, int64(r.IntN(2))}}
	default:
		return Event{Op: Bcast, Root: r.IntN(numRanks), Count: 16, TypeSize: 1}
	}
}

// compressTestStream returns a rank's events: random, or the expansion
// of a random loop program over random events so that loops nest.
func compressTestStream(r *rand.Rand, numRanks int) []Event {
	pool := make([]Event, 1+r.IntN(8))
	for i := range pool {
		pool[i] = compressTestEvent(r, numRanks)
	}
	var syms []int32
	if r.IntN(2) == 0 {
		for range r.IntN(300) {
			syms = append(syms, int32(r.IntN(len(pool))))
		}
	} else {
		prog := symRandomProgram(r, 3, len(pool))
		if prog.Len() > 5000 {
			prog = prog[:1]
		}
		for s := range prog.All() {
			syms = append(syms, s)
		}
	}
	out := make([]Event, len(syms))
	for i, s := range syms {
		e := pool[s]
		// Copy the slices, so equal values never share backing arrays.
		e.Waits = append([]int(nil), e.Waits...)
		e.Counts = append([]int64(nil), e.Counts...)
		out[i] = e
	}
	return out
}

func TestCompressorRoundTrip(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 3))
		numRanks := 1 + r.IntN(4)
		streams := make([][]Event, numRanks)
		for rank := range streams {
			streams[rank] = compressTestStream(r, numRanks)
		}
		// Feed the ranks interleaved, the way flat readers may, with
		// every event at its own position.
		b := NewBuilder("test", numRanks, Microseconds)
		next := make([]int, numRanks)
		line := 0
		for left := true; left; {
			left = false
			for rank := range numRanks {
				for range r.IntN(4) {
					if next[rank] < len(streams[rank]) {
						line++
						streams[rank][next[rank]].Pos = Pos{File: "t", Line: line}
						b.Add(rank, streams[rank][next[rank]])
						next[rank]++
					}
				}
				left = left || next[rank] < len(streams[rank])
			}
		}
		tr := b.Trace()
		for rank, want := range streams {
			var got []Event
			for e := range tr.Events(rank) {
				got = append(got, *e)
			}
			// cmp.Diff is slow on thousands of events: only for the report.
			if !compressTestEqual(want, got) {
				diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Event{}, "Pos"), cmpopts.EquateEmpty())
				t.Fatalf("seed %d rank %d: events differ (-want +got):\n%s", seed, rank, diff)
			}
			// Each site keeps the position of the first occurrence of
			// its value.
			first := map[string]Pos{}
			for i, e := range want {
				k := string(appendEventKey(nil, &e))
				if _, ok := first[k]; !ok {
					first[k] = e.Pos
				}
				if got[i].Pos != first[k] {
					t.Fatalf("seed %d rank %d event %d: Pos %v, want the first occurrence's %v", seed, rank, i, got[i].Pos, first[k])
				}
			}
		}
	}
}

func TestCompressorLoop(t *testing.T) {
	body := []Event{
		{Op: Compute, Amount: 12.5},
		{Op: Isend, Peer: 1, Tag: 0, Count: 1024, TypeSize: 8},
		{Op: Irecv, Peer: 1, Tag: 0, Count: 1024, TypeSize: 8},
		{Op: Wait, Waits: []int{1, 2}},
		{Op: Allreduce, Count: 1, TypeSize: 8},
	}
	c := NewCompressor()
	for i := range 10000 {
		for j, e := range body {
			e.Pos = Pos{Line: 5*i + j + 1}
			e.Waits = append([]int(nil), e.Waits...)
			c.Add(e)
		}
	}
	nodes := c.Finish()
	if len(nodes) != 1 || nodes[0].Loop == nil {
		t.Fatalf("got %d top-level nodes, want one loop: %s", len(nodes), compressTestString(nodes))
	}
	l := nodes[0].Loop
	if l.Count != 10000 || len(l.Body) != len(body) {
		t.Fatalf("got %s, want a loop of 10000 over the 5 events", compressTestString(nodes))
	}
	for j, n := range l.Body {
		if n.Site == nil || len(n.Site.Events) != 1 {
			t.Fatalf("body node %d is not a single-event site", j)
		}
		e := n.Site.Events[0]
		if e.Pos.Line != j+1 {
			t.Errorf("body node %d has Pos %v, want line %d", j, e.Pos, j+1)
		}
		e.Pos = Pos{}
		if diff := cmp.Diff(body[j], e); diff != "" {
			t.Errorf("body node %d (-want +got):\n%s", j, diff)
		}
	}
}

// TestCompressorSites checks that equal values share one site, values
// differing in any one field do not, and slices compare by content.
func TestCompressorSites(t *testing.T) {
	base := Event{Op: Alltoallv, Peer: 1, Tag: 2, Count: 3, TypeSize: 4, Counts: []int64{1, 2}, Root: 5, Comm: 6, Waits: []int{7}, Amount: 8, Pos: Pos{Line: 1}}
	variants := []func(*Event){
		func(e *Event) { e.Op = Allgatherv },
		func(e *Event) { e.Peer = 9 },
		func(e *Event) { e.Tag = 9 },
		func(e *Event) { e.Count = 9 },
		func(e *Event) { e.TypeSize = 9 },
		func(e *Event) { e.Counts = []int64{1, 2, 0} },
		func(e *Event) { e.Counts = []int64{12} },
		func(e *Event) { e.Root = 9 },
		func(e *Event) { e.Comm = 9 },
		func(e *Event) { e.Waits = nil },
		func(e *Event) { e.Waits = []int{7, 0} },
		func(e *Event) { e.Amount = 8.000001 },
	}
	c := NewCompressor()
	c.Add(base)
	for i, v := range variants {
		e := base
		e.Counts = append([]int64(nil), base.Counts...)
		e.Waits = append([]int(nil), base.Waits...)
		e.Pos = Pos{Line: i + 2}
		c.Add(e) // equal to base, fresh slices
		v(&e)
		c.Add(e)
	}
	// base base v1 base v2 ... may fold base base into a loop, so count
	// each site's executions rather than its nodes.
	sites := map[*Site]int{}
	var walk func([]Node, int)
	walk = func(nodes []Node, times int) {
		for _, n := range nodes {
			if n.Site != nil {
				sites[n.Site] += times
			} else {
				walk(n.Loop.Body, times*int(n.Loop.Count))
			}
		}
	}
	walk(c.Finish(), 1)
	if want := 1 + len(variants); len(sites) != want {
		t.Errorf("got %d distinct sites, want %d", len(sites), want)
	}
	baseUses := 0
	for s, n := range sites {
		if cmp.Equal(base, s.Events[0], cmpopts.IgnoreFields(Event{}, "Pos")) {
			baseUses = n
			if s.Events[0].Pos != base.Pos {
				t.Errorf("base site has Pos %v, want the first occurrence's %v", s.Events[0].Pos, base.Pos)
			}
		}
	}
	if want := 1 + len(variants); baseUses != want {
		t.Errorf("the base value's site is used %d times, want %d", baseUses, want)
	}
}

func TestCompressorEmpty(t *testing.T) {
	if nodes := NewCompressor().Finish(); len(nodes) != 0 {
		t.Errorf("empty compressor gave %d nodes", len(nodes))
	}
}

// compressTestEqual compares two event lists field by field, Pos aside,
// independently of the key the compressor interns by.
func compressTestEqual(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !slices.Equal(x.Counts, y.Counts) || !slices.Equal(x.Waits, y.Waits) {
			return false
		}
		x.Pos, x.Counts, x.Waits = Pos{}, nil, nil
		y.Pos, y.Counts, y.Waits = Pos{}, nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

func compressTestString(nodes []Node) string {
	s := ""
	for i, n := range nodes {
		if i > 0 {
			s += " "
		}
		if n.Site != nil {
			s += n.Site.Events[0].String()
		} else {
			s += fmt.Sprintf("(%s)^%d", compressTestString(n.Loop.Body), n.Loop.Count)
		}
	}
	return s
}

// BenchmarkCompressor compresses an LU-like stream of 64Ki events per op:
// ((isend irecv)^62 wait allreduce)^k, interning included.
func BenchmarkCompressor(b *testing.B) {
	const n = 1 << 16
	var events []Event
	for len(events) < n {
		for range 62 {
			events = append(events,
				Event{Op: Isend, Peer: 1, Count: 5, TypeSize: 8},
				Event{Op: Irecv, Peer: 1, Count: 5, TypeSize: 8})
		}
		events = append(events, Event{Op: Wait, Waits: []int{1, 2}}, Event{Op: Allreduce, Count: 1, TypeSize: 8})
	}
	events = events[:n]
	b.ReportAllocs()
	for b.Loop() {
		c := NewCompressor()
		for _, e := range events {
			c.Add(e)
		}
		_ = c.Finish()
	}
	b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "events/s")
}
