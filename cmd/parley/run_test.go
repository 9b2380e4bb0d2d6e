package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/examples"
)

// TestRunDefault is the README's first command: the embedded halo exchange
// on 64 tasks, with the split of where the time goes.
func TestRunDefault(t *testing.T) {
	code, out, errOut := parley(t, "", "run")
	if code != 0 || errOut != "" {
		t.Fatalf("parley run: %d %q", code, errOut)
	}
	for _, want := range []string{"Predicted run time: ", "halo3d.parley on 64 tasks, platform ib-edr", "compute", "communication", "wait", "Messages: 3840 point-to-point"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRunOptions(t *testing.T) {
	dir := t.TempDir()
	tl := filepath.Join(dir, "tl.json")
	code, out, errOut := parley(t, "", "run", "ring.parley", "--tasks", "4", "--platform", "ethernet", "--json",
		"--logs", dir, "--timeline", tl, "--", "--reps", "3")
	if code != 0 || errOut != "" {
		t.Fatalf("%d %q", code, errOut)
	}
	var summary struct {
		Tasks    int64  `json:"tasks"`
		Platform string `json:"platform"`
		PerTask  []struct {
			Sent int64 `json:"msgs_sent"`
		} `json:"per_task"`
	}
	if err := json.Unmarshal([]byte(out), &summary); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	// 3 shifts and 2 warmups, one message each.
	if summary.Tasks != 4 || summary.Platform != "ethernet" || len(summary.PerTask) != 4 || summary.PerTask[2].Sent != 5 {
		t.Errorf("summary %+v", summary)
	}
	for i := range 4 {
		data, err := os.ReadFile(filepath.Join(dir, "ring-"+string(rune('0'+i))+".log"))
		if err != nil || !strings.Contains(string(data), "predicted by the loggp network model") {
			t.Errorf("log of task %d: %v", i, err)
		}
	}
	if data, err := os.ReadFile(tl); err != nil || !json.Valid(data) {
		t.Errorf("timeline: %v", err)
	}
}

func TestRunProblems(t *testing.T) {
	code, out, errOut := parley(t, "", "run", "deadlock-ring.parley", "--tasks", "4")
	if code != 1 || !strings.Contains(out, "Problems: deadlock") {
		t.Errorf("deadlock: exit %d\n%s", code, out)
	}
	for _, want := range []string{"deadlock-ring.parley:10:1: error: deadlock: 0 -> 3 -> 2 -> 1 -> 0", "task 3 waits to receive from task 2", "^~~~"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if code, _, errOut := parley(t, "", "run", "halo3d.parley", "--tasks", "8"); code != 1 || !strings.Contains(errOut, "px * py * pz = num_tasks") {
		t.Errorf("failed assertion: %d %q", code, errOut)
	}
	if code, _, errOut := parley(t, "", "run", "--platform", "nowhere"); code != 2 || !strings.Contains(errOut, "nowhere") {
		t.Errorf("bad platform: %d %q", code, errOut)
	}
	// Regimes out of order: the file, the field and what to do, status 2.
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte(`name = "bad"
[network]
model = "loggp"
L = "1us"
o = "1us"
g = "1us"
G = "1ns/B"
[[network.regime]]
upto = "4KiB"
o = "0.5us"
[[network.regime]]
upto = "1KiB"
[machine]
nodes = [{name = "n", flops = 1e9, memory_bandwidth = "1GB/s"}]
`), 0o644)
	if code, _, errOut := parley(t, "", "run", "ring.parley", "--platform", bad); code != 2 ||
		!strings.Contains(errOut, bad+": network.regime[1].upto: 1024 B is not above the previous regime's upto (4096 B): list the regimes by increasing size") {
		t.Errorf("regimes out of order: %d %q", code, errOut)
	}
	if code, _, errOut := parley(t, "", "run", "ring.parley", "--max-events", "100"); code != 1 || !strings.Contains(errOut, "--max-events") {
		t.Errorf("event limit: %d %q", code, errOut)
	}
	if code, out, _ := parley(t, "", "run", "ring.parley", "--", "--help"); code != 0 || !strings.Contains(out, "--msgsize") {
		t.Errorf("program help: %d %q", code, out)
	}
}

func TestRunStats(t *testing.T) {
	code, _, errOut := parley(t, "", "run", "--stats")
	if code != 0 || !strings.Contains(errOut, "events/s") || !strings.Contains(errOut, "bytes per task") {
		t.Errorf("--stats: %d %q", code, errOut)
	}
	// halo3d's all-reduce of one double each step, over its 64 tasks.
	if want := "halo3d.parley:28:5: allreduce by recursive_doubling, 10 calls of 8 bytes over 64 ranks\n"; !strings.Contains(errOut, want) {
		t.Errorf("--stats does not say which algorithm the all-reduce used (%q):\n%s", want, errOut)
	}
	// A broadcast swept over sizes changes algorithm on the way.
	code, _, errOut = parley(t, "", "run", "broadcast.parley", "--tasks", "16", "--stats", "--", "--reps", "1")
	for _, want := range []string{
		"broadcast.parley:11:5: bcast by binomial, 12 calls of 8 to 4096 bytes over 16 ranks\n",
		"broadcast.parley:11:5: bcast by scatter_recursive_doubling_allgather, 6 calls of 32768 to 262144 bytes over 16 ranks\n",
	} {
		if code != 0 || !strings.Contains(errOut, want) {
			t.Errorf("--stats: %d, lacks %q:\n%s", code, want, errOut)
		}
	}
}

// TestRunFlow runs the halo exchange on a flow preset: the summary and
// the JSON gain the network's figures, and --links writes one CSV row per
// link.
func TestRunFlow(t *testing.T) {
	code, out, errOut := parley(t, "", "run", "--platform", "torus-bgq", "--tasks", "64", "--", "--steps", "1")
	if code != 0 || errOut != "" || !strings.Contains(out, "Network: flow model on a torus 4x4x4x4x2 (6144 links)") {
		t.Fatalf("%d %q\n%s", code, errOut, out)
	}
	links := filepath.Join(t.TempDir(), "links.csv")
	code, out, errOut = parley(t, "", "run", "--platform", "star-edr", "--tasks", "8", "--json", "--links", links, "--", "--px", "2", "--py", "2", "--pz", "2", "--steps", "1")
	if code != 0 || errOut != "" {
		t.Fatalf("%d %q", code, errOut)
	}
	var summary struct {
		Network struct {
			Model   string  `json:"model"`
			Links   int     `json:"links"`
			AvgHops float64 `json:"avg_hops"`
			Bytes   int64   `json:"bytes"`
		} `json:"network"`
	}
	if err := json.Unmarshal([]byte(out), &summary); err != nil {
		t.Fatal(err)
	}
	if n := summary.Network; n.Model != "flow" || n.Links != 2*648 || n.AvgHops != 0 || n.Bytes == 0 {
		t.Errorf("network %+v", n)
	}
	data, err := os.ReadFile(links)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) != 1+2*648 || !strings.HasPrefix(lines[1], "0,node 0 up,") {
		t.Errorf("links.csv has %d lines, starting %q", len(lines), lines[:2])
	}
}

// TestRunFlowErrors: bad topologies and too many tasks for one stop with
// status 2 and name the file and the field.
func TestRunFlowErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	src := `name = "bad"
[network]
model = "flow"
o = "1us"
g = "0"
[network.topology]
kind = "hypercube"
bandwidth = "1GB/s"
latency = "1us"
[machine]
[[machine.nodes]]
name = "n"
flops = "1GF/s"
memory_bandwidth = "1GB/s"
`
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := parley(t, "", "run", "--platform", bad)
	if code != 2 || !strings.Contains(errOut, bad+`: network.topology.kind: "hypercube" is not a topology`) {
		t.Errorf("unknown topology: %d %q", code, errOut)
	}
	code, _, errOut = parley(t, "", "run", "--platform", "torus-bgq", "--tasks", "1000", "--", "--px", "10", "--py", "10", "--pz", "10")
	if code != 2 || !strings.Contains(errOut, "preset torus-bgq: network.topology: 1000 tasks at 1 per node") {
		t.Errorf("too many tasks: %d %q", code, errOut)
	}
	code, _, errOut = parley(t, "", "run", "--links", filepath.Join(dir, "l.csv"))
	if code != 2 || !strings.Contains(errOut, "--links: per-link figures need a platform with a network topology") {
		t.Errorf("--links on loggp: %d %q", code, errOut)
	}
}

// TestRunExamplesFlow runs every example on a flow preset: each finishes
// cleanly (the deadlock example excepted) and reports its network.
func TestRunExamplesFlow(t *testing.T) {
	names, _ := fs.Glob(examples.FS, "*.parley")
	for _, name := range names {
		if name == "deadlock-ring.parley" {
			continue
		}
		code, out, errOut := parley(t, "", "run", name, "--platform", "star-edr", "--show", "0")
		if code != 0 || !strings.Contains(out, "Network: flow model on a star of 648 nodes") {
			t.Errorf("%s: %d %q\n%s", name, code, errOut, out)
		}
	}
}

// TestRunFastForward: --fast-forward predicts the embedded halo exactly as
// without it and says what it skipped; a bound is a percentage, given
// after a space or an equals sign.
func TestRunFastForward(t *testing.T) {
	_, full, _ := parley(t, "", "run", "--", "--steps", "100")
	for _, ff := range [][]string{{"--fast-forward"}, {"--fast-forward", "0.1%"}, {"--fast-forward=0.1%"}, {"halo3d.parley", "--fast-forward", "0.1%"}} {
		args := append(append([]string{"run"}, ff...), "--", "--steps", "100")
		code, out, errOut := parley(t, "", args...)
		if code != 0 || errOut != "" {
			t.Fatalf("%v: %d %q", ff, code, errOut)
		}
		if !strings.Contains(out, "fast-forward: the loop at halo3d.parley:19:3 skipped 97 iterations") {
			t.Errorf("%v: no fast-forward note:\n%s", ff, out)
		}
		if before, _, _ := strings.Cut(out, "fast-forward:"); before != full {
			t.Errorf("%v: the summary differs from the full run's:\n%s\nfull:\n%s", ff, out, full)
		}
	}
	code, out, errOut := parley(t, "", "run", "--fast-forward", "--json")
	if code != 0 || !strings.Contains(out, `"fast_forward": [`) || !strings.Contains(out, "skipped 7 iterations") {
		t.Errorf("--json: %d %q\n%s", code, errOut, out)
	}
	code, _, errOut = parley(t, "", "run", "--fast-forward=fast")
	if code != 2 || !strings.Contains(errOut, "percentage") {
		t.Errorf("a bad bound: %d %q", code, errOut)
	}
}

// packetPlatformFile writes a packet platform, star-edr's numbers on a
// 4-ary 3-tree with mtu and routing as given, and returns its path.
func packetPlatformFile(t *testing.T, mtu, buffer string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "packet.toml")
	src := `name = "fattree-packet"
[network]
model = "packet"
o = "0.2us"
g = "0.1us"
S = "16KiB"
mtu = "` + mtu + `"
buffer = "` + buffer + `"
[network.topology]
kind = "fattree"
k = 4
n = 3
bandwidth = "12GB/s"
latency = "0.1us"
[machine]
[[machine.nodes]]
name = "n"
flops = "2TF/s"
memory_bandwidth = "200GB/s"
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunPacket runs every example on a packet platform: each finishes
// cleanly (the deadlock example excepted) and reports its packets; the
// JSON summary counts them.
func TestRunPacket(t *testing.T) {
	plat := packetPlatformFile(t, "4KiB", "64KiB")
	names, _ := fs.Glob(examples.FS, "*.parley")
	for _, name := range names {
		if name == "deadlock-ring.parley" {
			continue
		}
		code, out, errOut := parley(t, "", "run", name, "--platform", plat, "--show", "0")
		if code != 0 || !strings.Contains(out, "Network: packet model on a fattree 4-ary 3-tree") || !strings.Contains(out, " packets)") {
			t.Errorf("%s: %d %q\n%s", name, code, errOut, out)
		}
	}
	code, out, errOut := parley(t, "", "run", "--platform", plat, "--json", "--", "--steps", "1")
	var summary struct {
		Network struct {
			Model   string `json:"model"`
			Packets int64  `json:"packets"`
		} `json:"network"`
	}
	if err := json.Unmarshal([]byte(out), &summary); code != 0 || err != nil || summary.Network.Model != "packet" || summary.Network.Packets == 0 {
		t.Errorf("--json: %d %q %v %+v", code, errOut, err, summary.Network)
	}
}

// TestRunPacketErrors: a packet size or buffer that cannot work stops
// with status 2, naming the file and the field.
func TestRunPacketErrors(t *testing.T) {
	for _, c := range []struct{ mtu, buffer, want string }{
		{"0", "64KiB", `network.mtu: 0 bytes is not a packet size`},
		{"-1KiB", "64KiB", `network.mtu: "-1KiB" is negative`},
		{"8KiB", "4KiB", `network.buffer: 4096 bytes cannot hold a packet of network.mtu = 8192 bytes`},
	} {
		plat := packetPlatformFile(t, c.mtu, c.buffer)
		code, _, errOut := parley(t, "", "run", "--platform", plat)
		if code != 2 || !strings.Contains(errOut, plat+": "+c.want) {
			t.Errorf("mtu %s, buffer %s: %d %q, want %s", c.mtu, c.buffer, code, errOut, c.want)
		}
	}
	plat := packetPlatformFile(t, "4KiB", "64KiB")
	data, err := os.ReadFile(plat)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plat, []byte(strings.Replace(string(data), `kind = "fattree"`, "kind = \"fattree\"\nrouting = \"adaptive\"", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := parley(t, "", "run", "--platform", plat)
	if want := plat + `: network.topology.routing: "adaptive" is not a routing of a fattree (use updown)`; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("unknown routing: %d %q, want %s", code, errOut, want)
	}
}
