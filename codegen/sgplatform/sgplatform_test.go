package sgplatform

import (
	"encoding/xml"
	"slices"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/netmodel"
)

// cluster is the <cluster> element of a written platform.
type cluster struct {
	Attrs []xml.Attr `xml:",any,attr"`
}

func write(t *testing.T, p *netmodel.Platform) map[string]string {
	t.Helper()
	var b strings.Builder
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version string  `xml:"version,attr"`
		Cluster cluster `xml:"cluster"`
	}
	if err := xml.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	attrs := map[string]string{"version": doc.Version}
	for _, a := range doc.Cluster.Attrs {
		attrs[a.Name.Local] = a.Value
	}
	return attrs
}

func TestStar(t *testing.T) {
	p, err := netmodel.Preset("star-edr")
	if err != nil {
		t.Fatal(err)
	}
	got := write(t, p)
	want := map[string]string{"version": "4.1", "id": "c", "prefix": "node-", "suffix": "", "radical": "0-647",
		"speed": "2e+12f", "bw": "1.2e+10Bps", "lat": "4.5e-07s", "sharing_policy": "SPLITDUPLEX"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["topology"]; ok {
		t.Errorf("a star has no topology attribute: %v", got)
	}
}

// TestFatTree: a k-ary n-tree is SimGrid's FAT_TREE with n levels of k
// children, one parent per node and k per switch, one link each.
func TestFatTree(t *testing.T) {
	p, err := netmodel.Preset("fattree-edr")
	if err != nil {
		t.Fatal(err)
	}
	got := write(t, p)
	if got["topology"] != "FAT_TREE" || got["topo_parameters"] != "3;18,18,18;1,18,18;1,1,1" || got["radical"] != "0-5831" || got["lat"] != "1.5e-07s" {
		t.Errorf("fat tree: %v", got)
	}
	p.Topology.HostLatency = 0
	if err := Write(new(strings.Builder), p); err == nil || !strings.Contains(err.Error(), "host_latency") {
		t.Errorf("host links unlike the others: %v", err)
	}
}

func TestUnsupported(t *testing.T) {
	for _, c := range []struct {
		preset string
		edit   func(*netmodel.Platform)
		want   string
	}{
		{"torus-bgq", nil, "cannot say a torus"},
		{"ib-edr", nil, "needs a flow platform"},
		{"star-edr", func(p *netmodel.Platform) { p.Machine.TasksPerNode = 2 }, "tasks_per_node is 2"},
	} {
		p, err := netmodel.Preset(c.preset)
		if err != nil {
			t.Fatal(err)
		}
		if c.edit != nil {
			c.edit(p)
		}
		if err := Write(new(strings.Builder), p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.preset, err, c.want)
		}
	}
}

// TestReplayConfig: LV08 only with SimGrid's factors; SMPI's exclusive
// eager thresholds one above Parley's inclusive S.
func TestReplayConfig(t *testing.T) {
	p, err := netmodel.Preset("star-edr")
	if err != nil {
		t.Fatal(err)
	}
	p.Network.Eager = 65536
	p.Flow.LatencyFactor, p.Flow.BandwidthFactor = 1, 1
	want := []string{"smpi/send-is-detached-thresh:65537", "smpi/async-small-thresh:65537"}
	if got := ReplayConfig(p); !slices.Equal(got, want) {
		t.Errorf("without factors: %q, want %q", got, want)
	}
	p.Flow.LatencyFactor = 13.01
	if got := ReplayConfig(p); len(got) != 3 || got[0] != "network/model:LV08" {
		t.Errorf("with factors: %q", got)
	}
}
