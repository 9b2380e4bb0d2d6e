package netmodel

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Topologies
//
// A topology is the switches and links between a flow model's nodes. Every
// link is one direction of a cable and has a bandwidth and a latency. Node
// p owns links 2p (its injection link, to its switch or router) and 2p+1
// (its ejection link, back from it); the links between switches follow,
// numbered by kind as the comments below say. A route is the list of link
// ids a message crosses, always from the source's injection link to the
// destination's ejection link, so its hops (links between switches or
// routers, which is what packet simulators such as CODES count) are its
// length minus two.
//
//	[network.topology]
//	kind = "torus"                  # star, torus, fattree or dragonfly
//	dims = [4, 4, 4]                # torus: nodes along each axis
//	bandwidth = "12.5GB/s"          # every link's
//	latency = "100ns"               # every link's
//	host_bandwidth = "12.5GB/s"     # a node's own links; default bandwidth
//	host_latency = "0"              # default latency
//
// star: nodes = N, one switch. torus: dims, dimension-order routing
// ("dimension-order"). fattree: k (ports down and up per switch) and n
// (levels): a k-ary n-tree of k^n nodes, up/down routing ("updown") that
// picks each up port by a hash of the flow's ends. dragonfly: groups,
// routers (per group), hosts (per router), global_links (per router),
// global_bandwidth and global_latency (default bandwidth and latency);
// routing "minimal" or "valiant". nodes, if given, must equal the nodes the
// shape makes.

// TopologyKind names a topology's shape.
type TopologyKind uint8

// Topology kinds.
const (
	Star TopologyKind = iota
	Torus
	FatTree
	Dragonfly
)

var topologyNames = [...]string{Star: "star", Torus: "torus", FatTree: "fattree", Dragonfly: "dragonfly"}

func (k TopologyKind) String() string { return topologyNames[k] }

// routings lists the routings each kind accepts; the first is its default.
var routings = [...][]string{
	Star:      {"direct"},
	Torus:     {"dimension-order"},
	FatTree:   {"updown"},
	Dragonfly: {"minimal", "valiant"},
}

// Topology is a network of switches or routers joining a platform's nodes.
type Topology struct {
	Kind    TopologyKind
	Routing string // one of the kind's routings; "" before reading means the default

	Nodes int64 // star: the node count; for the others, derived (see Validate)

	Dims []int // torus: nodes along each axis, x first

	K, N int // fattree: k-ary n-tree

	Groups, Routers, Hosts, GlobalLinks int // dragonfly: per system, group, router, router

	Bandwidth       float64  // bytes per second of the links between switches
	Latency         Duration // of the links between switches
	HostBandwidth   float64  // of a node's own two links
	HostLatency     Duration
	GlobalBandwidth float64 // dragonfly: of the links between groups
	GlobalLatency   Duration
}

// Link classes: which bandwidth and latency a link has.
const (
	hostLink uint8 = iota
	localLink
	globalLink
)

// NodeCount returns the number of nodes the topology joins.
func (t *Topology) NodeCount() int64 {
	switch t.Kind {
	case Torus:
		n := int64(1)
		for _, d := range t.Dims {
			if d > 0 && n > math.MaxInt64/int64(d) {
				return math.MaxInt64
			}
			n *= int64(d)
		}
		return n
	case FatTree:
		return ipow(t.K, t.N)
	case Dragonfly:
		return int64(t.Groups) * int64(t.Routers) * int64(t.Hosts)
	}
	return t.Nodes
}

// ipow returns k^n, saturating at math.MaxInt64.
func ipow(k, n int) int64 {
	r := int64(1)
	for range n {
		if r > math.MaxInt64/int64(k) {
			return math.MaxInt64
		}
		r *= int64(k)
	}
	return r
}

// LinkCount returns the number of (one-way) links.
func (t *Topology) LinkCount() int {
	n := 2 * int(t.NodeCount())
	switch t.Kind {
	case Torus:
		n += 2 * len(t.Dims) * int(t.NodeCount())
	case FatTree:
		n += 2 * (t.N - 1) * int(ipow(t.K, t.N-1)) * t.K
	case Dragonfly:
		n += t.Groups*t.Routers*t.Routers + t.Groups*t.Routers*t.GlobalLinks
	}
	return n
}

// maxTopologyLinks bounds a topology's links, so that a typo in a size
// cannot ask for terabytes.
const maxTopologyLinks = 1 << 28

// Validate reports the first problem with the topology, naming the field
// as a platform file does.
func (t *Topology) Validate() error {
	const f = "network.topology."
	positive := func(key string, v int) error {
		if v < 1 {
			return fieldError(f+key, fmt.Errorf("%d is less than 1", v))
		}
		return nil
	}
	switch t.Kind {
	case Star:
		if t.Nodes < 1 {
			return fieldError(f+"nodes", fmt.Errorf("%d is less than 1; a star needs its node count", t.Nodes))
		}
	case Torus:
		if len(t.Dims) == 0 {
			return fieldError(f+"dims", errors.New("missing; a torus needs its size along each axis, e.g. [4, 4, 4]"))
		}
		for i, d := range t.Dims {
			if d < 1 {
				return fieldError(fmt.Sprintf("%sdims[%d]", f, i), fmt.Errorf("%d is less than 1", d))
			}
		}
	case FatTree:
		if err := positive("n", t.N); err != nil {
			return err
		}
		if t.K < 2 {
			return fieldError(f+"k", fmt.Errorf("%d is less than 2", t.K))
		}
	case Dragonfly:
		for _, v := range []struct {
			key string
			v   int
		}{{"groups", t.Groups}, {"routers", t.Routers}, {"hosts", t.Hosts}, {"global_links", t.GlobalLinks}} {
			if err := positive(v.key, v.v); err != nil {
				return err
			}
		}
		if t.Groups > 1 && t.Routers*t.GlobalLinks < t.Groups-1 {
			return fieldError(f+"global_links", fmt.Errorf("%d routers x %d global links make %d links out of a group, fewer than the %d other groups; raise global_links or routers",
				t.Routers, t.GlobalLinks, t.Routers*t.GlobalLinks, t.Groups-1))
		}
	default:
		return fieldError(f+"kind", fmt.Errorf("%d is not a topology", t.Kind))
	}
	if !slices.Contains(routings[t.Kind], t.Routing) {
		return fieldError(f+"routing", fmt.Errorf("%q is not a routing of a %v (use %s)", t.Routing, t.Kind, strings.Join(routings[t.Kind], " or ")))
	}
	if n := t.NodeCount(); n > maxTopologyLinks || t.LinkCount() > maxTopologyLinks || t.LinkCount() < 0 {
		return fieldError(f+"kind", fmt.Errorf("the %v has more than %d links; Parley cannot hold it", t.Kind, maxTopologyLinks))
	}
	for _, b := range []struct {
		key string
		v   float64
	}{{"bandwidth", t.Bandwidth}, {"host_bandwidth", t.HostBandwidth}, {"global_bandwidth", t.GlobalBandwidth}} {
		if !isPositive(b.v) {
			return fieldError(f+b.key, fmt.Errorf("%g B/s is not a positive bandwidth", b.v))
		}
	}
	for _, l := range []struct {
		key string
		v   Duration
	}{{"latency", t.Latency}, {"host_latency", t.HostLatency}, {"global_latency", t.GlobalLatency}} {
		if l.v < 0 || l.v > MaxTime/64 {
			return fieldError(f+l.key, fmt.Errorf("%v is out of range", l.v))
		}
	}
	return nil
}

// readTopology reads a [network.topology] table.
func readTopology(s *tomlSection) *Topology {
	t := &Topology{}
	s.require("kind", "bandwidth", "latency")
	var kind string
	s.str("kind", &kind)
	if i := slices.Index(topologyNames[:], kind); i >= 0 {
		t.Kind = TopologyKind(i)
	} else if kind != "" {
		s.r.fail(s.field("kind"), fmt.Errorf("%q is not a topology (use %s)", kind, strings.Join(topologyNames[:], ", ")))
	}
	t.Routing = routings[t.Kind][0]
	s.str("routing", &t.Routing)
	var nodes int
	s.integer("nodes", &nodes)
	t.Nodes = int64(nodes)
	switch t.Kind {
	case Star:
		s.require("nodes")
	case Torus:
		s.require("dims")
		s.ints("dims", &t.Dims)
	case FatTree:
		s.require("k", "n")
		s.integer("k", &t.K)
		s.integer("n", &t.N)
	case Dragonfly:
		s.require("groups", "routers", "hosts", "global_links")
		s.integer("groups", &t.Groups)
		s.integer("routers", &t.Routers)
		s.integer("hosts", &t.Hosts)
		s.integer("global_links", &t.GlobalLinks)
	}
	quantity(s, "bandwidth", ParseBandwidth, &t.Bandwidth)
	quantity(s, "latency", ParseDuration, &t.Latency)
	t.HostBandwidth, t.HostLatency = t.Bandwidth, t.Latency
	t.GlobalBandwidth, t.GlobalLatency = t.Bandwidth, t.Latency
	quantity(s, "host_bandwidth", ParseBandwidth, &t.HostBandwidth)
	quantity(s, "host_latency", ParseDuration, &t.HostLatency)
	if t.Kind == Dragonfly {
		quantity(s, "global_bandwidth", ParseBandwidth, &t.GlobalBandwidth)
		quantity(s, "global_latency", ParseDuration, &t.GlobalLatency)
	}
	s.close()
	// nodes, where the shape fixes it, must agree with the shape.
	if t.Kind != Star && nodes != 0 && s.r.err == nil {
		if made := t.NodeCount(); made != int64(nodes) {
			what := map[TopologyKind]string{Torus: fmt.Sprintf("dims %v make", t.Dims), FatTree: fmt.Sprintf("a %d-ary %d-tree has", t.K, t.N),
				Dragonfly: fmt.Sprintf("%d groups x %d routers x %d hosts make", t.Groups, t.Routers, t.Hosts)}[t.Kind]
			s.r.fail(s.field("nodes"), fmt.Errorf("%s %d nodes, not %d", what, made, nodes))
		}
	}
	return t
}

// linkClass says which bandwidth and latency link id has.
func (t *Topology) linkClass(id int32) uint8 {
	n := 2 * t.NodeCount()
	switch {
	case int64(id) < n:
		return hostLink
	case t.Kind == Dragonfly && int64(id) >= n+int64(t.Groups*t.Routers*t.Routers):
		return globalLink
	}
	return localLink
}

// LinkBandwidth returns the bandwidth of link id in bytes per second.
func (t *Topology) LinkBandwidth(id int32) float64 {
	return [...]float64{t.HostBandwidth, t.Bandwidth, t.GlobalBandwidth}[t.linkClass(id)]
}

// LinkLatency returns the latency of link id.
func (t *Topology) LinkLatency(id int32) Duration {
	return [...]Duration{t.HostLatency, t.Latency, t.GlobalLatency}[t.linkClass(id)]
}

// LinkName describes link id for people: "node 3 up", "torus (1,0,2) +y".
func (t *Topology) LinkName(id int32) string {
	nodes := t.NodeCount()
	if int64(id) < 2*nodes {
		return fmt.Sprintf("node %d %s", id/2, [2]string{"up", "down"}[id%2])
	}
	i := int(int64(id) - 2*nodes)
	switch t.Kind {
	case Torus:
		dir, i := i%2, i/2
		d, r := i%len(t.Dims), i/len(t.Dims)
		c := make([]string, len(t.Dims))
		for j, n := range t.Dims {
			c[j] = fmt.Sprint(r % n)
			r /= n
		}
		axis := string("xyzuvw"[d%6])
		if d >= 6 {
			axis = fmt.Sprintf("d%d", d)
		}
		return fmt.Sprintf("torus (%s) %s%s", strings.Join(c, ","), [2]string{"+", "-"}[dir], axis)
	case FatTree:
		dir, i := i%2, i/2
		port, i := i%t.K, i/t.K
		s, l := i%int(ipow(t.K, t.N-1)), i/int(ipow(t.K, t.N-1))
		if dir == 0 {
			return fmt.Sprintf("fattree level %d switch %d up port %d", l, s, port)
		}
		return fmt.Sprintf("fattree level %d switch %d down from port %d", l, s, port)
	case Dragonfly:
		a := t.Routers
		if local := t.Groups * a * a; i < local {
			g, r1, r2 := i/(a*a), i/a%a, i%a
			return fmt.Sprintf("dragonfly group %d router %d -> %d", g, r1, r2)
		} else {
			i -= local
			per := a * t.GlobalLinks
			return fmt.Sprintf("dragonfly group %d global port %d", i/per, i%per)
		}
	}
	return fmt.Sprintf("link %d", id)
}

// mix64 is splitmix64's finaliser: a cheap, well-spread hash.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Route appends to buf the links a message crosses from node src to node
// dst (src != dst) and returns it. hash picks among equal paths (a fat
// tree's up ports, a dragonfly's global links and Valiant's intermediate
// group): the same hash gives the same route.
func (t *Topology) Route(src, dst int64, hash uint64, buf []int32) []int32 {
	buf = append(buf, int32(2*src))
	base := 2 * t.NodeCount()
	switch t.Kind {
	case Torus:
		buf = t.torusRoute(src, dst, base, buf)
	case FatTree:
		buf = t.fatTreeRoute(src, dst, base, hash, buf)
	case Dragonfly:
		buf = t.dragonflyRoute(src, dst, base, hash, buf)
	}
	return append(buf, int32(2*dst+1))
}

// routeLatency returns the sum of the latencies of the links a message
// crosses from node src to node dst (src != dst), and false where it
// depends on the route hashed (a dragonfly's mix of local and global
// links): a star's, a torus's and a fat tree's routes cross two host
// links and hops links between switches, and only the hop count needs
// working out. Control messages ask for it once or twice per message, so
// it does not build the route.
func (t *Topology) routeLatency(src, dst int64) (Duration, bool) {
	var hops int64
	switch t.Kind {
	case Torus:
		for _, size := range t.Dims {
			n := int64(size)
			fwd := dst%n - src%n
			if fwd < 0 {
				fwd += n
			}
			hops += min(fwd, n-fwd)
			src, dst = src/n, dst/n
		}
	case FatTree:
		k := int64(t.K)
		for p := k; src/p != dst/p; p *= k {
			hops += 2
		}
	case Dragonfly:
		return 0, false
	}
	return 2*t.HostLatency + Duration(hops)*t.Latency, true
}

// torusRoute routes dimension by dimension, x first, each the shorter way
// round (the positive way on a tie). Router r's link along dimension d in
// direction dir (0 positive, 1 negative) is base + (r*dims + d)*2 + dir.
func (t *Topology) torusRoute(src, dst, base int64, buf []int32) []int32 {
	nd := int64(len(t.Dims))
	cur := src // the router reached so far
	stride := int64(1)
	// qs and qd drop a coordinate of src and of dst per dimension: one
	// division gives both the coordinate and the rest (cur agrees with
	// src in the dimensions not yet routed).
	qs, qd := src, dst
	for d, size := range t.Dims {
		n := int64(size)
		a, b := qs%n, qd%n
		qs, qd = qs/n, qd/n
		fwd := b - a
		if fwd < 0 {
			fwd += n
		}
		// Each step moves cur by one stride along d, or back across the
		// ring's wrap-around; the coordinate a follows without dividing.
		step, wrap, steps, dir := stride, 1-n, fwd, int64(0)
		if fwd > n/2 {
			step, wrap, steps, dir = -stride, n-1, n-fwd, 1
		}
		link := base + int64(d)*2 + dir
		for range steps {
			buf = append(buf, int32(link+cur*nd*2))
			if dir == 0 && a == n-1 || dir == 1 && a == 0 {
				cur += wrap * stride
				a += wrap
			} else {
				cur += step
				a += 1 - 2*dir
			}
		}
		stride *= n
	}
	return buf
}

// fatTreeRoute routes up to the lowest common ancestors of the two nodes'
// leaf switches and down again. Switches are (level l, index s) with
// k^(n-1) per level; s's base-k digits below l are the up ports taken, and
// those from l on name the subtree, so (l, s) reaches the nodes whose leaf
// switch agrees with s in digits l and up. Switch (l, s)'s up port j leads
// to (l+1, s with digit l set to j); that link is base + ((l*S + s)*k +
// j)*2, and the way back down is the same plus one.
func (t *Topology) fatTreeRoute(src, dst, base int64, hash uint64, buf []int32) []int32 {
	k := int64(t.K)
	S := ipow(t.K, t.N-1)
	ls, ld := src/k, dst/k
	// top is the level of the common ancestors: the least l with the
	// leaves' digits from l on equal.
	top := 0
	for p := int64(1); ls/p != ld/p; p *= k {
		top++
	}
	link := func(l int, s, j int64) int64 { return base + ((int64(l)*S+s)*k+j)*2 }
	s, p := ls, int64(1)
	for l := range top {
		j := int64(mix64(hash+uint64(l)*0x9e3779b97f4a7c15) % uint64(k))
		buf = append(buf, int32(link(l, s, j)))
		s += (j - s/p%k) * p
		p *= k
	}
	for l := top - 1; l >= 0; l-- {
		p /= k
		// Down from (l+1, s) to (l, s') where s' takes dst's digit l:
		// that is the link up from (l, s') by port s's digit l.
		j := s / p % k
		s += (ld/p%k - j) * p
		buf = append(buf, int32(link(l, s, j)+1))
	}
	return buf
}

// dragonflyRoute routes between groups over one global link (minimal) or
// through an intermediate group chosen by hash (Valiant), with a local hop
// in a group wherever the router reached is not the one wanted. Routers
// in a group are all joined: group g's link from router a to router b is
// base + (g*A + a)*A + b. Group g's global port m (at router m / H) leads
// to group (g + 1 + m mod (G-1)) mod G; those links follow the local ones.
func (t *Topology) dragonflyRoute(src, dst, base int64, hash uint64, buf []int32) []int32 {
	A, H, G := int64(t.Routers), int64(t.GlobalLinks), int64(t.Groups)
	rs, rd := src/int64(t.Hosts), dst/int64(t.Hosts)
	local := func(g, a, b int64, buf []int32) []int32 {
		if a == b {
			return buf
		}
		return append(buf, int32(base+(g*A+a)*A+b))
	}
	globalBase := base + G*A*A
	// hop goes from router r (global number) to group g2 and returns the
	// router reached there.
	hop := func(r, g2 int64, h uint64, buf []int32) (int64, []int32) {
		g1 := r / A
		d := (g2 - g1 - 1 + G) % G     // the port offset towards g2
		dBack := (g1 - g2 - 1 + G) % G // g2's offset towards g1
		// Ports d + c(G-1) all lead to g2; pick one of those both ends have.
		count := min((A*H-1-d)/(G-1), (A*H-1-dBack)/(G-1)) + 1
		c := int64(h % uint64(count))
		m, mBack := d+c*(G-1), dBack+c*(G-1)
		buf = local(g1, r%A, m/H, buf)
		buf = append(buf, int32(globalBase+g1*A*H+m))
		return g2*A + mBack/H, buf
	}
	gs, gd := rs/A, rd/A
	r := rs
	if gs != gd {
		h := mix64(hash)
		if t.Routing == "valiant" && G > 2 {
			// An intermediate group other than the two ends.
			gi := int64(h % uint64(G-2))
			for _, g := range [...]int64{min(gs, gd), max(gs, gd)} {
				if gi >= g {
					gi++
				}
			}
			r, buf = hop(r, gi, h>>32, buf)
			h = mix64(h)
		}
		r, buf = hop(r, gd, h>>32, buf)
	}
	return local(gd, r%A, rd%A, buf)
}

// String describes the topology's shape: "star of 64 nodes", "torus
// 4x4x4", "fattree 4-ary 3-tree", "dragonfly 9 groups x 4 routers x 2
// hosts".
func (t *Topology) String() string {
	switch t.Kind {
	case Torus:
		dims := make([]string, len(t.Dims))
		for i, d := range t.Dims {
			dims[i] = fmt.Sprint(d)
		}
		return "torus " + strings.Join(dims, "x")
	case FatTree:
		return fmt.Sprintf("fattree %d-ary %d-tree", t.K, t.N)
	case Dragonfly:
		return fmt.Sprintf("dragonfly %d groups x %d routers x %d hosts, %s routing", t.Groups, t.Routers, t.Hosts, t.Routing)
	}
	return fmt.Sprintf("star of %d nodes", t.Nodes)
}
