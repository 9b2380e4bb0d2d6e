package sgplatform

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/parley-hpc/parley/netmodel"
)

// Write writes platform p, which must use the flow model on a star or a
// fat tree with one task per node and one node speed, as a SimGrid
// platform: one <cluster> of hosts node-0, node-1, ... (SimGrid's ranks
// take them in order), each computing at its node's flop rate, every link
// split-duplex as Parley's are (one direction each). A star is a cluster
// without a backbone: a route is the sender's link and the receiver's,
// as in Parley. A k-ary n-tree is SimGrid's FAT_TREE with n levels, k
// children per switch and k parents per switch above the leaves; SimGrid
// routes it by destination, where Parley hashes the up ports.
func Write(w io.Writer, p *netmodel.Platform) error {
	t := p.Topology
	if p.Model != netmodel.FlowModel || t == nil {
		return errors.New("a SimGrid platform needs a flow platform (network.model = \"flow\") with a star or fattree topology")
	}
	if p.Machine.TasksPerNode != 1 {
		return fmt.Errorf("machine.tasks_per_node is %d: SimGrid's replay puts one rank on each host, so export platforms with one task per node", p.Machine.TasksPerNode)
	}
	speed := p.Machine.Nodes[0].FlopRate
	for _, g := range p.Machine.Nodes[1:] {
		if g.FlopRate != speed {
			return fmt.Errorf("machine.nodes: node groups %s and %s differ in flops; a SimGrid cluster has one speed", p.Machine.Nodes[0].Name, g.Name)
		}
	}
	attrs := [][2]string{
		{"id", "c"}, {"prefix", "node-"}, {"suffix", ""},
		{"radical", fmt.Sprintf("0-%d", t.NodeCount()-1)},
		{"speed", strconv.FormatFloat(speed, 'g', -1, 64) + "f"},
	}
	switch t.Kind {
	case netmodel.Star:
		attrs = append(attrs, [2]string{"bw", bandwidth(t.HostBandwidth)}, [2]string{"lat", latency(t.HostLatency)})
	case netmodel.FatTree:
		if t.HostBandwidth != t.Bandwidth || t.HostLatency != t.Latency {
			return errors.New("network.topology: SimGrid's fat tree gives every link one bandwidth and latency; set host_bandwidth and host_latency to bandwidth and latency")
		}
		down, up, par := make([]string, t.N), make([]string, t.N), make([]string, t.N)
		for i := range t.N {
			down[i], up[i], par[i] = strconv.Itoa(t.K), strconv.Itoa(t.K), "1"
		}
		up[0] = "1" // each node has one parent, its leaf switch
		attrs = append(attrs, [2]string{"topology", "FAT_TREE"},
			[2]string{"topo_parameters", fmt.Sprintf("%d;%s;%s;%s", t.N, strings.Join(down, ","), strings.Join(up, ","), strings.Join(par, ","))},
			[2]string{"bw", bandwidth(t.Bandwidth)}, [2]string{"lat", latency(t.Latency)})
	default:
		return fmt.Errorf("network.topology.kind: SimGrid's cluster cannot say a %v; export a star or a fattree", t.Kind)
	}
	attrs = append(attrs, [2]string{"sharing_policy", "SPLITDUPLEX"})
	var b strings.Builder
	b.WriteString("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n")
	fmt.Fprintf(&b, "<!-- %s (%s): %v, written by parley export.", p.Name, p.Source, t)
	if p.Flow.LatencyFactor != 1 || p.Flow.BandwidthFactor != 1 {
		fmt.Fprintf(&b, " Parley prices it with latency factor %g and bandwidth factor %g.", p.Flow.LatencyFactor, p.Flow.BandwidthFactor)
	}
	// An XML comment cannot hold "--", so the options are named by their
	// configuration items; smpirun's own --cfg=network/model:SMPI would
	// override a <config> section in the file.
	fmt.Fprintf(&b, " Replay with the smpirun options cfg=%s.", strings.Join(ReplayConfig(p), ", cfg="))
	b.WriteString(" -->\n<platform version=\"4.1\">\n  <cluster")
	for _, a := range attrs {
		fmt.Fprintf(&b, " %s=%q", a[0], a[1])
	}
	b.WriteString("/>\n</platform>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// ReplayConfig returns the SimGrid configuration items, as smpirun's
// --cfg=ITEM:VALUE options take them, that make SimGrid's replay
// price messages as Parley prices them on p: SimGrid's LV08 model when p
// uses its factors (factors = "simgrid"), and messages up to p's eager
// limit S sent eagerly, without waiting for their receive. SMPI's
// defaults make a blocking send above 64 KiB wait for its receive, and
// hold every message's transfer until its receive is posted
// (smpi/async-small-thresh 0), which serialises an incast that Parley's
// eager protocol lets overlap.
func ReplayConfig(p *netmodel.Platform) []string {
	var items []string
	if p.Flow.LatencyFactor != 1 || p.Flow.BandwidthFactor != 1 {
		items = append(items, "network/model:LV08")
	}
	// SMPI's thresholds are exclusive (size < thresh) and C ints.
	eager := strconv.FormatInt(min(p.Network.Eager+1, math.MaxInt32), 10)
	return append(items, "smpi/send-is-detached-thresh:"+eager, "smpi/async-small-thresh:"+eager)
}

// bandwidth formats bytes per second as SimGrid reads them.
func bandwidth(bps float64) string { return strconv.FormatFloat(bps, 'g', -1, 64) + "Bps" }

// latency formats a duration in seconds as SimGrid reads it.
func latency(d netmodel.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(netmodel.Second), 'g', -1, 64) + "s"
}
