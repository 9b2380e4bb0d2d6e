package netmodel

import (
	"fmt"
	"math"
)

// The packet model: a message of n bytes from node a to node b is cut
// into ceil(n / mtu) packets (one empty packet if n is 0), each routed on
// its own (a fat tree's up ports and a dragonfly's global links and
// Valiant group are hashed per packet, not per pair). Packets move by
// virtual cut-through:
//
//   - Each link has an output queue at its near end, one per virtual
//     channel, and serves the packets whose heads have arrived first come,
//     first served, one at a time at its bandwidth: a packet of s bytes
//     holds the link s / bandwidth, and no less than until its tail has
//     arrived from the link before (a slower upstream link paces it).
//   - A packet starts on a link when the link is free and the input buffer
//     at the link's far end has room for it (credit flow control): each
//     switch input port has `buffer` bytes per virtual channel; the packet
//     takes s bytes of credit when it starts and gives them back when its
//     tail has left that buffer, the credit reaching the upstream port one
//     link latency later. A node's own memory, where packets start and
//     end, is unlimited.
//   - Its head reaches the far end one link latency after it started and
//     may go on at once (cut-through): a packet alone crosses h links in
//     Σ latencies + s / bandwidth, not h × (latency + s / bandwidth) as
//     store-and-forward would.
//
// Virtual channels keep finite buffers from deadlocking: a torus uses two
// per link, a packet moving to channel 1 when it crosses the wrap-around
// link of a ring (the dateline) and back to 0 in each new dimension; a
// dragonfly uses one per global link crossed so far (0 to 2); star and fat
// tree (up/down) routes have no cyclic dependencies and use one. With
// these, the channels a packet holds form an acyclic order, so every
// packet waiting for credit waits for one that can move.
//
// Events are ordered by time and then by a sequence number, so runs are
// deterministic.

// PacketParams are the packet model's sizes.
type PacketParams struct {
	MTU    int64 // bytes per packet
	Buffer int64 // bytes of each switch input buffer, per virtual channel
}

// The packet model's defaults: InfiniBand's 4 KiB MTU and a buffer of 16
// such packets.
const (
	DefaultMTU    = 4 << 10
	DefaultBuffer = 64 << 10
)

// readPacketParams reads mtu and buffer from the network table.
func readPacketParams(s *tomlSection, p *PacketParams) {
	*p = PacketParams{MTU: DefaultMTU, Buffer: DefaultBuffer}
	quantity(s, "mtu", ParseSize, &p.MTU)
	quantity(s, "buffer", ParseSize, &p.Buffer)
}

func (p *PacketParams) validate() error {
	if p.MTU <= 0 || p.MTU > 1<<30 {
		return fieldError("network.mtu", fmt.Errorf("%d bytes is not a packet size; give one between 1 B and 1 GiB, e.g. \"4KiB\"", p.MTU))
	}
	if p.Buffer < p.MTU || p.Buffer > 1<<40 {
		return fieldError("network.buffer", fmt.Errorf("%d bytes cannot hold a packet of network.mtu = %d bytes; give at least the MTU (and at most 1 TiB)", p.Buffer, p.MTU))
	}
	return nil
}

// PacketNet is the state of the packet model during a run.
type PacketNet struct {
	topo *Topology
	seed uint64
	mtu  int64

	psPerByte              [3]float64  // by link class
	txMTU                  [3]Duration // by link class: a full packet's time on the link (txTime's)
	lat                    [3]Duration
	hostLinks, globalLinks int32
	strides                []int64 // torus: node-number stride of each dimension
	nvc                    int32   // virtual channels per link
	shared                 bool    // routing has no choice: a message's packets share its route

	links  []pktLink
	queues []pktQueue // by link*nvc + vc: packets waiting to start on the link

	pkts   []*[flowChunk]packet // in chunks, as FlowNet's flows
	routes routeArena           // the routes of messages and packets in flight
	route  []int32              // scratch: the route being made
	npkts  int32
	free   []int32
	msgs   []pktMsg
	freeM  []int32

	events eventBuckets[pktEvent]
	now    Duration // the time Step is at
	seq    uint64   // orders packets queued at a link
	done   []int32

	stats NetStats
}

type pktLink struct {
	freeAt  Duration // when the packet on it has gone
	bytes   int64
	credits [maxVCs]int64 // by virtual channel: bytes free in the buffer at the link's far end
	queued  int32         // packets in its queues, all channels: the fast paths read the link alone
	woken   bool          // an evLink is due at freeAt
}

type pktQueue struct {
	items []queued
	head  int32
}

// queued is a packet in an output queue with what tryStart compares, so
// that choosing among the channels' heads reads the queues alone.
type queued struct {
	seq  uint64 // orders the packets queued at one link across channels
	id   int32
	need int32 // bytes of credit it needs at the link's far end: 0 into a node
}

// A packet's route holds, for each link, the link's id and, in the bits
// from vcShift up, the virtual channel it takes there (see channels): one
// load gives both, and a packet is no more than where its route is and
// where it is on it. The route lives in PacketNet.routes, named by its
// offset rather than by a slice, so that a packet is 32 bytes: two to a
// cache line, and none across two (at 48 bytes, half were), since a
// head's arrival, the model's commonest event, loads its packet from
// wherever the rest of the network left the cache.
type packet struct {
	tailIn Duration // when its tail is in the buffer it sits in
	route  int32    // offset of its route in PacketNet.routes: its own, or its message's where routing has no choice
	last   int32    // the route's last link: its length less one
	msg    int32
	size   int32
	hop    int32 // the route's link it waits for or crosses
	vc     uint8 // channel of the buffer it sits in
	nextVC uint8 // channel of the buffer at the far end of route[hop]
}

// routeArena keeps routes end to end in one array, each named by its
// offset; a freed route's place is reused by the next route of its
// length (a topology's routes have a few lengths), so the array grows to
// the most routes in flight at once and no further.
type routeArena struct {
	links []int32
	free  [][]int32 // by route length: offsets of freed routes
}

// add copies route into the arena and returns its offset. Offsets fit
// 32 bits: 2^31 entries in flight would be 8 GiB of routes, beyond the
// memory of any run whose packets the model could move.
func (a *routeArena) add(route []int32) int32 {
	n := len(route)
	if n < len(a.free) {
		if k := len(a.free[n]); k > 0 {
			off := a.free[n][k-1]
			a.free[n] = a.free[n][:k-1]
			copy(a.links[off:], route)
			return off
		}
	}
	off := int32(len(a.links))
	a.links = append(a.links, route...)
	return off
}

// release frees the route of n links at offset off.
func (a *routeArena) release(off, n int32) {
	for int(n) >= len(a.free) {
		a.free = append(a.free, nil)
	}
	a.free[n] = append(a.free[n], off)
}

// link returns route entry hop of packet p.
func (f *PacketNet) link(p *packet, hop int32) int32 {
	return f.routes.links[p.route+hop]
}

// A pktMsg is 64 bytes, one cache line: making a packet, starting it
// from its node and its arrival each read the message, each at a time
// when the rest of the network has moved it out of the cache. Hence node
// numbers in 32 bits (a topology's fit: see maxTopologyLinks) and the
// last packet's size rather than the message's.
type pktMsg struct {
	route     int32 // offset in PacketNet.routes of every packet's route, where routing has no choice (PacketNet.shared)
	last      int32 // that route's last link
	lastSize  int32 // bytes of its last packet; the others have the MTU
	token     int32
	a, b      int32    // from node a to node b
	next, npk int64    // packets made so far, of npk
	at        Duration // when it was sent
	hash      uint64   // the message's routing hash; each packet adds its number
	left      int64    // packets not yet on their last link
}

// Event kinds.
const (
	evInject  uint8 = iota // a: message: its packets enter the source's injection queue
	evHead                 // a: packet: its head reached the near end of route[hop]
	evLink                 // a: link: it is free again
	evCredit               // a: link, vc: channel: b bytes of credit are back
	evDeliver              // a: message: its last packet's tail reached its node
)

type pktEvent struct {
	kind uint8
	vc   uint8 // evCredit: a channel, so that its link needs no division
	a    int32
	b    int64
}

// NewPacketNet makes the packet model of platform p, which must have a
// topology. seed varies the per-packet hash of routings that spread
// packets over equal paths.
func NewPacketNet(p *Platform, seed uint64) *PacketNet {
	t := p.Topology
	f := &PacketNet{topo: t, seed: mix64(seed), mtu: p.Packet.MTU, nvc: 1}
	for c, bw := range [...]float64{t.HostBandwidth, t.Bandwidth, t.GlobalBandwidth} {
		f.psPerByte[c] = float64(Second) / bw
		f.txMTU[c] = f.txTime(uint8(c), f.mtu)
	}
	f.lat = [...]Duration{t.HostLatency, t.Latency, t.GlobalLatency}
	// Star and torus routes have no choice.
	f.shared = t.Kind == Star || t.Kind == Torus
	n := t.LinkCount()
	f.hostLinks = int32(2 * t.NodeCount())
	f.globalLinks = int32(n)
	switch t.Kind {
	case Torus:
		f.nvc = 2
		stride := int64(1)
		for _, d := range t.Dims {
			f.strides = append(f.strides, stride)
			stride *= int64(d)
		}
	case Dragonfly:
		f.nvc = maxVCs
		f.globalLinks = f.hostLinks + int32(t.Groups*t.Routers*t.Routers)
	}
	f.links = make([]pktLink, n)
	f.queues = make([]pktQueue, n*int(f.nvc))
	for i := range f.links {
		for v := range f.nvc {
			f.links[i].credits[v] = p.Packet.Buffer
		}
	}
	return f
}

func (f *PacketNet) class(l int32) uint8 {
	switch {
	case l < f.hostLinks:
		return hostLink
	case l >= f.globalLinks:
		return globalLink
	}
	return localLink
}

func (f *PacketNet) pkt(id int32) *packet {
	return &f.pkts[uint32(id)/flowChunk][uint32(id)%flowChunk]
}

// Latency returns the route latency from node a to node b: what a control
// message (no bytes) takes. It is 0 from a node to itself.
func (f *PacketNet) Latency(a, b int64) Duration {
	if a == b {
		return 0
	}
	if sum, ok := f.topo.routeLatency(a, b); ok {
		return sum
	}
	var buf [64]int32
	var sum Duration
	for _, l := range f.topo.Route(a, b, f.hash(a, b, 0), buf[:0]) {
		sum += f.lat[f.class(l)]
	}
	return sum
}

// hash is packet i's routing hash: consecutive packets of a message (i =
// the message's number times 2^20 plus the packet's) take different
// equal paths.
func (f *PacketNet) hash(a, b int64, i uint64) uint64 {
	return mix64(f.seed ^ uint64(a)*0x9e3779b97f4a7c15 ^ uint64(b)*0xc2b2ae3d27d4eb4f ^ i*0xd6e8feb86659fd93)
}

// Send starts a message of n bytes from node a to node b (a != b) at time
// at: its packets join a's injection queue then.
func (f *PacketNet) Send(at Duration, a, b int64, n int64, token int32) {
	var mid int32
	if k := len(f.freeM); k > 0 {
		mid = f.freeM[k-1]
		f.freeM = f.freeM[:k-1]
	} else {
		mid = int32(len(f.msgs))
		f.msgs = append(f.msgs, pktMsg{})
	}
	npk := max((n+f.mtu-1)/f.mtu, 1)
	m := &f.msgs[mid]
	*m = pktMsg{a: int32(a), b: int32(b), lastSize: int32(n - (npk-1)*f.mtu), npk: npk, left: npk,
		hash: uint64(f.stats.Messages) << 20, at: at, token: token}
	f.stats.Messages++
	f.stats.Bytes += n
	f.stats.Packets += npk
	if f.shared {
		m.route, m.last = f.addRoute(a, b, 0)
	}
	f.schedule(at, evInject, mid)
}

// nextPacket makes message mid's next packet, ready to join its
// injection queue. Packets are made one at a time, as the one before
// starts, so that a large message costs no more than its packets in the
// network.
func (f *PacketNet) nextPacket(mid int32) int32 {
	m := &f.msgs[mid]
	id := f.newPacket()
	p := f.pkt(id)
	if f.shared {
		p.route, p.last = m.route, m.last
	} else {
		a, b := int64(m.a), int64(m.b)
		p.route, p.last = f.addRoute(a, b, f.hash(a, b, m.hash+uint64(m.next)))
	}
	p.size = int32(f.mtu)
	if m.next == m.npk-1 {
		p.size = m.lastSize
	}
	p.msg, p.hop, p.vc, p.nextVC, p.tailIn = mid, 0, 0, 0, m.at
	f.stats.Hops += int64(p.last - 1)
	m.next++
	return id
}

// addRoute routes a packet from node a to node b by hash, marks its
// channels, and puts the route in the arena: it returns the route's
// offset and last link.
func (f *PacketNet) addRoute(a, b int64, hash uint64) (int32, int32) {
	f.route = f.topo.Route(a, b, hash, f.route[:0])
	f.channels(f.route)
	return f.routes.add(f.route), int32(len(f.route) - 1)
}

func (f *PacketNet) newPacket() int32 {
	if k := len(f.free); k > 0 {
		id := f.free[k-1]
		f.free = f.free[:k-1]
		return id
	}
	id := f.npkts
	if int(id/flowChunk) == len(f.pkts) {
		f.pkts = append(f.pkts, new([flowChunk]packet))
	}
	f.npkts++
	return id
}

func (f *PacketNet) schedule(at Duration, kind uint8, a int32) {
	f.events.push(at, pktEvent{kind: kind, a: a})
}

// Next returns the time of the model's next event, and false if nothing is
// in flight.
func (f *PacketNet) Next() (Duration, bool) { return f.events.first() }

// Step handles the events due at now, which is Next's time, and calls
// done with the token of each message whose last packet arrived, in the
// order they arrived.
func (f *PacketNet) Step(now Duration, done func(token int32)) {
	f.done = f.done[:0]
	f.now = now
	// The bucket's events are read afresh after each, as handling one
	// may push more to it (and move it); calling handle directly rather
	// than through a func value saves an indirect call an event.
	for at, ok := f.events.first(); ok && at <= now; at, ok = f.events.first() {
		for i := 0; i < len(f.events.front()); i++ {
			f.handle(f.events.front()[i])
		}
		f.events.discard()
	}
	for _, tok := range f.done {
		done(tok)
	}
}

// handle carries out event e at f.now.
func (f *PacketNet) handle(e pktEvent) {
	now := f.now
	switch e.kind {
	case evInject:
		id := f.nextPacket(e.a)
		p := f.pkt(id)
		f.enqueue(id, p)
		f.tryStart(linkOf(f.link(p, 0)), now)
	case evHead:
		f.arrive(e.a, now)
	case evLink:
		f.links[e.a].woken = false
		f.tryStart(e.a, now)
	case evCredit:
		f.links[e.a].credits[e.vc] += e.b
		f.tryStart(e.a, now)
	case evDeliver:
		m := &f.msgs[e.a]
		f.done = append(f.done, m.token)
		if f.shared {
			f.routes.release(m.route, m.last+1)
		}
		f.freeM = append(f.freeM, e.a)
	}
}

// arrive handles packet id's head reaching the near end of route[hop]: it
// joins the link's output queue and the link starts what it may. A packet
// that finds all the link's queues empty and the credit it needs there
// starts at once, as tryStart would start it, without going through the
// queue: on a link that one message's packets follow one another over,
// most do.
func (f *PacketNet) arrive(id int32, now Duration) {
	p := f.pkt(id)
	r := f.link(p, p.hop)
	l, vc := linkOf(r), r>>vcShift
	if lk := &f.links[l]; lk.queued == 0 && lk.credits[vc] >= int64(p.need()) {
		p.nextVC = uint8(vc)
		f.seq++ // the place it would have had in the queue
		f.start(l, id, p, max(now, lk.freeAt))
		return
	}
	f.enqueue(id, p)
	f.tryStart(l, now)
}

// enqueue puts packet id, p, in the output queue of route[hop], on the
// virtual channel it will take there.
func (f *PacketNet) enqueue(id int32, p *packet) {
	r := f.link(p, p.hop)
	p.nextVC = uint8(r >> vcShift)
	l := linkOf(r)
	q := &f.queues[l*f.nvc+int32(p.nextVC)]
	q.items = append(q.items, queued{f.seq, id, p.need()})
	f.links[l].queued++
	f.seq++
}

// need returns the bytes of credit p needs at the far end of route[hop].
func (p *packet) need() int32 {
	if p.hop == p.last {
		return 0 // a node's memory is unlimited
	}
	return p.size
}

// maxVCs is the most virtual channels a link has (a dragonfly's).
const maxVCs = 3

// Route entries: a link id below 2^vcShift and its virtual channel
// above.
const vcShift = 28

// Every link id fits below the channel bits.
var _ [1<<vcShift - maxTopologyLinks]struct{}

func linkOf(r int32) int32 { return r & (1<<vcShift - 1) }

// channels marks on each link of route the virtual channel taken there
// (see the top of this file); where links have one channel, 0 everywhere,
// route stays as it is.
func (f *PacketNet) channels(route []int32) {
	if f.nvc == 1 {
		return
	}
	// The injection link's buffer has one channel, as has a node's
	// memory at the end: their entries keep channel 0.
	vc := int32(0)
	nd := int32(len(f.topo.Dims))
	for i := 1; i < len(route)-1; i++ {
		l, prev := route[i], linkOf(route[i-1])
		if f.topo.Kind == Dragonfly {
			if prev >= f.globalLinks {
				vc++
			}
			route[i] |= vc << vcShift
			continue
		}
		// A torus link: base + (r*dims + d)*2 + dir.
		j := l - f.hostLinks
		dir, d, r := j%2, j/2%nd, int64(j/2/nd)
		if prev < f.hostLinks || (prev-f.hostLinks)/2%nd != d {
			vc = 0 // a new ring
		}
		n := int64(f.topo.Dims[d])
		if c := r / f.strides[d] % n; dir == 0 && c == n-1 || dir == 1 && c == 0 {
			vc = 1 // the dateline
		}
		route[i] |= vc << vcShift
	}
}

// tryStart starts packets on link l: the earliest queued of the channels'
// heads that has credit for the buffer it goes to, at now if the link is
// free. If the link is busy, the earliest queued head is the one to go
// when it frees (credit only comes back in the meantime, and packets
// queued later are later), so it is started then at once, if it has
// credit, saving the link a wake-up; else the link wakes when free. A link
// whose heads all lack credit waits for credit to come back.
func (f *PacketNet) tryStart(l int32, now Duration) {
	lk := &f.links[l]
	if lk.queued == 0 {
		return
	}
	qs := f.queues[l*f.nvc : (l+1)*f.nvc]
	for {
		busy := lk.freeAt > now
		best, bestSeq, ready := -1, uint64(math.MaxUint64), false
		for v := range qs {
			q := &qs[v]
			if int(q.head) == len(q.items) {
				continue
			}
			e := &q.items[q.head]
			if e.seq >= bestSeq {
				continue
			}
			ok := lk.credits[v] >= int64(e.need)
			if ok || busy {
				best, bestSeq, ready = v, e.seq, ok
			}
		}
		if best < 0 {
			return
		}
		if !ready {
			if !lk.woken {
				lk.woken = true
				f.schedule(lk.freeAt, evLink, l)
			}
			return
		}
		q := &qs[best]
		id := q.items[q.head].id
		p := f.pkt(id)
		if m := &f.msgs[p.msg]; p.hop == 0 && m.next < m.npk {
			// The message's next packet takes its place in the
			// injection queue.
			next := f.nextPacket(p.msg)
			q.items[q.head] = queued{bestSeq, next, f.pkt(next).need()}
		} else {
			lk.queued--
			if q.head++; int(q.head) == len(q.items) {
				q.items, q.head = q.items[:0], 0
			}
		}
		f.start(l, id, p, max(now, lk.freeAt))
	}
}

// start sends packet id, p, onto link l at now, which may be later than
// the current time (see tryStart).
func (f *PacketNet) start(l, id int32, p *packet, now Duration) {
	c := f.class(l)
	size := int64(p.size)
	tx := f.txMTU[c]
	if size != f.mtu {
		tx = f.txTime(c, size)
	}
	txEnd := max(now+tx, p.tailIn)
	lk := &f.links[l]
	lk.freeAt = txEnd
	lk.bytes += size
	if p.hop > 0 {
		// Its tail leaves the buffer it sat in at txEnd; the credit
		// reaches the port upstream a link latency later.
		prev := linkOf(f.link(p, p.hop-1))
		f.events.push(txEnd+f.lat[f.class(prev)], pktEvent{kind: evCredit, vc: p.vc, a: prev, b: size})
	}
	p.tailIn = txEnd + f.lat[c]
	if p.hop == p.last {
		// Every packet of a message ends on its destination's own
		// link, which sends one at a time, so the last to start there
		// is the last in, and the message is delivered with it: one
		// event, scheduled when that packet's own would have been, so
		// same-time deliveries keep their order. The packet needs no
		// more than that.
		f.free = append(f.free, id)
		if !f.shared {
			f.routes.release(p.route, p.last+1)
		}
		m := &f.msgs[p.msg]
		if m.left--; m.left == 0 {
			f.schedule(p.tailIn, evDeliver, p.msg)
		}
		return
	}
	lk.credits[p.nextVC] -= size
	p.vc = p.nextVC
	p.hop++
	f.schedule(now+f.lat[c], evHead, id)
}

// txTime returns how long a packet of size bytes holds a link of class c;
// all but a message's last packet take the class's txMTU, worked out once.
func (f *PacketNet) txTime(c uint8, size int64) Duration {
	return Duration(float64(size)*f.psPerByte[c] + 0.5)
}

// Stats returns the run's totals so far.
func (f *PacketNet) Stats() NetStats { return f.stats }

// LinkBytes returns the bytes that crossed each link so far, by link id.
func (f *PacketNet) LinkBytes() []int64 {
	out := make([]int64, len(f.links))
	for i := range f.links {
		out[i] = f.links[i].bytes
	}
	return out
}
