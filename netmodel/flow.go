package netmodel

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// The flow model (SimGrid's approach, Velho and Legrand 2009): a message
// of n bytes from node a to node b becomes a flow over its route. The
// flow first waits out the route's latency, the sum of its links'
// latencies times the latency factor; then it competes for bandwidth:
// the rates of all flows are the max-min fair allocation of the links'
// bandwidths (times the bandwidth factor), each flow optionally bounded
// by its TCP window over twice its latency. The flow ends when its n
// bytes have gone at those rates; that is when its last byte arrives.
//
// Max-min fairness is found by progressive filling: the link with the
// least bandwidth per unfixed flow fixes its flows at that share, which
// leaves less for the other links on their routes, and so on. Rates
// change only when a flow starts or ends, and then only within the
// connected component (flows joined by the links they share) of the links
// it crosses: FlowNet refills that component alone, at most once per
// instant however many flows start or end in it.

// FlowNet is the state of the flow model during a run: the links, the
// flows in flight and the times they start sharing or end. Times are
// those of the simulation calling it, in order.
type FlowNet struct {
	topo   *Topology
	params FlowParams
	seed   uint64

	bw  []float64 // bytes per picosecond per link class, factor applied
	lat []Duration
	// Links below hostLinks are nodes' own; those from globalLinks on join
	// a dragonfly's groups (see Topology.linkClass).
	hostLinks, globalLinks int32
	// bytes is the bytes that crossed each link; lists are the lists of
	// flows of the links that flows share now (see linkMark), and
	// freeLists the places in lists of those free, which keep their room
	// for reuse. slots holds, by list, where the filling keeps its link's
	// state while the link's component is refilled (see linkHeap): only
	// links that flows share have one, so it is kept by list rather than
	// by link (4 bytes a list, where it took 4 in every link's mark).
	bytes     []int64
	lists     [][]int32
	slots     []int32
	freeLists []int32
	flows     []*flowChunkOf
	paths     paths // the flows' routes
	nflows    int32
	// freeHead is 1 + the id of the flow that ended last, 0 if none is
	// free; a free flow's qpos is the next one's (1 + its id, or 0), so
	// that the free ids, as many as were ever in flight, take no room of
	// their own. The last to end is the first reused, as ids decide ties
	// between window caps (see flowCap).
	freeHead int32
	// pending holds the id of each flow in flight at the time it starts
	// sharing or ends, as many do at one picosecond in an SPMD program
	// (see schedule).
	pending eventBuckets[int32]
	due     []dueFlow  // scratch: the flows due at the current instant
	dueTmp  []dueFlow  // scratch for sorting them
	dueEnds []int      // scratch: where each time's flows end in due
	dueAt   []Duration // scratch: and that time
	seq     uint32     // orders flows that start at the same time (see renumber)

	epoch uint32 // marks a component's links and flows while it is refilled
	// The marks, by link (the links' state: see linkMark) and by flow id
	// (in the flows' chunks), apart from the flows: the walk and the
	// filling test them for every flow on a link, and these small arrays
	// stay in cache where the flows would not.
	linkMark []linkMark
	changed  []int32 // links whose flows changed at the current instant
	compF    []int32 // scratch: the component's flows and links
	compL    []int32
	fill     linkHeap
	caps     capHeap     // scratch: the component's caps (see maxMin)
	done     []int32     // tokens of the flows that ended at the current instant
	later    []laterFlow // flows due to start within Precision of now, put back

	stats NetStats
}

// Network is a network model with links: FlowNet or PacketNet. The
// simulation calling it sends messages with Send, asks when the model next
// changes with Next, and brings it to that time with Step, in time order.
type Network interface {
	// Latency is the time a control message takes from node a to node b.
	Latency(a, b int64) Duration
	// Send starts n bytes from node a to node b (a != b) at time at, no
	// earlier than the last time given to Step; token names the message
	// when Step reports it delivered.
	Send(at Duration, a, b int64, n int64, token int32)
	// Next returns the time of the model's next change; false if nothing
	// is in flight.
	Next() (Duration, bool)
	// Step brings the model to now, Next's time, and calls done with the
	// token of each message whose last byte arrived.
	Step(now Duration, done func(token int32))
	// Stats returns the run's totals so far.
	Stats() NetStats
	// LinkBytes returns the bytes that crossed each link so far, by link
	// id. The slice may be the model's own: the caller reads it, and only
	// until the model next changes.
	LinkBytes() []int64
}

// NetStats are the totals of a run on a Network.
type NetStats struct {
	Messages int64 // messages between nodes (flows)
	Bytes    int64 // their bytes
	Packets  int64 // the packet model's packets; 0 under the flow model
	// Hops sums the links between switches crossed: per flow under the
	// flow model, per packet under the packet model.
	Hops     int64
	Refills  int64 // flow: components refilled
	Refilled int64 // flow: flows whose rates were recomputed, summed over the refills
}

// linkMark is a link's state: the epoch in which it was last in a
// refilled component, how many flows share it now, and which: aux is the
// id of a flow alone on it, and for a link that two or more flows share,
// the place of its list of them in FlowNet.lists (and of its slot in
// FlowNet.slots). A link that one flow alone crosses is a
// cap on that flow (see maxMin), and its bandwidth, by its class, is all
// the filling needs of it.
//
// A lone flow, the common case (most links of a halo's routes, and every
// link of its allreduce's 8-byte flows), so starts and ends without
// touching a list; and lists, with their room, belong to the links that
// flows share now, not to every link that flows ever shared (nearly every
// link of the benchmark's torus, once its allreduce has run). The marks
// are an array of their own, apart from the links' bytes, as the walk and
// the filling test them for every flow on a link: 12 bytes a link, they
// stay in cache.
type linkMark struct {
	epoch uint32
	flows int32
	aux   int32
}

type flow struct {
	// path is the route, the link ids from source to destination. (A
	// flow's place in the lists of the links it shares is not kept: an
	// end finds it in each list, as the refill that follows reads the
	// whole list anyway.)
	path      pathRef
	remaining float64 // bytes not yet sent as of last
	rate      float64 // bytes per picosecond
	// last is when remaining was worked out, from when the flow starts
	// sharing its links; -1 before (see sharing).
	last Duration
	seq  uint32
	// token names the flow's message to the caller.
	token int32
	// queued is 1 + the bucket in pending of the flow's event (its start
	// or its end; the bucket's time is the event's: a flow is 48 bytes
	// without a time of its own), 0 when none is queued;
	// qpos is the event's place in that bucket, and in a free flow the
	// next free one's (see FlowNet.freeHead).
	queued int32
	qpos   int32
}

// dueFlow is a flow due at the current instant, with its seq.
type dueFlow struct {
	seq uint32
	id  int32
}

// laterFlow is a flow due to start at, after the current instant.
type laterFlow struct {
	at Duration
	id int32
}

// flowMark is the epoch in which a flow was last in a refilled component,
// shifted up a bit, with the low bit set once its rate is fixed in that
// epoch: one word a flow where two, the epochs of each, took 8 bytes
// (the halo has 24,576 flows in flight). Epochs so stop at maxEpoch.
type flowMark uint32

// maxEpoch is the last epoch before newEpochs starts them again.
const maxEpoch = math.MaxUint32 >> 1

// in reports whether the flow is in the component of epoch.
func (m flowMark) in(epoch uint32) bool { return uint32(m)>>1 == epoch }

// fixedIn reports whether the flow's rate is fixed in epoch.
func (m flowMark) fixedIn(epoch uint32) bool { return uint32(m) == epoch<<1|1 }

// route returns flow fl's route.
func (f *FlowNet) route(fl *flow) []int32 { return f.paths.get(fl.path) }

// sharing reports whether the flow shares its links now: it has started
// and not ended. (last says it rather than a flag of its own, which would
// make a flow 56 bytes instead of 48, and the halo has 24,576 in flight.)
func (fl *flow) sharing() bool { return fl.last >= 0 }

// flowChunk is how many flows FlowNet allocates at once: chunks, not one
// growing slice, so that the flows cost what is in flight and never move.
const flowChunk = 1 << 10

// flowChunkOf is a chunk of flows and their marks.
type flowChunkOf struct {
	flows [flowChunk]flow
	marks [flowChunk]flowMark
}

// flow returns flow id. Its place within a chunk needs no bounds check.
func (f *FlowNet) flow(id int32) *flow {
	return &f.flows[uint32(id)/flowChunk].flows[uint32(id)%flowChunk]
}

// mark returns flow id's mark.
func (f *FlowNet) mark(id int32) *flowMark {
	return &f.flows[uint32(id)/flowChunk].marks[uint32(id)%flowChunk]
}

// NewFlowNet makes the flow model of platform p, which must have a
// topology. seed varies the per-flow hash of routings that spread flows
// over equal paths.
func NewFlowNet(p *Platform, seed uint64) *FlowNet {
	t := p.Topology
	f := &FlowNet{topo: t, params: p.Flow, seed: mix64(seed)}
	perPs := func(bw float64) float64 { return bw * p.Flow.BandwidthFactor / float64(Second) }
	f.bw = []float64{perPs(t.HostBandwidth), perPs(t.Bandwidth), perPs(t.GlobalBandwidth)}
	f.lat = []Duration{t.HostLatency, t.Latency, t.GlobalLatency}
	f.bytes = make([]int64, t.LinkCount())
	f.linkMark = make([]linkMark, t.LinkCount())
	f.hostLinks = int32(2 * t.NodeCount())
	f.globalLinks = int32(t.LinkCount())
	if t.Kind == Dragonfly {
		f.globalLinks = f.hostLinks + int32(t.Groups*t.Routers*t.Routers)
	}
	return f
}

// Latency returns the time a message's first byte (or a control message)
// takes from node a to node b: the route's latency times the latency
// factor. It is 0 from a node to itself.
func (f *FlowNet) Latency(a, b int64) Duration {
	if a == b {
		return 0
	}
	if sum, ok := f.topo.routeLatency(a, b); ok {
		return f.factored(sum)
	}
	var buf [64]int32
	route := f.topo.Route(a, b, f.hash(a, b), buf[:0])
	return f.routeLatency(route)
}

// routeLatency returns route's latency, the latency factor applied. Off a
// dragonfly a route is two host links and the rest between switches (see
// Topology.routeLatency), so its length is all that is needed: every
// message's flow asks.
func (f *FlowNet) routeLatency(route []int32) Duration {
	if f.topo.Kind != Dragonfly {
		return f.factored(2*f.lat[hostLink] + Duration(len(route)-2)*f.lat[localLink])
	}
	var sum Duration
	for _, l := range route {
		sum += f.lat[f.class(l)]
	}
	return f.factored(sum)
}

// factored applies the latency factor to a route's latency.
func (f *FlowNet) factored(sum Duration) Duration {
	return Duration(math.Round(float64(sum) * f.params.LatencyFactor))
}

// class is Topology.linkClass without its arithmetic.
func (f *FlowNet) class(l int32) uint8 {
	switch {
	case l < f.hostLinks:
		return hostLink
	case l >= f.globalLinks:
		return globalLink
	}
	return localLink
}

// hash is the flow hash of the pair a, b: every message between them takes
// the same path, as ECMP routing keeps a connection on one path.
func (f *FlowNet) hash(a, b int64) uint64 {
	return mix64(f.seed ^ uint64(a)*0x9e3779b97f4a7c15 ^ uint64(b)*0xc2b2ae3d27d4eb4f)
}

// Send starts a message of n bytes from node a to node b (a != b) at time
// at, which is no earlier than the last time given to Step. token names it
// when it ends (see Step).
func (f *FlowNet) Send(at Duration, a, b int64, n int64, token int32) {
	var id int32
	if f.freeHead > 0 {
		id = f.freeHead - 1
		f.freeHead = f.flow(id).qpos
	} else {
		id = f.nflows
		if int(id/flowChunk) == len(f.flows) {
			f.flows = append(f.flows, new(flowChunkOf))
		}
		f.nflows++
	}
	fl := f.flow(id)
	// The route is built on the stack and kept in paths, of its exact
	// size: the flows in flight hold them all at once.
	var buf [64]int32
	route := f.topo.Route(a, b, f.hash(a, b), buf[:0])
	hops := len(route)
	fl.path = f.paths.add(route)
	lat := f.routeLatency(f.route(fl))
	fl.remaining, fl.rate, fl.token, fl.last = float64(n), 0, token, -1
	if f.seq == math.MaxUint32 {
		f.renumber()
	}
	fl.seq = f.seq
	f.seq++
	f.schedule(id, fl, at+lat)
	f.stats.Messages++
	f.stats.Bytes += n
	f.stats.Hops += int64(hops - 2)
}

// renumber gives the flows in flight the seqs 0, 1, ... in the order of
// theirs, and the next flow the one after, so that seqs, 32 bits (8 bytes
// less in each due flow, 4 in each flow), never wrap while a flow that
// has one is in flight. It runs once every 4 billion flows, between steps,
// when every flow in flight has its event pending.
func (f *FlowNet) renumber() {
	var ids []int32
	for id := range f.nflows {
		if f.flow(id).queued > 0 {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b int32) int { return cmp.Compare(f.flow(a).seq, f.flow(b).seq) })
	for i, id := range ids {
		f.flow(id).seq = uint32(i)
	}
	f.seq = uint32(len(ids))
}

// Next returns the time of the model's next change (a flow starting to
// share or ending), and false if no flow is in flight.
func (f *FlowNet) Next() (Duration, bool) {
	for {
		at, ok := f.pending.first()
		if !ok {
			return 0, false
		}
		if len(f.pending.front()) > 0 {
			return at, true
		}
		f.pending.discard() // its flows all moved to other times
	}
}

// schedule sets when flow id, fl, next starts sharing or ends. Its event
// goes to at's bucket, out of the one it was in, so that moving a flow
// costs an append and a swap rather than a heap's reordering; the order
// within a bucket is lost, and takeDue sorts.
func (f *FlowNet) schedule(id int32, fl *flow, at Duration) {
	if fl.queued > 0 {
		if f.pending.at[fl.queued-1] == at {
			return // a refill that left the flow's end where it was
		}
		if moved, ok := f.pending.remove(fl.queued-1, fl.qpos); ok {
			f.flow(moved).qpos = fl.qpos
		}
	}
	b, i := f.pending.push(at, id)
	fl.queued, fl.qpos = b+1, i
}

// takeDue gathers in f.due the flows due by limit, in order of time and
// then of sending, and takes them out of pending; f.dueAt holds the times
// and f.dueEnds where each time's flows end in f.due.
func (f *FlowNet) takeDue(limit Duration) {
	f.due, f.dueEnds, f.dueAt = f.due[:0], f.dueEnds[:0], f.dueAt[:0]
	last := Duration(-1)
	for {
		at, ok := f.Next()
		if !ok || at > limit {
			break
		}
		// Buckets come in order of time: each time's flows need ordering
		// by seq alone.
		if at != last {
			if len(f.due) > 0 {
				f.dueEnds = append(f.dueEnds, len(f.due))
			}
			f.dueAt = append(f.dueAt, at)
		}
		last = at
		for _, id := range f.pending.front() {
			fl := f.flow(id)
			f.due = append(f.due, dueFlow{fl.seq, id})
			fl.queued = 0
		}
		f.pending.discard()
	}
	f.dueEnds = append(f.dueEnds, len(f.due))
	start := 0
	for _, end := range f.dueEnds {
		f.dueTmp = sortBySeq(f.due[start:end], f.dueTmp)
		start = end
	}
}

// sortBySeq sorts flows by seq, which differ, with tmp as scratch, and
// returns tmp for reuse: a radix sort, a byte of seq (less the least) at a
// time, as an instant of an SPMD run has thousands of flows due, their
// seqs a few tens of thousands apart.
func sortBySeq(a, tmp []dueFlow) []dueFlow {
	if len(a) < 64 {
		slices.SortFunc(a, func(x, y dueFlow) int { return cmp.Compare(x.seq, y.seq) })
		return tmp
	}
	// Flows that start sharing together were mostly sent together, and
	// come in the order they were sent (two thirds of the halo's due
	// flows): those need no sorting, nor the scratch.
	lo, hi, sorted := a[0].seq, a[0].seq, true
	for i := 1; i < len(a); i++ {
		s := a[i].seq
		sorted = sorted && s > a[i-1].seq
		lo, hi = min(lo, s), max(hi, s)
	}
	if sorted {
		return tmp
	}
	tmp = slices.Grow(tmp[:0], len(a))[:len(a)]
	src, dst := a, tmp
	for shift := 0; shift < bits.Len32(hi-lo); shift += 8 {
		var start [257]int // where each byte's flows go, from 1
		for _, d := range src {
			start[(d.seq-lo)>>shift&0xff+1]++
		}
		for i := 1; i < len(start); i++ {
			start[i] += start[i-1]
		}
		for _, d := range src {
			k := (d.seq - lo) >> shift & 0xff
			dst[start[k]] = d
			start[k]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
	return tmp
}

// Step brings the model to time now, which is Next's time: the flows due
// start sharing or end, the rates in their components are refilled, and
// done is called with the token of each flow that ended, in the order
// they were sent.
func (f *FlowNet) Step(now Duration, done func(token int32)) {
	f.changed = f.changed[:0]
	f.done = f.done[:0]
	f.later = f.later[:0]
	f.takeDue(now + f.params.Precision)
	group := 0 // the time of due[i] is dueAt[group]
	for i, d := range f.due {
		if i == f.dueEnds[group] {
			group++
		}
		at := f.dueAt[group]
		id := d.id
		fl := f.flow(id)
		if !fl.sharing() && at > now {
			// Only ends are brought forward.
			f.later = append(f.later, laterFlow{at, id})
			continue
		}
		if !fl.sharing() && fl.remaining > 0 {
			fl.last = at
			// A flow's bytes count on its links as it starts, when they
			// are read anyway: all of them, since they will cross.
			n := int64(fl.remaining)
			route := f.route(fl)
			for _, l := range route {
				f.bytes[l] += n
				m := &f.linkMark[l]
				switch m.flows {
				case 0:
					m.aux = id
				case 1: // the lone flow and this one share it now
					k := f.newList()
					f.lists[k] = append(f.lists[k], m.aux, id)
					m.aux = k
				default:
					f.lists[m.aux] = append(f.lists[m.aux], id)
				}
				m.flows++
			}
			// The flow now joins its links in one component: one of them
			// names it for refill. (An end can split a component, so every
			// link of an ending flow is named.)
			f.changed = append(f.changed, route[0])
			continue
		}
		if fl.sharing() {
			for _, l := range f.route(fl) {
				m := &f.linkMark[l]
				m.flows--
				switch m.flows {
				case 0:
					continue // an empty link has nothing to refill
				case 1: // the other flow is alone on it now
					k := m.aux
					list := f.lists[k]
					m.aux = list[0]
					if m.aux == id {
						m.aux = list[1]
					}
					f.lists[k] = list[:0]
					f.freeLists = append(f.freeLists, k)
				default:
					// The last flow takes the ending one's place.
					list := f.lists[m.aux]
					last := len(list) - 1
					list[slices.Index(list, id)] = list[last]
					f.lists[m.aux] = list[:last]
				}
				f.changed = append(f.changed, l)
			}
		}
		fl.last = -1
		f.paths.drop(fl.path)
		f.done = append(f.done, fl.token)
		fl.qpos, f.freeHead = f.freeHead, id+1
	}
	for _, l := range f.later {
		f.schedule(l.id, f.flow(l.id), l.at)
	}
	f.refill(now)
	for _, tok := range f.done {
		done(tok)
	}
}

// refill recomputes the rates of the flows in the components of the
// changed links and reschedules their ends. A link whose mark is from
// this call's epochs is in a component refilled already.
func (f *FlowNet) refill(now Duration) {
	if f.epoch > maxEpoch-uint32(len(f.changed)) {
		f.newEpochs()
	}
	first := f.epoch + 1
	for _, l := range f.changed {
		if m := f.linkMark[l]; m.epoch >= first || m.flows == 0 {
			continue // refilled already, or nothing to share
		}
		f.epoch++
		f.stats.Refills++
		f.component(l, now)
		f.stats.Refilled += int64(len(f.compF))
		f.maxMin(now)
	}
}

// newEpochs starts the epochs again from 0 before they would wrap, which
// would leave marks from an old epoch looking current (a long run of a
// large machine refills a few billion times): no link or flow is marked
// with 0, and the next refill's epoch is 1.
func (f *FlowNet) newEpochs() {
	for l := range f.linkMark {
		f.linkMark[l].epoch = 0
	}
	for _, c := range f.flows {
		c.marks = [flowChunk]flowMark{}
	}
	f.epoch = 0
}

// component gathers in compF the flows joined to link l and in compL the
// links they share, marking them and the links they alone cross with the
// current epoch, and readies them for maxMin as it goes (see enter), so
// that the component's links and flows are each read once before the
// filling. The links a flow alone crosses need no walk: their flow is in.
func (f *FlowNet) component(l int32, now Duration) {
	f.compF, f.compL = f.compF[:0], f.compL[:0]
	f.fill.reset()
	f.caps.reset()
	m := &f.linkMark[l]
	if m.flows > 1 {
		f.join(l, -1)
	} else if id := m.aux; f.alone(id) {
		// The common case (every flow of the halo's allreduce): a flow
		// that has each of its links to itself is a component alone,
		// which maxMin fills without caps or heap.
		for _, l := range f.route(f.flow(id)) {
			f.linkMark[l].epoch = f.epoch
		}
		f.take(id, now)
		return
	} else {
		f.join(l, id)
		f.enter(id, now)
	}
	for i := 0; i < len(f.compL); i++ {
		for _, id := range f.lists[f.linkMark[f.compL[i]].aux] {
			if !f.mark(id).in(f.epoch) {
				f.enter(id, now)
			}
		}
	}
}

// alone reports whether flow id shares none of its links.
func (f *FlowNet) alone(id int32) bool {
	for _, l := range f.route(f.flow(id)) {
		if f.linkMark[l].flows > 1 {
			return false
		}
	}
	return true
}

// take adds flow id to the component, its bytes sent until now taken off,
// and returns it.
func (f *FlowNet) take(id int32, now Duration) *flow {
	*f.mark(id) = flowMark(f.epoch << 1)
	fl := f.flow(id)
	f.compF = append(f.compF, id)
	fl.remaining = max(fl.remaining-fl.rate*float64(now-fl.last), 0)
	fl.last = now
	return fl
}

// enter takes flow id into the component: its window bound is a cap, and
// the links of its route not in the component yet join it.
func (f *FlowNet) enter(id int32, now Duration) {
	fl := f.take(id, now)
	// A flow bounded by its window is fixed at the bound when the bound is
	// at or below every share it could get: a cap that wins ties (see
	// maxMin).
	if f.params.TCPGamma > 0 {
		if b := f.bound(fl); !math.IsInf(b, 1) {
			f.caps.push(flowCap{b, -1, id})
		}
	}
	for _, l := range f.route(fl) {
		if f.linkMark[l].epoch != f.epoch {
			f.join(l, id)
		}
	}
}

// newList returns the place of an empty list for a link that flows share
// now: a free one, with its room, if there is one.
func (f *FlowNet) newList() int32 {
	if n := len(f.freeLists); n > 0 {
		k := f.freeLists[n-1]
		f.freeLists = f.freeLists[:n-1]
		return k
	}
	f.lists = append(f.lists, nil)
	f.slots = append(f.slots, 0)
	return int32(len(f.lists) - 1)
}

// join adds link l, which flow id crosses, to the component: a link id
// alone crosses is a cap on it (see maxMin), and one that flows share
// goes into compL and the filling heap with its whole bandwidth to give
// out. A cap's flow is id, so the link's list need not be read.
func (f *FlowNet) join(l, id int32) {
	m := &f.linkMark[l]
	m.epoch = f.epoch
	bw := f.bw[f.class(l)]
	if m.flows == 1 {
		f.caps.push(flowCap{bw, l, id})
		return
	}
	f.compL = append(f.compL, l)
	f.slots[m.aux] = f.fill.add(l, bw, m.flows)
}

// maxMin gives the component's flows their max-min fair rates by
// progressive filling, and each its end at its rate as it is fixed (see
// setRate).
func (f *FlowNet) maxMin(now Duration) {
	if len(f.compF) == 1 {
		// The common case: a flow alone on its links goes at the
		// slowest of them, or its bound.
		id := f.compF[0]
		fl := f.flow(id)
		rate := f.bound(fl)
		for _, l := range f.route(fl) {
			rate = min(rate, f.bw[f.class(l)])
		}
		f.setRate(id, fl, rate, now)
		return
	}
	// A link that one flow alone crosses is a cap on that flow, not a
	// heap entry: its share is its bandwidth until the flow is fixed, so
	// it would leave the heap either fixing the flow at that bandwidth or
	// as soon as the flow is fixed elsewhere. The caps, ordered as the heap
	// orders links, are merged with it, which fixes the flows in the same
	// order and at the same rates; the heap holds only the links that
	// flows share, on a torus or a fat tree most of a route. Most caps
	// are never reached (their flows are fixed first by a shared link), so
	// they are gathered and heaped only once one is (see capHeap).
	f.fill.init()
	fix := func(id int32, rate float64) {
		fl := f.flow(id)
		*f.mark(id) = flowMark(f.epoch<<1 | 1)
		f.setRate(id, fl, rate, now)
		for _, l := range f.route(fl) {
			if m := &f.linkMark[l]; m.flows > 1 { // else a cap, not in the heap
				f.fill.fix(l, f.slots[m.aux], rate)
			}
		}
	}
	for {
		top, ok := f.fill.least()
		if !ok {
			break
		}
		if c, ok := f.caps.first(); ok && c.before(top.share, top.link) {
			if id := c.id; !f.mark(id).fixedIn(f.epoch) {
				fix(id, c.rate)
			}
			if !f.caps.built() {
				f.gatherCaps()
			}
			f.caps.pop()
			continue
		}
		f.fill.take()
		for _, id := range f.lists[f.linkMark[top.link].aux] {
			if !f.mark(id).fixedIn(f.epoch) {
				fix(id, top.share)
			}
		}
	}
}

// gatherCaps gives the cap heap the component's caps, the ones component
// and join pushed: each flow's window bound, if it has one, and the links
// it alone crosses.
func (f *FlowNet) gatherCaps() {
	caps := f.caps.items[:0]
	for _, id := range f.compF {
		fl := f.flow(id)
		if b := f.bound(fl); !math.IsInf(b, 1) {
			caps = append(caps, flowCap{b, -1, id})
		}
		for _, l := range f.route(fl) {
			if f.linkMark[l].flows == 1 {
				caps = append(caps, flowCap{f.bw[f.class(l)], l, id})
			}
		}
	}
	f.caps.build(caps)
}

// setRate gives flow id, fl, its rate from now and sets when it ends at
// that rate. It runs as the flow is fixed, while the flow is in cache,
// rather than in a pass of its own over the component: the flows of one
// that spans the benchmark's torus do not all fit.
func (f *FlowNet) setRate(id int32, fl *flow, rate float64, now Duration) {
	fl.rate = rate
	d := MaxTime // a flow on a link with no bandwidth left never ends
	if rate > 0 {
		d = min(Duration(math.Ceil(fl.remaining/rate)), MaxTime)
	}
	f.schedule(id, fl, now+d)
}

// bound returns the bound on flow fl's rate of its TCP window, tcp_gamma
// over twice its route's latency; +Inf without a window. It is worked out
// when needed rather than kept in every flow, most platforms having none.
func (f *FlowNet) bound(fl *flow) float64 {
	if f.params.TCPGamma > 0 {
		if lat := f.routeLatency(f.route(fl)); lat > 0 {
			return float64(f.params.TCPGamma) / (2 * float64(lat))
		}
	}
	return math.Inf(1)
}

// Stats returns the run's totals so far.
func (f *FlowNet) Stats() NetStats { return f.stats }

// LinkBytes returns the bytes that crossed each link so far, by link id:
// a flow counts whole from when it starts sharing its links. The slice is
// the model's own (see Network): a copy, 8 bytes a link, would add to the
// run's memory as its results are gathered, which in the benchmark's halo
// is when it is largest.
func (f *FlowNet) LinkBytes() []int64 { return f.bytes }
