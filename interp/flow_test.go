package interp_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/netmodel"
)

// flowPlatform is a flow platform with free CPUs (o = g = 0), an eager
// limit of 4 MiB and 10 GB/s, 1 us links on the topology given as the
// body of [network.topology].
func flowPlatform(t testing.TB, topology string) *netmodel.Platform {
	t.Helper()
	return netPlatform(t, "flow", "", topology)
}

// netPlatform is flowPlatform under the given model, with extra lines in
// its [network] table.
func netPlatform(t testing.TB, model, extra, topology string) *netmodel.Platform {
	t.Helper()
	src := `name = "` + model + `-test"
[network]
model = "` + model + `"
` + extra + `
o = "0"
g = "0"
S = "4MiB"
[network.topology]
bandwidth = "10GB/s"
latency = "1us"
` + topology + `
[machine]
[[machine.nodes]]
name = "node"
flops = "1GF/s"
memory_bandwidth = "1GB/s"
`
	p, err := netmodel.Parse([]byte(src), model+"-test.toml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func runFlow(t testing.TB, src string, tasks int64, plat *netmodel.Platform) *interp.Result {
	t.Helper()
	p := build(t, "flow.parley", src)
	res, err := interp.Run(p, interp.Options{NumTasks: tasks, Platform: plat})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Fatal(res.Problems)
	}
	if res.Network == nil {
		t.Fatal("a flow run has no network statistics")
	}
	return res
}

const mib = 1 << 20

// within reports whether got is within frac of want.
func within(got, want interp.Time, frac float64) bool {
	return math.Abs(float64(got-want)) <= frac*float64(want)
}

// TestFlowIncast: 8 tasks send 1 MiB each to task 0 through its one
// 10 GB/s link: 8 MiB / (10 GB/s) plus the latency of the two links.
// Under loggp, without contention, the 8 messages would overlap.
func TestFlowIncast(t *testing.T) {
	res := runFlow(t, "TASKS t SUCH THAT t > 0 SEND A 1 MEGABYTE MESSAGE TO TASK 0.", 9, flowPlatform(t, `kind = "star"
nodes = 9`))
	want := 2*interp.Microsecond + interp.Time(8*mib*1e12/10e9)
	if !within(res.Predicted, want, 0.01) {
		t.Errorf("incast takes %v, want %v within 1%%", res.Predicted, want)
	}
	if u := res.Network.MaxLinkUtilization; u < 0.99 || u > 1 || res.Network.Busiest[0].Name != "node 0 down" {
		t.Errorf("busiest link %+v at %.3f, want node 0 down at about 1", res.Network.Busiest, u)
	}
}

// networkModels are the models with links, each with how close a closed
// form must be met.
var networkModels = []struct {
	model string
	tol   float64
}{{"flow", 0.01}, {"packet", 0.03}}

// TestDisjointPairs: 4 pairs exchange 1 MiB over links of their own:
// each 1 MiB / (10 GB/s) plus latency, as if alone.
func TestDisjointPairs(t *testing.T) {
	for _, m := range networkModels {
		res := runFlow(t, "TASKS t SUCH THAT t IS EVEN SEND A 1 MEGABYTE MESSAGE TO TASK t + 1.", 8, netPlatform(t, m.model, "", `kind = "star"
nodes = 8`))
		want := 2*interp.Microsecond + interp.Time(mib*1e12/10e9)
		if !within(res.Predicted, want, m.tol) {
			t.Errorf("%s: disjoint pairs take %v, want %v within %g", m.model, res.Predicted, want, m.tol)
		}
	}
}

// TestRendezvous: a message above the eager limit waits for the request
// and the clear-to-send (a route latency each) before its data.
func TestRendezvous(t *testing.T) {
	for _, m := range networkModels {
		plat := netPlatform(t, m.model, "", `kind = "star"
nodes = 2`)
		plat.Network.Eager = 1024
		res := runFlow(t, "TASK 0 SENDS A 1 MEGABYTE MESSAGE TO TASK 1.", 2, plat)
		want := 3*2*interp.Microsecond + interp.Time(mib*1e12/10e9)
		if !within(res.Predicted, want, 1e-6) || res.Tasks[0].Finish != res.Predicted {
			t.Errorf("%s: rendezvous takes %v (sender done at %v), want %v for both", m.model, res.Predicted, res.Tasks[0].Finish, want)
		}
	}
}

// nearestNeighbours sends one message to each of the six neighbours on a
// 4x4x4 mesh of tasks.
const nearestNeighbours = `
ALL TASKS t ASYNCHRONOUSLY SEND A 1 KILOBYTE MESSAGE TO TASK MESH_NEIGHBOR((4*, 4*, 4*), t, (+1, 0, 0)) THEN
ALL TASKS t ASYNCHRONOUSLY SEND A 1 KILOBYTE MESSAGE TO TASK MESH_NEIGHBOR((4*, 4*, 4*), t, (-1, 0, 0)) THEN
ALL TASKS t ASYNCHRONOUSLY SEND A 1 KILOBYTE MESSAGE TO TASK MESH_NEIGHBOR((4*, 4*, 4*), t, (0, +1, 0)) THEN
ALL TASKS t ASYNCHRONOUSLY SEND A 1 KILOBYTE MESSAGE TO TASK MESH_NEIGHBOR((4*, 4*, 4*), t, (0, -1, 0)) THEN
ALL TASKS t ASYNCHRONOUSLY SEND A 1 KILOBYTE MESSAGE TO TASK MESH_NEIGHBOR((4*, 4*, 4*), t, (0, 0, +1)) THEN
ALL TASKS t ASYNCHRONOUSLY SEND A 1 KILOBYTE MESSAGE TO TASK MESH_NEIGHBOR((4*, 4*, 4*), t, (0, 0, -1)) THEN
ALL TASKS AWAIT COMPLETION.`

// TestFlowTorusNeighbours: on a 4x4x4 torus with the block mapping, each
// task's mesh neighbours are its router's: every message crosses one link
// between routers (the average hop count Durango reports for LULESH's
// face exchange).
func TestFlowTorusNeighbours(t *testing.T) {
	res := runFlow(t, nearestNeighbours, 64, flowPlatform(t, `kind = "torus"
dims = [4, 4, 4]`))
	if n := res.Network; n.AvgHops != 1.0 || n.Messages != 6*64 || n.Bytes != 6*64*1024 {
		t.Errorf("network %+v, want 384 messages of 1 KiB, 1.0 hops each", n)
	}
}

// TestFlowFatTreeAllToAll checks the average hops of an all-to-all on a
// 4-ary 2-tree: 16 nodes, four leaf switches of four nodes each, joined
// by four top switches.
//
// By hand: from any node, the 15 others are 3 under the same leaf switch
// (0 hops between switches: up to the leaf and straight down) and 12
// under the other three leaves (2 hops: leaf to a top switch and down to
// the other leaf). The average is (3 x 0 + 12 x 2) / 15 = 24/15 = 1.6. In
// general a k-ary n-tree has k^(L+1) - k^L nodes whose common ancestors
// are at level L >= 1, each 2L hops away, out of k^n - 1.
func TestFlowFatTreeAllToAll(t *testing.T) {
	res := runFlow(t, "ALL TASKS ASYNCHRONOUSLY SEND A 1 KILOBYTE MESSAGE TO ALL OTHER TASKS THEN ALL TASKS AWAIT COMPLETION.", 16,
		flowPlatform(t, `kind = "fattree"
k = 4
n = 2`))
	if n := res.Network; math.Abs(n.AvgHops-1.6) > 1e-12 || n.Messages != 16*15 {
		t.Errorf("network %+v, want 240 messages of 1.6 hops on average", n)
	}
}

// TestNetworkDeterministic: the same seed gives the same prediction, link by
// link, with flows spread over a fat tree's paths by hash and packets
// sprayed over them.
func TestNetworkDeterministic(t *testing.T) {
	src := "ALL TASKS ASYNCHRONOUSLY SEND A 64 KILOBYTE MESSAGE TO ALL OTHER TASKS THEN ALL TASKS AWAIT COMPLETION."
	for _, m := range networkModels {
		plat := netPlatform(t, m.model, "", `kind = "fattree"
k = 4
n = 3`)
		a, b := runFlow(t, src, 64, plat), runFlow(t, src, 64, plat)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs differ:\n%+v\n%+v", m.model, a.Network, b.Network)
		}
	}
}

// TestFlowTooManyTasks: more tasks than the topology's nodes hold is an
// error naming the platform and the field.
func TestFlowTooManyTasks(t *testing.T) {
	p := build(t, "flow.parley", "ALL TASKS SYNCHRONIZE.")
	_, err := interp.New(p, interp.Options{NumTasks: 9, Platform: flowPlatform(t, `kind = "star"
nodes = 8`)})
	want := "flow-test.toml: network.topology: 9 tasks at 1 per node (machine.tasks_per_node) need 9 nodes, but the star has 8"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("New = %v, want %s...", err, want)
	}
}

// TestFlowStatistics: the JSON summary's network object and the per-link
// CSV agree with each other and with the traffic.
func TestFlowStatistics(t *testing.T) {
	p := build(t, "flow.parley", "TASK 0 SENDS A 1 MEGABYTE MESSAGE TO TASK 3.")
	sim, err := interp.New(p, interp.Options{NumTasks: 4, Platform: flowPlatform(t, `kind = "torus"
dims = [4]`)})
	if err != nil {
		t.Fatal(err)
	}
	res := sim.Run()
	var js bytes.Buffer
	if err := res.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Network struct {
			Model    string                  `json:"model"`
			Links    int                     `json:"links"`
			AvgHops  float64                 `json:"avg_hops"`
			Bytes    int64                   `json:"bytes"`
			MaxUtil  float64                 `json:"max_link_utilization"`
			Busiest  []struct{ Name string } `json:"busiest_links"`
			Messages int64                   `json:"messages"`
		} `json:"network"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	// 0 -> 3 on a ring of 4 goes the short way: one hop, -x.
	n := out.Network
	if n.Model != "flow" || n.Links != 4*2+4*2 || n.AvgHops != 1 || n.Bytes != mib || n.Messages != 1 || len(n.Busiest) != 3 ||
		math.Abs(n.MaxUtil-mib/(10e9*float64(res.Predicted)/1e12)) > 1e-9 {
		t.Errorf("network %+v", n)
	}
	var csvOut bytes.Buffer
	if err := sim.WriteLinks(&csvOut, res); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	busy := map[string]string{}
	for _, r := range rows[1:] {
		if r[4] != "0" {
			busy[r[1]] = r[4]
		}
	}
	want := map[string]string{"node 0 up": "1048576", "torus (0) -x": "1048576", "node 3 down": "1048576"}
	if len(rows) != 17 || !reflect.DeepEqual(busy, want) {
		t.Errorf("%d rows, links used %v, want 17 rows and %v", len(rows), busy, want)
	}
	// A loggp run has no links, and says so.
	sim, err = interp.New(p, interp.Options{NumTasks: 4, Platform: platform(t, "")})
	if err != nil {
		t.Fatal(err)
	}
	res = sim.Run()
	if err := sim.WriteLinks(&csvOut, res); err != interp.ErrNoLinks || res.Network != nil {
		t.Errorf("loggp WriteLinks = %v, network %v", err, res.Network)
	}
}
