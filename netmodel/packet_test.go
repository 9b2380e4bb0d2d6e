package netmodel

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// packetPlatform is a packet platform on topo with the given MTU and
// buffer.
func packetPlatform(topo Topology, mtu, buffer int64) *Platform {
	p := flowPlatform(topo, FlowParams{})
	p.Model, p.Packet = PacketModel, PacketParams{MTU: mtu, Buffer: buffer}
	return p
}

func runPackets(t *testing.T, p *Platform, sends []send) ([]Duration, *PacketNet) {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	f := NewPacketNet(p, 1)
	return runNet(f, sends), f
}

// TestPacketCutThrough: one packet of s bytes from node 0 to node 2 on a
// ring of 4 crosses 4 links (up, two ring links, down), 1 us and 1 GB/s
// each. Cut-through: its head goes on as soon as it arrives, so it takes
// 4 x 1 us + s / (1 GB/s) = 8.096 us for s = 4096; store-and-forward
// would take 4 x (1 us + 4.096 us) = 20.384 us.
func TestPacketCutThrough(t *testing.T) {
	topo := baseTopology(Torus)
	topo.Dims, topo.Latency, topo.HostLatency = []int{4}, Microsecond, Microsecond
	ends, f := runPackets(t, packetPlatform(topo, 4096, 65536), []send{{0, 0, 2, 4096}})
	if want := 4*Microsecond + 4096*Nanosecond; ends[0] != want {
		t.Errorf("one packet takes %v, want %v (cut-through; store-and-forward would be %v)", ends[0], want, 4*(Microsecond+4096*Nanosecond))
	}
	if st := f.Stats(); st.Packets != 1 || st.Hops != 2 || st.Messages != 1 {
		t.Errorf("stats %+v, want 1 packet of 2 hops", st)
	}
	// With the ring links at half the nodes' bandwidth, the slowest link
	// paces the packet: 4 x 1 us + s / (0.5 GB/s).
	topo.Bandwidth = 0.5e9
	ends, _ = runPackets(t, packetPlatform(topo, 4096, 65536), []send{{0, 0, 2, 4096}})
	if want := 4*Microsecond + 8192*Nanosecond; ends[0] != want {
		t.Errorf("one packet over a slower middle takes %v, want %v", ends[0], want)
	}
}

// TestPacketPipeline: a message of n bytes alone on its route pipelines
// its packets: latency + n / bandwidth, as the flow model has it. An
// empty message is one empty packet, which waits its turn (FIFO) behind
// the 1000-byte message sent before it from the same node.
func TestPacketPipeline(t *testing.T) {
	ends, f := runPackets(t, packetPlatform(starTopology(2), 4096, 65536), []send{{0, 0, 1, 1 << 20}, {0, 1, 0, 1000}, {0, 1, 0, 0}})
	for i, want := range []Duration{2*Microsecond + (1<<20)*Nanosecond, 2*Microsecond + 1000*Nanosecond, 3 * Microsecond} {
		if ends[i] != want {
			t.Errorf("message %d ends at %v, want %v", i, ends[i], want)
		}
	}
	if st := f.Stats(); st.Packets != 256+1+1 {
		t.Errorf("%d packets, want 258", st.Packets)
	}
}

// TestPacketCredits: with a buffer of one packet at the switch, a packet
// may leave node 0 only when the one before has left the switch and its
// credit has come back: every 2 x latency + s / bandwidth (1 us + 1 us +
// 4.096 us) instead of every 4.096 us. n packets end at n x 6.096 us.
// Twice the buffer lets two packets in per round trip: 2 x 4.096 us >
// 6.096 us, so the link runs at full speed again.
func TestPacketCredits(t *testing.T) {
	const n = 64
	sends := []send{{0, 0, 1, n * 4096}}
	ends, _ := runPackets(t, packetPlatform(starTopology(2), 4096, 4096), sends)
	if want := n * (2*Microsecond + 4096*Nanosecond); ends[0] != want {
		t.Errorf("with a one-packet buffer the message ends at %v, want %v", ends[0], want)
	}
	ends, _ = runPackets(t, packetPlatform(starTopology(2), 4096, 8192), sends)
	if want := 2*Microsecond + n*4096*Nanosecond; ends[0] != want {
		t.Errorf("with a two-packet buffer the message ends at %v, want %v", ends[0], want)
	}
}

// TestPacketIncast: 8 messages into one node share its link: 8 x bytes /
// bandwidth after the latency, less than a packet's time off since the
// first packet's latency overlaps.
func TestPacketIncast(t *testing.T) {
	var sends []send
	for i := range int64(8) {
		sends = append(sends, send{0, i + 1, 0, 1 << 20})
	}
	ends, _ := runPackets(t, packetPlatform(starTopology(9), 4096, 65536), sends)
	want := 2*Microsecond + 8<<20*Nanosecond
	last := Duration(0)
	for _, e := range ends {
		last = max(last, e)
	}
	if last != want {
		t.Errorf("incast ends at %v, want %v", last, want)
	}
}

// cyclicTopologies are a 4x4 torus and a dragonfly with Valiant routes:
// topologies whose channel dependencies have cycles, where packets wait
// for credit at switches when buffers are small.
func cyclicTopologies() (torus, df Topology) {
	torus = baseTopology(Torus)
	torus.Dims, torus.Latency = []int{4, 4}, 100*Nanosecond
	df = baseTopology(Dragonfly)
	df.Groups, df.Routers, df.Hosts, df.GlobalLinks, df.Routing = 5, 2, 2, 2, "valiant"
	return torus, df
}

// TestPacketNoDeadlock: every node of a 4x4 torus sends to the node
// farthest away (2 hops along each ring, across the wrap-around for half
// of them) with buffers of one packet: the channel dependencies of the
// rings are cycles, which the dateline channels break, so every message
// arrives. A dragonfly's Valiant routes, which cross two global links,
// likewise.
func TestPacketNoDeadlock(t *testing.T) {
	torus, df := cyclicTopologies()
	for _, c := range []struct {
		topo  Topology
		nodes int64
		to    func(int64) int64
	}{
		{torus, 16, func(a int64) int64 { return (a/4+2)%4*4 + (a%4+2)%4 }},
		{df, 20, func(a int64) int64 { return (a + 7) % 20 }},
	} {
		var sends []send
		for a := range c.nodes {
			sends = append(sends, send{0, a, c.to(a), 64 * 1024})
		}
		ends, f := runPackets(t, packetPlatform(c.topo, 1024, 1024), sends)
		for i, e := range ends {
			if e < 0 {
				t.Errorf("%v: message %d never arrives", c.topo.Kind, i)
			}
		}
		if _, busy := f.Next(); busy {
			t.Errorf("%v: events left after the last delivery", c.topo.Kind)
		}
	}
}

// TestPacketSpraying: on a fat tree each packet hashes its own up port,
// so one message's packets use several top switches; and two runs with
// the same seed are the same, link by link.
func TestPacketSpraying(t *testing.T) {
	topo := baseTopology(FatTree)
	topo.K, topo.N = 4, 2
	sends := []send{{0, 0, 15, 64 * 4096}, {0, 1, 14, 64 * 4096}, {100, 5, 0, 3000}}
	ends, f := runPackets(t, packetPlatform(topo, 4096, 65536), sends)
	ends2, f2 := runPackets(t, packetPlatform(topo, 4096, 65536), sends)
	if !reflect.DeepEqual(ends, ends2) || !reflect.DeepEqual(f.LinkBytes(), f2.LinkBytes()) {
		t.Errorf("two runs differ: %v %v", ends, ends2)
	}
	used := 0
	for l, b := range f.LinkBytes() {
		if b > 0 && strings.Contains(topo.LinkName(int32(l)), "up port") {
			used++
		}
	}
	if used < 4 {
		t.Errorf("the packets used %d up links, want them spread over at least 4", used)
	}
}

func TestPacketParamsInvalid(t *testing.T) {
	for _, c := range []struct {
		mtu, buffer int64
		want        string
	}{
		{0, 65536, "network.mtu: 0 bytes is not a packet size"},
		{-4, 65536, "network.mtu: -4 bytes"},
		{4096, 1024, "network.buffer: 1024 bytes cannot hold a packet of network.mtu = 4096 bytes"},
	} {
		err := packetPlatform(starTopology(2), c.mtu, c.buffer).Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("mtu %d buffer %d: %v, want %q", c.mtu, c.buffer, err, c.want)
		}
	}
}

// TestPacketPlatformFile reads the packet model's fields from a platform
// file, with their defaults, and names the file and field of bad ones.
func TestPacketPlatformFile(t *testing.T) {
	const head = "name = \"t\"\n[machine]\n[[machine.nodes]]\nname = \"n\"\nflops = 1e9\nmemory_bandwidth = \"1GB/s\"\n[network]\nmodel = \"packet\"\no = \"1us\"\ng = \"0\"\n"
	const star = "[network.topology]\nkind = \"star\"\nnodes = 2\nbandwidth = \"1GB/s\"\nlatency = \"1us\"\n"
	p, err := Parse([]byte(head+star), "t.toml")
	if err != nil || p.Model != PacketModel || p.Packet != (PacketParams{4096, 65536}) || p.Flow.BandwidthFactor != 1 {
		t.Fatalf("defaults: %+v, %v", p, err)
	}
	p, err = Parse([]byte(head+"mtu = \"2KiB\"\nbuffer = \"8KiB\"\n"+star), "t.toml")
	if err != nil || p.Packet != (PacketParams{2048, 8192}) {
		t.Fatalf("mtu and buffer: %+v, %v", p, err)
	}
	for _, c := range []struct{ network, want string }{
		{"mtu = \"0\"\n" + star, `t.toml: network.mtu: 0 bytes is not a packet size`},
		{"mtu = \"-1KiB\"\n" + star, `t.toml: network.mtu: `},
		{"mtu = \"4KiB\"\nbuffer = \"2KiB\"\n" + star, `t.toml: network.buffer: 2048 bytes cannot hold a packet of network.mtu = 4096 bytes`},
		{strings.Replace(star, "kind = \"star\"", "kind = \"star\"\nrouting = \"adaptive\"", 1), `t.toml: network.topology.routing: "adaptive" is not a routing of a star`},
		{"precision = \"1ns\"\n" + star, `t.toml: network.precision: `},
		{"L = \"1us\"\n" + star, `t.toml: network.L: the packet model takes latency and bandwidth from network.topology`},
	} {
		_, err := Parse([]byte(head+c.network), "t.toml")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s...", c.network, err, c.want)
		}
	}
}

// TestPacketDeliveryOrder: messages whose last packets arrive at one
// instant are reported in the order those packets reached their last
// link, whatever order the messages were sent in. On a star of 1 us,
// 1 GB/s links with 1000-byte packets, a message of two packets from
// node 0 to node 2 sent at 0 and one of one packet from node 1 to node 3
// sent at 1 us both end at 4 us: the first's second packet starts on
// node 2's link at 2 us, as does the second's packet on node 3's, and
// the first's got there by an event scheduled at 0, before the second
// had been sent.
func TestPacketDeliveryOrder(t *testing.T) {
	for _, c := range []struct {
		name  string
		sends []send // by token
		want  []int32
	}{
		{"sent in order", []send{{0, 0, 2, 2000}, {Microsecond, 1, 3, 1000}}, []int32{0, 1}},
		{"sent out of order", []send{{Microsecond, 1, 3, 1000}, {0, 0, 2, 2000}}, []int32{1, 0}},
	} {
		f := NewPacketNet(packetPlatform(starTopology(4), 1000, 65536), 1)
		for i, s := range c.sends {
			f.Send(s.at, s.src, s.dst, s.bytes, int32(i))
		}
		var got []int32
		for {
			now, ok := f.Next()
			if !ok {
				break
			}
			f.Step(now, func(tok int32) {
				if now != 4*Microsecond {
					t.Errorf("%s: message %d delivered at %v, want 4 us", c.name, tok, now)
				}
				got = append(got, tok)
			})
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: delivered %v, want %v", c.name, got, c.want)
		}
	}
}

// TestPacketLinkState: a link's count of queued packets, which the fast
// paths read instead of its queues, matches its queues after every step
// of runs where packets wait (one-packet buffers on a torus and a Valiant
// dragonfly, several channels, packets waiting at switches; an incast on a
// star, where they wait at the nodes for credit), no buffer ever has
// less than nothing free or more than its size, and at the end every
// credit has come back to the channel it was taken from, and every route
// to the arena (the torus's and the star's shared by a message, the
// dragonfly's a packet's own) exactly once.
func TestPacketLinkState(t *testing.T) {
	torus, df := cyclicTopologies()
	for _, c := range []struct {
		topo     Topology
		nodes    int64
		to       func(int64) int64
		atSwitch bool // packets wait at switches, not only at nodes
	}{
		{torus, 16, func(a int64) int64 { return (a/4+2)%4*4 + (a%4+2)%4 }, true},
		{df, 20, func(a int64) int64 { return (a + 7) % 20 }, true},
		{starTopology(8), 7, func(int64) int64 { return 7 }, false},
	} {
		const buffer = 1024
		p := packetPlatform(c.topo, 1024, buffer)
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		f := NewPacketNet(p, 1)
		for a := range c.nodes {
			f.Send(0, a, c.to(a), 16*1024, int32(a))
		}
		delivered, waited := 0, false
		for at, ok := f.Next(); ok; at, ok = f.Next() {
			f.Step(at, func(int32) { delivered++ })
			for l := range f.links {
				lk := &f.links[l]
				n := 0
				for _, q := range f.queues[l*int(f.nvc) : (l+1)*int(f.nvc)] {
					n += len(q.items) - int(q.head)
				}
				if int(lk.queued) != n {
					t.Fatalf("%v at %v: link %d counts %d queued packets, its queues hold %d", c.topo.Kind, at, l, lk.queued, n)
				}
				waited = waited || n > 0 && (l >= int(f.hostLinks) || !c.atSwitch)
				for v, free := range lk.credits[:f.nvc] {
					if free < 0 || free > buffer {
						t.Fatalf("%v at %v: link %d channel %d has %d bytes free of %d", c.topo.Kind, at, l, v, free, buffer)
					}
				}
			}
		}
		if delivered != int(c.nodes) {
			t.Errorf("%v: %d messages delivered, want %d", c.topo.Kind, delivered, c.nodes)
		}
		if !waited {
			t.Errorf("%v: no packet waited at a switch; the run does not test the queues", c.topo.Kind)
		}
		for l := range f.links {
			lk := &f.links[l]
			for v, free := range lk.credits[:f.nvc] {
				if free != buffer {
					t.Errorf("%v: link %d channel %d ends with %d bytes free, want all %d back", c.topo.Kind, l, v, free, buffer)
				}
			}
			if lk.queued != 0 || lk.woken {
				t.Errorf("%v: link %d ends with %d queued, woken %v", c.topo.Kind, l, lk.queued, lk.woken)
			}
		}
		checkRoutesFreed(t, c.topo.Kind, &f.routes)
	}
}

// checkRoutesFreed fails unless the arena's freed routes cover it
// exactly: none is lost, none freed twice.
func checkRoutesFreed(t *testing.T, kind TopologyKind, a *routeArena) {
	t.Helper()
	type span struct{ off, n int32 }
	var freed []span
	for n, offs := range a.free {
		for _, off := range offs {
			freed = append(freed, span{off, int32(n)})
		}
	}
	slices.SortFunc(freed, func(x, y span) int { return cmp.Compare(x.off, y.off) })
	end := int32(0)
	for _, s := range freed {
		if s.off != end {
			t.Fatalf("%v: a freed route at %d of %d links, the one before ends at %d: routes lost or freed twice", kind, s.off, s.n, end)
		}
		end += s.n
	}
	if int(end) != len(a.links) {
		t.Errorf("%v: freed routes cover %d of the arena's %d entries", kind, end, len(a.links))
	}
}

// TestPacketSize: a packet fits half a cache line and a message one, so
// that none lies across two (see packet and pktMsg).
func TestPacketSize(t *testing.T) {
	if s := unsafe.Sizeof(packet{}); s != 32 {
		t.Errorf("a packet is %d bytes, want 32", s)
	}
	if s := unsafe.Sizeof(pktMsg{}); s != 64 {
		t.Errorf("a message is %d bytes, want 64", s)
	}
}
