package netmodel

import (
	"fmt"
	"strings"
	"testing"
)

// vertex is a node or a switch, for checking that routes are paths.
type vertex struct {
	sw  bool
	idx int64
}

// ends returns the two ends of link id, derived from the numbering the
// comments in topology.go give, independently of Route: a route is right
// if each link starts where the one before it ended.
func ends(t *Topology, id int32) (from, to vertex) {
	nodes := t.NodeCount()
	if int64(id) < 2*nodes {
		p := int64(id / 2)
		var sw int64
		switch t.Kind {
		case Torus:
			sw = p
		case FatTree:
			sw = p / int64(t.K) // level 0
		case Dragonfly:
			sw = p / int64(t.Hosts)
		}
		if id%2 == 0 {
			return vertex{false, p}, vertex{true, sw}
		}
		return vertex{true, sw}, vertex{false, p}
	}
	i := int64(id) - 2*nodes
	switch t.Kind {
	case Torus:
		dir, i := i%2, i/2
		nd := int64(len(t.Dims))
		d, r := i%nd, i/nd
		stride := int64(1)
		for _, n := range t.Dims[:d] {
			stride *= int64(n)
		}
		n := int64(t.Dims[d])
		c := r / stride % n
		next := (c + 1) % n
		if dir == 1 {
			next = (c + n - 1) % n
		}
		return vertex{true, r}, vertex{true, r + (next-c)*stride}
	case FatTree:
		k := int64(t.K)
		S := ipow(t.K, t.N-1)
		dir, i := i%2, i/2
		j, i := i%k, i/k
		s, l := i%S, i/S
		p := ipow(t.K, int(l))
		up := vertex{true, (l+1)*S + s + (j-s/p%k)*p}
		lo := vertex{true, l*S + s}
		if dir == 0 {
			return lo, up
		}
		return up, lo
	case Dragonfly:
		A, H, G := int64(t.Routers), int64(t.GlobalLinks), int64(t.Groups)
		if i < G*A*A {
			g, a, b := i/(A*A), i/A%A, i%A
			return vertex{true, g*A + a}, vertex{true, g*A + b}
		}
		i -= G * A * A
		g, m := i/(A*H), i%(A*H)
		g2 := (g + 1 + m%(G-1)) % G
		back := (g-g2-1+G)%G + m/(G-1)*(G-1)
		return vertex{true, g*A + m/H}, vertex{true, g2*A + back/H}
	}
	return vertex{true, 0}, vertex{true, 0}
}

// checkRoutes checks every route between distinct nodes: it is a path of
// distinct links from src to dst, and hops says how long it must be.
func checkRoutes(t *testing.T, topo *Topology, hops func(src, dst int64, route []int32) error) {
	t.Helper()
	if err := topo.Validate(); err != nil {
		t.Fatal(err)
	}
	n := topo.NodeCount()
	links := topo.LinkCount()
	// A copy whose link classes have latencies of their own, so that a
	// route latency counting the wrong links cannot come out right.
	timed := *topo
	timed.HostLatency, timed.Latency, timed.GlobalLatency = 350, 100, 1000
	for src := range n {
		for dst := range n {
			if src == dst {
				continue
			}
			route := topo.Route(src, dst, mix64(uint64(src*n+dst)), nil)
			at := vertex{false, src}
			seen := map[int32]bool{}
			for _, l := range route {
				if l < 0 || int(l) >= links {
					t.Fatalf("%v: route %d -> %d = %v: link %d out of range (%d links)", topo, src, dst, route, l, links)
				}
				from, to := ends(topo, l)
				if from != at || seen[l] {
					t.Fatalf("%v: route %d -> %d = %v is not a path at link %d (%s)", topo, src, dst, route, l, topo.LinkName(l))
				}
				seen[l] = true
				at = to
			}
			if at != (vertex{false, dst}) {
				t.Fatalf("%v: route %d -> %d = %v ends at %v", topo, src, dst, route, at)
			}
			var sum Duration
			for _, l := range route {
				sum += timed.LinkLatency(l)
			}
			if got, ok := timed.routeLatency(src, dst); ok != (topo.Kind != Dragonfly) || ok && got != sum {
				t.Fatalf("%v: route %d -> %d = %v: routeLatency %d, %v; want %d, %v", topo, src, dst, route, got, ok, sum, topo.Kind != Dragonfly)
			}
			if err := hops(src, dst, route); err != nil {
				t.Fatalf("%v: route %d -> %d = %v: %v", topo, src, dst, route, err)
			}
		}
	}
}

func baseTopology(kind TopologyKind) Topology {
	return Topology{Kind: kind, Routing: routings[kind][0], Bandwidth: 1e9, HostBandwidth: 1e9, GlobalBandwidth: 1e9}
}

func TestTorusRoutes(t *testing.T) {
	for _, dims := range [][]int{{4, 4, 4}, {5, 2, 3}, {1, 7}, {2, 2, 2, 2}} {
		topo := baseTopology(Torus)
		topo.Dims = dims
		checkRoutes(t, &topo, func(src, dst int64, route []int32) error {
			// Dimension-order routing is minimal: the hops are the sum of
			// the distances round each ring.
			want, a, b := int64(0), src, dst
			for _, n := range dims {
				d := (b%int64(n) - a%int64(n) + int64(n)) % int64(n)
				want += min(d, int64(n)-d)
				a, b = a/int64(n), b/int64(n)
			}
			if got := int64(len(route) - 2); got != want {
				return fmt.Errorf("%d hops, want %d", got, want)
			}
			return nil
		})
	}
}

func TestFatTreeRoutes(t *testing.T) {
	for _, kn := range [][2]int{{2, 3}, {4, 2}, {3, 3}, {2, 1}} {
		topo := baseTopology(FatTree)
		topo.K, topo.N = kn[0], kn[1]
		checkRoutes(t, &topo, func(src, dst int64, route []int32) error {
			// Up to the level where the nodes' leaf switches agree on
			// every digit above, and down again.
			top := 0
			for p := int64(topo.K); src/p != dst/p; p *= int64(topo.K) {
				top++
			}
			if got := len(route) - 2; got != 2*top {
				return fmt.Errorf("%d hops, want %d", got, 2*top)
			}
			return nil
		})
	}
}

func TestDragonflyRoutes(t *testing.T) {
	for _, routing := range []string{"minimal", "valiant"} {
		for _, shape := range [][4]int{{5, 2, 2, 2}, {9, 4, 1, 2}, {4, 3, 2, 3}, {1, 3, 2, 1}} {
			topo := baseTopology(Dragonfly)
			topo.Routing = routing
			topo.Groups, topo.Routers, topo.Hosts, topo.GlobalLinks = shape[0], shape[1], shape[2], shape[3]
			perGroup := int64(topo.Routers * topo.Hosts)
			checkRoutes(t, &topo, func(src, dst int64, route []int32) error {
				globals := 0
				for _, l := range route {
					if topo.linkClass(l) == globalLink {
						globals++
					}
				}
				want := 0
				if src/perGroup != dst/perGroup {
					want = 1
					if routing == "valiant" && topo.Groups > 2 {
						want = 2
					}
				}
				if globals != want || len(route)-2 > 2*want+1 {
					return fmt.Errorf("%d global links in %d hops, want %d and at most %d hops", globals, len(route)-2, want, 2*want+1)
				}
				return nil
			})
		}
	}
}

func TestStarRoutes(t *testing.T) {
	topo := baseTopology(Star)
	topo.Nodes = 5
	if got := topo.Route(3, 1, 0, nil); len(got) != 2 || got[0] != 6 || got[1] != 3 {
		t.Errorf("star route 3 -> 1 = %v, want [6 3]", got)
	}
	topo.HostLatency = 350
	if got, ok := topo.routeLatency(3, 1); !ok || got != 700 {
		t.Errorf("star route latency 3 -> 1 = %d, %v; want 700, true", got, ok)
	}
}

// TestTopologyErrors: bad topologies are errors naming the file and the
// field.
func TestTopologyErrors(t *testing.T) {
	const head = "name = \"t\"\n[network]\nmodel = \"flow\"\no = \"1us\"\ng = \"0\"\n[machine]\n[[machine.nodes]]\nname = \"n\"\nflops = 1e9\nmemory_bandwidth = \"1GB/s\"\n[network.topology]\n"
	for _, c := range []struct{ topo, want string }{
		{`kind = "ring"` + "\nbandwidth = \"1GB/s\"\nlatency = \"1us\"", `t.toml: network.topology.kind: "ring" is not a topology (use star, torus, fattree, dragonfly)`},
		{`kind = "torus"` + "\ndims = [4, 4]\nrouting = \"adaptive\"\nbandwidth = \"1GB/s\"\nlatency = \"1us\"", `t.toml: network.topology.routing: "adaptive" is not a routing of a torus (use dimension-order)`},
		{`kind = "torus"` + "\ndims = [4, 4, 4]\nnodes = 60\nbandwidth = \"1GB/s\"\nlatency = \"1us\"", `t.toml: network.topology.nodes: dims [4 4 4] make 64 nodes, not 60`},
		{`kind = "torus"` + "\ndims = [4, 0]\nbandwidth = \"1GB/s\"\nlatency = \"1us\"", `t.toml: network.topology.dims[1]: 0 is less than 1`},
		{`kind = "star"` + "\nnodes = 4\nbandwidth = \"0\"\nlatency = \"1us\"", `t.toml: network.topology.bandwidth: "0": a bandwidth must be positive`},
		{`kind = "star"` + "\nnodes = 4\nbandwidth = \"-1GB/s\"\nlatency = \"1us\"", `t.toml: network.topology.bandwidth: "-1GB/s" is negative`},
		{`kind = "star"` + "\nnodes = 4\nbandwidth = \"1GB/s\"\nlatency = \"1us\"\nhost_bandwidth = \"0\"", `t.toml: network.topology.host_bandwidth: "0": a bandwidth must be positive`},
		{`kind = "fattree"` + "\nk = 1\nn = 2\nbandwidth = \"1GB/s\"\nlatency = \"1us\"", `t.toml: network.topology.k: 1 is less than 2`},
		{`kind = "dragonfly"` + "\ngroups = 9\nrouters = 2\nhosts = 1\nglobal_links = 1\nbandwidth = \"1GB/s\"\nlatency = \"1us\"", `t.toml: network.topology.global_links: 2 routers x 1 global links make 2 links out of a group, fewer than the 8 other groups`},
		{`kind = "star"` + "\nbandwidth = \"1GB/s\"\nlatency = \"1us\"", `t.toml: network.topology.nodes: missing`},
	} {
		_, err := Parse([]byte(head+c.topo+"\n"), "t.toml")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s...", c.topo, err, c.want)
		}
	}
	for _, c := range []struct{ network, want string }{
		{"model = \"packets\"\nL = \"1us\"\no = \"1us\"\ng = \"0\"\nG = \"1GB/s\"", `t.toml: network.model: "packets" is not a network model`},
		{"model = \"flow\"\nL = \"1us\"\no = \"1us\"\ng = \"0\"\n[network.topology]\nkind = \"star\"\nnodes = 2\nbandwidth = \"1GB/s\"\nlatency = \"1us\"", `t.toml: network.L: the flow model takes latency and bandwidth from network.topology`},
		{"model = \"flow\"\no = \"1us\"\ng = \"0\"", `t.toml: network.topology: missing`},
		{"model = \"loggp\"\nL = \"1us\"\no = \"1us\"\ng = \"0\"\nG = \"1GB/s\"\n[network.topology]\nkind = \"star\"\nnodes = 2\nbandwidth = \"1GB/s\"\nlatency = \"1us\"", `t.toml: network.topology: only the flow and packet models use a topology`},
		{"model = \"flow\"\no = \"1us\"\ng = \"0\"\nfactors = \"ns3\"\n[network.topology]\nkind = \"star\"\nnodes = 2\nbandwidth = \"1GB/s\"\nlatency = \"1us\"", `t.toml: network.factors: "ns3" is not a set of factors`},
		{"model = \"flow\"\no = \"1us\"\ng = \"0\"\nlatency_factor = 0\n[network.topology]\nkind = \"star\"\nnodes = 2\nbandwidth = \"1GB/s\"\nlatency = \"1us\"", `t.toml: network.latency_factor: 0 is not a positive factor`},
	} {
		src := "name = \"t\"\n[machine]\n[[machine.nodes]]\nname = \"n\"\nflops = 1e9\nmemory_bandwidth = \"1GB/s\"\n[network]\n" + c.network + "\n"
		_, err := Parse([]byte(src), "t.toml")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s...", c.network, err, c.want)
		}
	}
}

func TestCheckTasks(t *testing.T) {
	p, err := Preset("torus-bgq")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckTasks(512); err != nil {
		t.Errorf("512 tasks on 512 nodes: %v", err)
	}
	err = p.CheckTasks(513)
	want := "preset torus-bgq: network.topology: 513 tasks at 1 per node (machine.tasks_per_node) need 513 nodes, but the torus has 512"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("513 tasks: %v, want %s...", err, want)
	}
}
