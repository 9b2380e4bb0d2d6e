package netmodel

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// flowPlatform is a flow platform on topo with the given factors.
func flowPlatform(topo Topology, params FlowParams) *Platform {
	if params.LatencyFactor == 0 {
		params.LatencyFactor, params.BandwidthFactor = 1, 1
	}
	return &Platform{Model: FlowModel, Topology: &topo, Flow: params,
		Machine: Machine{TasksPerNode: 1, IntSize: 4, PageSize: 4096, Nodes: []NodeGroup{{Name: "n", FlopRate: 1, MemBandwidth: 1, Speed: 1}}}}
}

type send struct {
	at       Duration
	src, dst int64
	bytes    int64
}

// runFlows sends the messages and returns when each one ends.
func runFlows(t *testing.T, p *Platform, sends []send) []Duration {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return runNet(NewFlowNet(p, 1), sends)
}

// runNet sends the messages on f and returns when each one ends; -1 for
// those that never do.
func runNet(f Network, sends []send) []Duration {
	ends := make([]Duration, len(sends))
	for i := range ends {
		ends[i] = -1
	}
	next := 0
	for {
		at, ok := f.Next()
		if next < len(sends) && (!ok || sends[next].at <= at) {
			s := sends[next]
			f.Send(s.at, s.src, s.dst, s.bytes, int32(next))
			next++
			continue
		}
		if !ok {
			break
		}
		f.Step(at, func(tok int32) { ends[tok] = at })
	}
	return ends
}

// near reports whether got is within 1 ps per 10^9 of want (the rounding
// of rates to whole picoseconds).
func near(got, want Duration) bool {
	return math.Abs(float64(got-want)) <= 2+float64(want)*1e-9
}

// starTopology has n nodes on one switch with 1 GB/s, 1 us links.
func starTopology(n int64) Topology {
	t := baseTopology(Star)
	t.Nodes, t.Latency, t.HostLatency = n, Microsecond, Microsecond
	return t
}

// TestFlowIncast: 8 flows into one node share its link equally and end
// together at 8 x bytes / bandwidth after the latency.
func TestFlowIncast(t *testing.T) {
	var sends []send
	for i := range int64(8) {
		sends = append(sends, send{0, i + 1, 0, 1 << 20})
	}
	want := 2*Microsecond + Duration(8<<20*1000) // 8 MiB at 1 GB/s is 8 x 2^20 ns
	for i, end := range runFlows(t, flowPlatform(starTopology(9), FlowParams{}), sends) {
		if !near(end, want) {
			t.Errorf("flow %d ends at %v, want %v", i, end, want)
		}
	}
}

// TestFlowMaxMin checks a max-min allocation that is not an equal split,
// on a ring of 4 routers whose node links are 100 times faster than the
// ring's. Flows a: 0->2 (links 0+, 1+), b: 1->2 (1+), c: 0->1 (0+), d:
// 3->1 (3+, 0+). Link 0+ carries a, c and d, so each gets C/3; b shares
// 1+ with a only and gets the rest, 2C/3. With equal sizes B, b ends at
// 1.5 B/C; a, c and d gain nothing from it (they stay bound by 0+) and end
// at 3 B/C.
func TestFlowMaxMin(t *testing.T) {
	topo := baseTopology(Torus)
	topo.Dims = []int{4}
	topo.HostBandwidth = 100e9
	const B = 1 << 20
	ends := runFlows(t, flowPlatform(topo, FlowParams{}), []send{{0, 0, 2, B}, {0, 1, 2, B}, {0, 0, 1, B}, {0, 3, 1, B}})
	unit := Duration(B * 1000) // B bytes at C = 1 GB/s, in ps
	for i, want := range []Duration{3 * unit, 3 * unit / 2, 3 * unit, 3 * unit} {
		if !near(ends[i], want) {
			t.Errorf("flow %c ends at %v, want %v", 'a'+i, ends[i], want)
		}
	}
}

// TestFlowJoin: a flow that joins halfway slows the first for the rest of
// its transfer. a (1 -> 0) starts at 0; b (2 -> 0) at B/(2C), when a has
// half its bytes left; both then go at C/2, so a ends B/C later, at
// 1.5 B/C, with b half done; b ends alone at 2 B/C.
func TestFlowJoin(t *testing.T) {
	const B = 1 << 20
	unit := Duration(B * 1000)
	lat := 2 * Microsecond
	ends := runFlows(t, flowPlatform(starTopology(3), FlowParams{}), []send{{0, 1, 0, B}, {unit / 2, 2, 0, B}})
	if !near(ends[0], lat+3*unit/2) || !near(ends[1], lat+2*unit) {
		t.Errorf("ends %v, want %v and %v", ends, lat+3*unit/2, lat+2*unit)
	}
}

// TestFlowSimGridFactors: LV08 multiplies the latency by 13.01 and the
// bandwidth by 0.97, and bounds a flow by its TCP window over twice its
// latency: with a 4 MiB window and 2 x 13.01 us of latency, 4 MiB /
// 52.04 us = 80.6 GB/s, above the link, so the factors alone count.
func TestFlowSimGridFactors(t *testing.T) {
	const B = 1 << 20
	ends := runFlows(t, flowPlatform(starTopology(2), SimGridFactors), []send{{0, 0, 1, B}})
	want := Duration(math.Round(2*13.01*float64(Microsecond))) + Duration(math.Ceil(B*1000/0.97))
	if !near(ends[0], want) {
		t.Errorf("ends at %v, want %v", ends[0], want)
	}
	// A window of 4 KiB bounds the same flow to 4096 B / 52.04 us.
	small := SimGridFactors
	small.TCPGamma = 4096
	ends = runFlows(t, flowPlatform(starTopology(2), small), []send{{0, 0, 1, B}})
	lat := 2 * 13.01 * float64(Microsecond)
	want = Duration(math.Round(lat)) + Duration(math.Ceil(B/(4096/(2*lat))))
	if math.Abs(float64(ends[0]-want)) > 1e-6*float64(want) {
		t.Errorf("window-bound flow ends at %v, want %v", ends[0], want)
	}
}

// TestFlowPrecision: flows due to end within the precision of an instant
// end then, together; without it each ends on its own.
func TestFlowPrecision(t *testing.T) {
	sends := []send{{0, 0, 1, 1000}, {5000, 2, 3, 1000}} // 1 us and 5 ns later
	exact := runFlows(t, flowPlatform(starTopology(4), FlowParams{}), sends)
	if exact[1]-exact[0] != 5000 {
		t.Fatalf("exact ends %v, want 5 ns apart", exact)
	}
	coarse := runFlows(t, flowPlatform(starTopology(4), FlowParams{LatencyFactor: 1, BandwidthFactor: 1, Precision: 10 * Nanosecond}), sends)
	if coarse[0] != exact[0] || coarse[1] != exact[0] {
		t.Errorf("with 10 ns precision the flows end at %v, want both at %v", coarse, exact[0])
	}
	// Starts are never brought forward.
	late := runFlows(t, flowPlatform(starTopology(4), FlowParams{LatencyFactor: 1, BandwidthFactor: 1, Precision: 10 * Nanosecond}),
		[]send{{0, 0, 1, 1000}, {exact[0] - 2*Microsecond + 5000, 2, 3, 0}})
	if late[1] != exact[0]+5000 {
		t.Errorf("an empty flow due 5 ns after another's end ends at %v, want %v", late[1], exact[0]+5000)
	}
}

// TestFlowZeroBytes: an empty message costs its latency.
func TestFlowZeroBytes(t *testing.T) {
	ends := runFlows(t, flowPlatform(starTopology(2), FlowParams{}), []send{{5, 0, 1, 0}})
	if ends[0] != 5+2*Microsecond {
		t.Errorf("ends at %v, want %v", ends[0], 5+2*Microsecond)
	}
}

// TestFlowComponents: flows that share no link do not refill each other.
// Two disjoint pairs start at once and end at once: one instant, two
// components, each refilled when its flow starts; when they end, their
// links are empty and there is nothing to refill.
func TestFlowComponents(t *testing.T) {
	p := flowPlatform(starTopology(4), FlowParams{})
	f := NewFlowNet(p, 1)
	f.Send(0, 0, 1, 1000, 0)
	f.Send(0, 2, 3, 1000, 1)
	done := drainFlows(f)
	if st := f.Stats(); len(done) != 2 || st.Refills != 2 || st.Messages != 2 || st.Bytes != 2000 {
		t.Errorf("done %v, stats %+v; want both done and 2 refills", done, st)
	}
}

// TestLinkHeapShareDown lowers a link's share, as a floating-point
// residual can come out an ulp below the share before, then lowers it
// again and raises it past every other, raises another's without telling
// the heap (its key is kept lazily) and leaves a third with no unfixed
// flows: the heap must still hand out each link once, least share first,
// with its share, and skip the one with nothing to fix.
func TestLinkHeapShareDown(t *testing.T) {
	var h linkHeap
	h.reset()
	// Link i, in slot i, has 10+i to give out to its one flow; ids are
	// offset so that a slot cannot pass for a link.
	const base = 100
	for i := range 8 {
		if slot := h.add(base+int32(i), float64(10+i), 1); slot != int32(i) {
			t.Fatalf("link %d in slot %d, want %d", base+i, slot, i)
		}
	}
	h.init()
	// set gives slot i residual r with two flows unfixed, and fixes one
	// at 0: the share is r.
	set := func(i int32, r float64) {
		h.state[i].residual, h.state[i].unfixed = r, 2
		h.fix(base+i, i, 0)
	}
	set(6, 5) // a leaf: its share falls below every other
	set(7, 9)
	set(7, 8)                // and again
	h.state[7].residual = 30 // then above every other: two stale entries
	set(0, 20)               // the top: its share rises past every other
	h.state[3].unfixed = 2
	h.fix(base+3, 3, 0) // one flow left: not lowered
	h.state[3].unfixed = 0
	want := []int32{6, 1, 2, 4, 5, 0, 7}
	for i, w := range want {
		top, ok := h.least()
		if !ok || top.link != base+w || top.slot != w || top.share != h.state[w].residual {
			t.Fatalf("pop %d: link %d (slot %d) at %v (%v), want %d at %v (heap %v)", i, top.link, top.slot, top.share, ok, base+w, h.state[w].residual, h.items)
		}
		h.take()
		h.state[w].unfixed = 0 // its flows are fixed
	}
	if top, ok := h.least(); ok {
		t.Fatalf("after every link: %+v, want none", top)
	}
}

// TestFlowRatesMatchFilling sends random flows over a fat tree and a
// torus, with and without window bounds, and after every step checks each
// flow's rate, to the bit, against progressive filling done plainly
// (fillRates): the flow model's heap, caps and per-component refills must
// change its cost, never its rates.
func TestFlowRatesMatchFilling(t *testing.T) {
	ft := baseTopology(FatTree)
	ft.K, ft.N, ft.Latency, ft.HostLatency, ft.Bandwidth = 4, 3, 100*Nanosecond, 300*Nanosecond, 2e9
	tor := baseTopology(Torus)
	tor.Dims, tor.Latency = []int{4, 4, 2}, 100*Nanosecond
	for _, topo := range []Topology{ft, tor} {
		for _, params := range []FlowParams{{}, SimGridFactors} {
			p := flowPlatform(topo, params)
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			f := NewFlowNet(p, 3)
			// Start near the epochs' end, so that they start again
			// during the run (see newEpochs).
			f.epoch = maxEpoch - 100
			nodes := topo.NodeCount()
			rng := rand.New(rand.NewPCG(1, uint64(topo.Kind)))
			at, sent, steps := Duration(0), 0, 0
			for {
				next, ok := f.Next()
				if sent < 500 && (!ok || at <= next) {
					src := rng.Int64N(nodes)
					dst := (src + 1 + rng.Int64N(nodes-1)) % nodes
					f.Send(at, src, dst, 1+rng.Int64N(64<<10), int32(sent))
					sent++
					at += Duration(rng.Int64N(int64(Microsecond)))
					continue
				}
				if !ok {
					break
				}
				f.Step(next, func(int32) {})
				steps++
				checkLinkFlows(t, f)
				want := fillRates(f)
				for id, r := range want {
					if got := f.flow(id).rate; got != r {
						t.Fatalf("%v %+v: after step %d at %v, flow %d goes at %v B/ps, filling gives %v", topo.Kind, params, steps, next, id, got, r)
					}
				}
			}
			if st := f.Stats(); st.Messages != 500 || st.Refilled < 10*st.Refills || f.epoch > uint32(st.Refills) {
				t.Fatalf("%v: %d sent, stats %+v, epoch %d", topo.Kind, sent, f.Stats(), f.epoch)
			}
		}
	}
}

// checkLinkFlows checks that every link knows the flows sharing it now:
// its mark counts them, and holds a lone one; two or more are in a list
// of its own, each once; every other list is free and empty; every flow
// not in flight is on the free chain, once.
func checkLinkFlows(t *testing.T, f *FlowNet) {
	t.Helper()
	count := make([]int32, len(f.linkMark))
	for id := range f.nflows {
		fl := f.flow(id)
		if !fl.sharing() {
			continue
		}
		for _, l := range f.route(fl) {
			count[l]++
			var one [1]int32
			m, on := f.linkMark[l], f.flowsOn(l, &one)
			if n := len(slices.DeleteFunc(slices.Clone(on), func(x int32) bool { return x != id })); n != 1 {
				t.Fatalf("link %d (mark %+v, flows %v) holds flow %d %d times, want once", l, m, on, id, n)
			}
		}
	}
	owner := make([]int, len(f.lists))
	for l, m := range f.linkMark {
		var one [1]int32
		if n := len(f.flowsOn(int32(l), &one)); m.flows != count[l] || n != int(m.flows) {
			t.Fatalf("link %d: mark %+v and %d flows listed, %d flows on it", l, m, n, count[l])
		}
		if m.flows > 1 {
			if owner[m.aux]++; owner[m.aux] > 1 {
				t.Fatalf("link %d: list %d is another link's too", l, m.aux)
			}
		}
	}
	for _, k := range f.freeLists {
		if owner[k]++; owner[k] > 1 || len(f.lists[k]) > 0 {
			t.Fatalf("free list %d is in use: %v", k, f.lists[k])
		}
	}
	for k, n := range owner {
		if n == 0 {
			t.Fatalf("list %d is neither a link's nor free", k)
		}
	}
	// The free flows are those with no event queued, each once on the
	// chain from freeHead.
	free := make([]bool, f.nflows)
	for next := f.freeHead; next > 0; next = f.flow(next - 1).qpos {
		id := next - 1
		if free[id] || f.flow(id).queued > 0 || f.flow(id).sharing() {
			t.Fatalf("flow %d is on the free chain twice, or in flight (%+v)", id, *f.flow(id))
		}
		free[id] = true
	}
	for id := range f.nflows {
		if !free[id] && f.flow(id).queued == 0 {
			t.Fatalf("flow %d has no event queued and is not free", id)
		}
	}
}

// flowsOn returns the flows sharing link l now, in the link's order; a
// lone flow in one.
func (f *FlowNet) flowsOn(l int32, one *[1]int32) []int32 {
	switch m := &f.linkMark[l]; m.flows {
	case 0:
		return nil
	case 1:
		one[0] = m.aux
		return one[:]
	default:
		return f.lists[m.aux]
	}
}

// fillRates is max-min fairness by progressive filling as
// docs/networks.md states it, over every flow sharing links now, with
// linear scans: the link with the least bandwidth per unfixed flow (the
// lower id on a tie) fixes its unfixed flows, in the link's order, at
// that share, unless the least window bound (the lower flow id on a tie)
// is at or below it, which fixes that flow at its bound.
func fillRates(f *FlowNet) map[int32]float64 {
	residual := make([]float64, len(f.linkMark))
	unfixed := make([]int, len(f.linkMark))
	rate := map[int32]float64{}
	var flows []int32
	for l := range f.linkMark {
		var one [1]int32
		on := f.flowsOn(int32(l), &one)
		residual[l], unfixed[l] = f.bw[f.class(int32(l))], len(on)
		for _, id := range on {
			if _, ok := rate[id]; !ok {
				rate[id] = -1
				flows = append(flows, id)
			}
		}
	}
	fix := func(id int32, r float64) {
		rate[id] = r
		for _, l := range f.route(f.flow(id)) {
			residual[l] = max(residual[l]-r, 0)
			unfixed[l]--
		}
	}
	for left := len(flows); left > 0; {
		best, share := -1, 0.0
		for l, n := range unfixed {
			if s := residual[l] / float64(n); n > 0 && (best < 0 || s < share) {
				best, share = l, s
			}
		}
		bid, bound := int32(-1), math.Inf(1)
		for _, id := range flows {
			if b := f.bound(f.flow(id)); rate[id] < 0 && (b < bound || b == bound && id < bid) {
				bid, bound = id, b
			}
		}
		if bid >= 0 && bound <= share {
			fix(bid, bound)
			left--
			continue
		}
		var one [1]int32
		for _, id := range f.flowsOn(int32(best), &one) {
			if rate[id] < 0 {
				fix(id, share)
				left--
			}
		}
	}
	return rate
}

// TestSortBySeq sorts flows by seq as slices.SortFunc does, over short
// runs and long ones whose seqs span one byte or several.
func TestSortBySeq(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	var tmp []dueFlow
	for _, c := range []struct {
		n    int
		span uint32
	}{{0, 1}, {1, 1}, {10, 100}, {63, 1000}, {64, 64}, {200, 256}, {5000, 40000}, {3000, 1 << 31}} {
		base := rng.Uint32N(1 << 31)
		seqs := map[uint32]bool{}
		var a []dueFlow
		for len(a) < c.n {
			if s := base + rng.Uint32N(c.span); !seqs[s] {
				seqs[s] = true
				a = append(a, dueFlow{seq: s, id: int32(len(a))})
			}
		}
		want := slices.Clone(a)
		slices.SortFunc(want, func(x, y dueFlow) int { return cmp.Compare(x.seq, y.seq) })
		tmp = sortBySeq(a, tmp)
		if !slices.Equal(a, want) {
			t.Fatalf("%d flows over %d seqs: sorted wrong", c.n, c.span)
		}
	}
	// Flows in the order they were sent are left as they are, without
	// the scratch; one out of place, last, is sorted.
	a := make([]dueFlow, 1000)
	for i := range a {
		a[i] = dueFlow{seq: uint32(1000 + 3*i), id: int32(i)}
	}
	want := slices.Clone(a)
	if tmp := sortBySeq(a, nil); !slices.Equal(a, want) || tmp != nil {
		t.Errorf("sorted flows: changed, or scratch of %d taken", cap(tmp))
	}
	a[len(a)-1].seq = 1
	want = append([]dueFlow{a[len(a)-1]}, want[:len(a)-1]...)
	if sortBySeq(a, nil); !slices.Equal(a, want) {
		t.Errorf("one flow out of place: sorted wrong")
	}
}

// TestFlowRenumber: seqs are 32 bits and renumbered before they wrap, so
// flows that end at one instant are still reported in the order they were
// sent when the count of flows passes 2^32 among them. Six disjoint pairs
// send at once; the third is sent when the next seq is the last.
func TestFlowRenumber(t *testing.T) {
	p := flowPlatform(starTopology(12), FlowParams{})
	f := NewFlowNet(p, 1)
	f.seq = math.MaxUint32 - 2
	for i := range int64(6) {
		f.Send(0, 2*i, 2*i+1, 1000, int32(i))
	}
	if f.seq != 6 {
		t.Errorf("next seq %d after renumbering, want 6", f.seq)
	}
	done := drainFlows(f)
	if want := []int32{0, 1, 2, 3, 4, 5}; !slices.Equal(done, want) {
		t.Errorf("delivered %v, want %v", done, want)
	}
}

// drainFlows steps f until nothing is left in it and returns the tokens
// of the messages delivered, in order.
func drainFlows(f *FlowNet) []int32 {
	var done []int32
	for {
		at, ok := f.Next()
		if !ok {
			return done
		}
		f.Step(at, func(tok int32) { done = append(done, tok) })
	}
}

// TestFlowSize checks that a flow is 48 bytes: the filling and the walk
// read it once per refill, the halo's components hold more flows than a
// cache does, and the halo has 24,576 in flight at its peak.
func TestFlowSize(t *testing.T) {
	if s := unsafe.Sizeof(flow{}); s != 48 {
		t.Errorf("a flow is %d bytes, want 48", s)
	}
	// A link's mark is 12 bytes: the walk and the filling read it for
	// every flow on a link, and every link has one.
	if s := unsafe.Sizeof(linkMark{}); s != 12 {
		t.Errorf("a link's mark is %d bytes, want 12", s)
	}
}

// TestCapHeapOrder pushes caps, ties on rate and on link included, and
// checks that first names the least before the heap is built from them and
// that pops then hand them out in order of (rate, link, flow).
func TestCapHeapOrder(t *testing.T) {
	caps := []flowCap{{3, 7, 1}, {1, 9, 2}, {2, -1, 3}, {1, 4, 4}, {2, 5, 5}, {1, 4, 0}, {5, 1, 6}, {2, -1, 2}}
	var h capHeap
	h.reset()
	for _, c := range caps {
		h.push(c)
	}
	want := slices.Clone(caps)
	slices.SortFunc(want, func(a, b flowCap) int {
		if a.less(&b) {
			return -1
		}
		return 1
	})
	if c, ok := h.first(); !ok || *c != want[0] || h.built() {
		t.Fatalf("first before the heap is built: %+v (%v, built %v), want %+v", c, ok, h.built(), want[0])
	}
	h.build(slices.Clone(caps))
	for i, w := range want {
		c, ok := h.first()
		if !ok || *c != w {
			t.Fatalf("cap %d: %+v (%v), want %+v", i, c, ok, w)
		}
		h.pop()
	}
	if c, ok := h.first(); ok {
		t.Fatalf("after every cap: %+v, want none", c)
	}
	h.reset()
	if _, ok := h.first(); ok {
		t.Fatal("a reset heap has a cap")
	}
}

// TestFlowRouteLatency checks the flow model's route latency, worked out
// from a route's length off a dragonfly, against the sum of its links'
// latencies times the latency factor, on every route of a star, tori, fat
// trees and dragonflies whose link classes have latencies of their own.
func TestFlowRouteLatency(t *testing.T) {
	var topos []Topology
	star := baseTopology(Star)
	star.Nodes = 5
	topos = append(topos, star)
	for _, dims := range [][]int{{4, 4, 4}, {5, 2, 3}} {
		tor := baseTopology(Torus)
		tor.Dims = dims
		topos = append(topos, tor)
	}
	ft := baseTopology(FatTree)
	ft.K, ft.N = 4, 3
	topos = append(topos, ft)
	for _, routing := range []string{"minimal", "valiant"} {
		df := baseTopology(Dragonfly)
		df.Routing = routing
		df.Groups, df.Routers, df.Hosts, df.GlobalLinks = 5, 2, 2, 2
		topos = append(topos, df)
	}
	for _, topo := range topos {
		topo.HostLatency, topo.Latency, topo.GlobalLatency = 350, 100, 1000
		p := flowPlatform(topo, FlowParams{LatencyFactor: 1.37, BandwidthFactor: 1})
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		f := NewFlowNet(p, 1)
		n := topo.NodeCount()
		for src := range n {
			for dst := range n {
				if src == dst {
					continue
				}
				route := topo.Route(src, dst, f.hash(src, dst), nil)
				var sum Duration
				for _, l := range route {
					sum += topo.LinkLatency(l)
				}
				if got, want := f.routeLatency(route), Duration(math.Round(float64(sum)*1.37)); got != want {
					t.Fatalf("%v: route %d -> %d = %v: latency %v, want %v", topo.Kind, src, dst, route, got, want)
				}
			}
		}
	}
}
