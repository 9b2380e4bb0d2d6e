package interp

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/parley-hpc/parley/netmodel"
)

// The network models' part of a run (flow and packet). Under loggp s.net
// is nil and none of this runs: every hook below starts with that test.
//
// Under a network model the LogGOPS costs stay as they are (the platform's
// L and G are 0, so the CPU overheads, the gap and the eager limit remain),
// and only the wire changes: an eager message, or a rendezvous message's
// data, goes into the netmodel.Network (a flow, or packets), and its
// arrival is the model's delivery instead of an event scheduled at send
// time. Control messages (a rendezvous request or clear-to-send) cost
// their route's latency. The model's next change is an evArrive event for
// the pseudo-message netWake; a change that moves it earlier schedules
// another, and a wake that comes at a time other than the latest one asked
// for is stale.

// netState is a flow or packet run's network.
type netState struct {
	fn     netmodel.Network
	wakeAt Time // when the latest wake-up is due; -1: none
	done   func(int32)
}

// netWake is the message id of the flow model's wake-up events: no
// message has it, since slabs hand out ids below maxID.
const netWake = maxID

func (s *Sim) initNet() error {
	var fn netmodel.Network
	switch s.plat.Model {
	case netmodel.FlowModel:
		fn = netmodel.NewFlowNet(s.plat, s.opts.Seed)
	case netmodel.PacketModel:
		fn = netmodel.NewPacketNet(s.plat, s.opts.Seed)
	default:
		return nil
	}
	if err := s.plat.CheckTasks(s.g.NumTasks); err != nil {
		return err
	}
	s.net = &netState{fn: fn, wakeAt: -1}
	s.net.done = s.flowDone
	return nil
}

// nodes returns the nodes of tasks a and b and whether a message between
// them crosses the flow model's network (and not a node's shared memory,
// whose link is [network.intra] if the platform has one).
func (s *Sim) nodes(a, b int32) (na, nb int64, routed bool) {
	if s.net == nil {
		return 0, 0, false
	}
	m := &s.plat.Machine
	na, nb = m.NodeOf(int64(a), s.g.NumTasks), m.NodeOf(int64(b), s.g.NumTasks)
	return na, nb, na != nb
}

// latency is the time a control message, or an eager message's first
// byte under loggp, takes from task a to task b.
func (s *Sim) latency(link *netmodel.LogGP, a, b int32) Time {
	if s.net == nil {
		return link.Latency
	}
	return s.routeLatency(link, a, b)
}

func (s *Sim) routeLatency(link *netmodel.LogGP, a, b int32) Time {
	na, nb, routed := s.nodes(a, b)
	if !routed {
		return link.Latency
	}
	return s.net.fn.Latency(na, nb)
}

// netSend starts message id's data (an eager message, or a rendezvous
// message's data once cleared) as a flow at time at, and reports whether
// it did: messages within a node, and loggp runs, go as before.
func (s *Sim) netSend(at Time, id int32, link *netmodel.LogGP) bool {
	m := s.msgs.at(id)
	na, nb, routed := s.nodes(m.src, m.dst)
	if !routed {
		return false
	}
	s.net.fn.Send(at, na, nb, m.bytes, id)
	s.armNet()
	return true
}

// armNet schedules a wake-up for the flow model's next change if it is
// earlier than the one due.
func (s *Sim) armNet() {
	if at, ok := s.net.fn.Next(); ok && (s.net.wakeAt < 0 || at < s.net.wakeAt) {
		s.net.wakeAt = at
		s.schedule(at, makeEvent(evArrive, netWake))
	}
}

// netStep handles a wake-up: the flows due start or end.
func (s *Sim) netStep() {
	if s.now != s.net.wakeAt {
		return // stale: an earlier change replaced it, or it was handled
	}
	s.net.wakeAt = -1
	s.net.fn.Step(s.now, s.net.done)
	s.armNet()
}

// flowDone handles the end of message id's flow: its last byte is in.
// A rendezvous send completes then, or when the sender's CPU has done
// its part (kept in readyAt by clearToSend), whichever is later.
func (s *Sim) flowDone(id int32) {
	m := s.msgs.at(id)
	if !m.rendezvous {
		s.arrive(id)
		return
	}
	s.notify(&s.tasks[m.src], m.sendMode, max(s.now, m.readyAt))
	s.dataArrive(id)
}

// NetworkStats describe the network of a run on the flow or packet model.
type NetworkStats struct {
	Model    string
	Topology string // "torus 4x4x4"
	Links    int
	Messages int64   // messages between nodes (flows), program's and collectives' alike
	Bytes    int64   // their bytes
	Packets  int64   // the packet model's packets; 0 under the flow model
	AvgHops  float64 // links between switches crossed per message (flow) or packet (packet)
	// MaxLinkUtilization is the largest share of a link's capacity used
	// over the run: its bytes over its bandwidth times the predicted time.
	MaxLinkUtilization float64
	Busiest            []LinkStats // the links that carried the most bytes, most first
	// Refills counts the components whose rates were recomputed, and
	// Refilled the flows in them, summed: the flow model's work.
	Refills, Refilled int64
}

// LinkStats are one link's figures.
type LinkStats struct {
	ID          int32
	Name        string
	Bandwidth   float64 // bytes per second, bandwidth factor included
	Latency     Time
	Bytes       int64
	Utilization float64
}

// busiestLinks is how many links the summaries name.
const busiestLinks = 5

// networkStats returns the run's network figures; nil under loggp.
func (s *Sim) networkStats(predicted Time) *NetworkStats {
	if s.net == nil {
		return nil
	}
	st := s.net.fn.Stats()
	ns := &NetworkStats{Model: s.plat.Model.String(), Topology: s.plat.Topology.String(), Links: s.plat.Topology.LinkCount(),
		Messages: st.Messages, Bytes: st.Bytes, Packets: st.Packets, Refills: st.Refills, Refilled: st.Refilled}
	if units := max(st.Packets, st.Messages); units > 0 {
		ns.AvgHops = float64(st.Hops) / float64(units)
	}
	// Name only the busiest links: names for every link of a large
	// topology would raise the run's peak memory.
	bytes := s.net.fn.LinkBytes()
	order := make([]int32, 0, busiestLinks+1)
	for i, b := range bytes {
		ns.MaxLinkUtilization = max(ns.MaxLinkUtilization, s.utilization(int32(i), b, predicted))
		if b > 0 {
			order = append(order, int32(i))
			slices.SortStableFunc(order, func(x, y int32) int { return cmp.Compare(bytes[y], bytes[x]) })
			order = order[:min(len(order), busiestLinks)]
		}
	}
	for _, id := range order {
		ns.Busiest = append(ns.Busiest, s.linkStats(id, bytes[id], predicted))
	}
	return ns
}

// links returns every link's figures for a run that took predicted.
func (s *Sim) links(predicted Time) []LinkStats {
	bytes := s.net.fn.LinkBytes()
	out := make([]LinkStats, len(bytes))
	for i, b := range bytes {
		out[i] = s.linkStats(int32(i), b, predicted)
	}
	return out
}

// linkStats returns the figures of link id, which carried b bytes in a run
// that took predicted.
func (s *Sim) linkStats(id int32, b int64, predicted Time) LinkStats {
	t := s.plat.Topology
	return LinkStats{ID: id, Name: t.LinkName(id), Bandwidth: t.LinkBandwidth(id) * s.plat.Flow.BandwidthFactor,
		Latency: t.LinkLatency(id), Bytes: b, Utilization: s.utilization(id, b, predicted)}
}

// utilization is the share of link id's capacity that b bytes took over
// predicted.
func (s *Sim) utilization(id int32, b int64, predicted Time) float64 {
	if predicted <= 0 {
		return 0
	}
	bw := s.plat.Topology.LinkBandwidth(id) * s.plat.Flow.BandwidthFactor
	return float64(b) / (bw * float64(predicted) / float64(netmodel.Second))
}

// ErrNoLinks is WriteLinks's error for a run without a flow model.
var ErrNoLinks = errors.New("per-link figures need a platform with a network topology (network.model = \"flow\" or \"packet\")")

// WriteLinks writes every link's figures as CSV, one row per link: id,
// name, bandwidth (B/s), latency (us), bytes, and utilization (0 to 1)
// over r, the run's result.
func (s *Sim) WriteLinks(w io.Writer, r *Result) error {
	if s.net == nil {
		return ErrNoLinks
	}
	cw := csv.NewWriter(w)
	cw.Write([]string{"link", "name", "bandwidth_Bps", "latency_us", "bytes", "utilization"})
	for _, l := range s.links(r.Predicted) {
		cw.Write([]string{strconv.Itoa(int(l.ID)), l.Name, strconv.FormatFloat(l.Bandwidth, 'g', -1, 64),
			strconv.FormatFloat(l.Latency.Micros(), 'g', -1, 64), strconv.FormatInt(l.Bytes, 10),
			strconv.FormatFloat(l.Utilization, 'g', 6, 64)})
	}
	cw.Flush()
	return cw.Error()
}

// writeSummary prints the network line of the text summary.
func (n *NetworkStats) writeSummary(w io.Writer) {
	per := "message"
	if n.Packets > 0 {
		per = fmt.Sprintf("packet (%d packets)", n.Packets)
	}
	fmt.Fprintf(w, "Network: %s model on a %s (%d links): %d messages between nodes, %d bytes, %.3g hops per %s, busiest link at %.1f%% of its capacity",
		n.Model, n.Topology, n.Links, n.Messages, n.Bytes, n.AvgHops, per, 100*n.MaxLinkUtilization)
	if len(n.Busiest) > 0 {
		fmt.Fprintf(w, " (%s, %d bytes)", n.Busiest[0].Name, n.Busiest[0].Bytes)
	}
	fmt.Fprintln(w)
}

type jsonLink struct {
	ID          int32   `json:"id"`
	Name        string  `json:"name"`
	Bytes       int64   `json:"bytes"`
	Utilization float64 `json:"utilization"`
}

// json returns the "network" object of the JSON summary: under loggp
// just the model.
func (n *NetworkStats) json() any {
	if n == nil {
		return map[string]string{"model": netmodel.LogGPModel.String()}
	}
	busiest := []jsonLink{}
	for _, l := range n.Busiest {
		busiest = append(busiest, jsonLink{l.ID, l.Name, l.Bytes, l.Utilization})
	}
	return struct {
		Model              string     `json:"model"`
		Topology           string     `json:"topology"`
		Links              int        `json:"links"`
		Messages           int64      `json:"messages"`
		Bytes              int64      `json:"bytes"`
		Packets            int64      `json:"packets,omitempty"`
		AvgHops            float64    `json:"avg_hops"`
		MaxLinkUtilization float64    `json:"max_link_utilization"`
		Busiest            []jsonLink `json:"busiest_links"`
	}{n.Model, n.Topology, n.Links, n.Messages, n.Bytes, n.Packets, n.AvgHops, n.MaxLinkUtilization, busiest}
}
