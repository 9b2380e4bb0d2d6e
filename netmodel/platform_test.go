package netmodel

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fullPlatform sets every field a platform file has.
const fullPlatform = `name = "test"
description = "a test platform"

[network]
model = "loggp"
L = "1.5us"
o = "250ns"
g = "0.1us"
G = "12.5GB/s"
O = "10ps/B"
S = "32KiB"

[network.intra]
L = "0.2us"
G = "80ps/B"

[machine]
tasks_per_node = 4
mapping = "cyclic"
int_size = "8B"
page_size = "2MiB"

[[machine.nodes]]
name = "fast"
count = 2
flops = "4TF/s"
memory_bandwidth = "400GB/s"
speed = 2

[[machine.nodes]]
name = "slow"
flops = "1TF/s"
memory_bandwidth = "100GB/s"

[collectives]
allreduce = "ring"
bcast = "binomial"
`

func TestParseFull(t *testing.T) {
	got, err := Parse([]byte(fullPlatform), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := &Platform{
		Name:        "test",
		Description: "a test platform",
		Network: LogGP{
			Latency: 1500 * Nanosecond, Overhead: 250 * Nanosecond, Gap: 100 * Nanosecond,
			ByteGap: 80_000, ByteOverhead: 10_000, Eager: 32 << 10,
		},
		Intra: &LogGP{
			Latency: 200 * Nanosecond, Overhead: 250 * Nanosecond, Gap: 100 * Nanosecond,
			ByteGap: 80_000, ByteOverhead: 10_000, Eager: 32 << 10,
		},
		Machine: Machine{
			TasksPerNode: 4,
			Mapping:      Cyclic,
			Nodes: []NodeGroup{
				{Name: "fast", Count: 2, FlopRate: 4e12, MemBandwidth: 400e9, Speed: 2},
				{Name: "slow", Count: 0, FlopRate: 1e12, MemBandwidth: 100e9, Speed: 1},
			},
			IntSize:  8,
			PageSize: 2 << 20,
		},
		Collectives: map[Op]Algorithm{Allreduce: "ring", Bcast: "binomial"},
		Source:      "test.toml",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", diff)
	}
}

func TestParseDefaults(t *testing.T) {
	const minimal = `name = "min"
[network]
model = "loggp"
L = "1us"
o = "0"
g = 0
G = "1GB/s"
[machine]
nodes = [{name = "n", flops = 1e9, memory_bandwidth = "1GB/s"}]
`
	got, err := Parse([]byte(minimal), "min.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := &Platform{
		Name:    "min",
		Network: LogGP{Latency: Microsecond, ByteGap: 1_000_000, Eager: 64 << 10},
		Machine: Machine{
			TasksPerNode: 1,
			Mapping:      Block,
			Nodes:        []NodeGroup{{Name: "n", FlopRate: 1e9, MemBandwidth: 1e9, Speed: 1}},
			IntSize:      4,
			PageSize:     4096,
		},
		Source: "min.toml",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", diff)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		old, new string // the edit to fullPlatform
		field    string
		msg      string
	}{
		{`L = "1.5us"`, `L = "1.5 parsecs"`, "network.L", `"1.5 parsecs" is not a duration (use us, ns, ms or s)`},
		{`L = "1.5us"`, `L = 1.5`, "network.L", "needs a unit"},
		{`L = "1.5us"`, ``, "network.L", "missing"},
		{`L = "1.5us"`, `L = 1979-05-27`, "network.L", "must be a string with a unit, not a date or time"},
		{`model = "loggp"`, `model = "logp"`, "network.model", `"logp" is not a network model`},
		{`model = "loggp"`, `Model = "loggp"`, "network.model", "missing"},
		{`o = "250ns"`, `o = "-1us"`, "network.o", "is negative"},
		{`L = "1.5us"`, `L = "3000000s"`, "network.L", "beyond the longest time a simulation can reach"},
		{`g = "0.1us"`, `g = true`, "network.g", "must be a string with a unit"},
		{`G = "12.5GB/s"`, `G = "12.5GB"`, "network.G", "is not a bandwidth or time per byte"},
		{`O = "10ps/B"`, `O = "fast"`, "network.O", "is not a bandwidth or time per byte"},
		{`S = "32KiB"`, `S = "32k"`, "network.S", "is not a size"},
		{`G = "80ps/B"`, `G = "0GB/s"`, "network.intra.G", "must be positive"},
		{`G = "80ps/B"`, "G = \"80ps/B\"\nlatency = \"1us\"", "network.intra.latency", "unknown key"},
		{`G = "80ps/B"`, "G = \"80ps/B\"\nintra = {}", "network.intra.intra", "unknown key"},
		{`[network.intra]`, `[network.inter]`, "network.inter", "unknown key"},
		{`name = "test"`, `name = 3`, "name", "must be a string, not an integer"},
		{`name = "test"`, `nmae = "test"`, "name", "missing"},
		{`tasks_per_node = 4`, `tasks_per_node = 0`, "machine.tasks_per_node", "less than 1"},
		{`tasks_per_node = 4`, `tasks_per_node = "4"`, "machine.tasks_per_node", "must be an integer"},
		{`mapping = "cyclic"`, `mapping = "diagonal"`, "machine.mapping", `"diagonal" is not a mapping (use block or cyclic)`},
		{`int_size = "8B"`, `int_size = "8b"`, "machine.int_size", "is not a size"},
		{`page_size = "2MiB"`, `page_size = 0`, "machine.page_size", "less than 1"},
		{`count = 2`, `count = -1`, "machine.nodes[0].count", "is negative"},
		{`count = 2`, `count = 0`, "machine.nodes[0].count", "only allowed in the last group"},
		{`flops = "4TF/s"`, ``, "machine.nodes[0].flops", "missing"},
		{`flops = "1TF/s"`, `flops = "0TF/s"`, "machine.nodes[1].flops", "must be positive"},
		{`memory_bandwidth = "100GB/s"`, `memory_bandwidth = "100GF/s"`, "machine.nodes[1].memory_bandwidth", "is not a bandwidth"},
		{`speed = 2`, `speed = 0`, "machine.nodes[0].speed", "not a positive speed"},
		{`speed = 2`, `speed = "fast"`, "machine.nodes[0].speed", "must be a number"},
		{`speed = 2`, `Speed = 2`, "machine.nodes[0].Speed", "unknown key"},
		{`allreduce = "ring"`, `allreduce = ""`, "collectives.allreduce", "must name an algorithm"},
		{`allreduce = "ring"`, `allreduce = "magic"`, "collectives.allreduce", `"magic" is not an algorithm of allreduce; use one of recursive_doubling, rabenseifner, ring`},
		{`allreduce = "ring"`, `allreduc = "ring"`, "collectives.allreduc", "unknown key (known keys here: bcast, reduce, allreduce"},
		{`description = "a test platform"`, `color = "blue"`, "color", "unknown key"},
	} {
		src := strings.Replace(fullPlatform, c.old, c.new, 1)
		_, err := Parse([]byte(src), "test.toml")
		var perr *PlatformError
		if !errors.As(err, &perr) {
			t.Errorf("%s -> %s: got %v, want a *PlatformError", c.old, c.new, err)
			continue
		}
		if perr.Field != c.field || perr.Source != "test.toml" || !strings.Contains(perr.Error(), c.msg) {
			t.Errorf("%s -> %s: got %q (field %q), want field %q and %q", c.old, c.new, err, perr.Field, c.field, c.msg)
		}
		if prefix := "test.toml: " + c.field + ": "; !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("%s -> %s: error %q does not start with %q", c.old, c.new, err, prefix)
		}
	}
}

func TestParseWrongTypes(t *testing.T) {
	const head = "name = \"x\"\n"
	const network = "[network]\nmodel = \"loggp\"\nL = 0\no = 0\ng = 0\nG = 0\n"
	for _, c := range []struct{ src, field, msg string }{
		{head + "network = 1\nmachine = 2\n", "network", "must be a table, not an integer"},
		{head + "machine = 2\n" + network, "machine", "must be a table, not an integer"},
		{head + network + "[machine]\nnodes = [1, 2]\n", "machine.nodes", "must be an array of tables, not hold an integer"},
		{head + network + "[machine]\nnodes = 3\n", "machine.nodes", "must be an array of tables, not an integer"},
		{head + network + "[machine]\nnodes = []\n", "machine.nodes", "need at least one node group"},
		{head + network + "[machine]\nnodes = [{name = \"n\", flops = 1, memory_bandwidth = \"1B/s\", when = 1979-05-27}]\n",
			"machine.nodes[0].when", "unknown key"},
	} {
		_, err := Parse([]byte(c.src), "x.toml")
		var perr *PlatformError
		if !errors.As(err, &perr) || perr.Field != c.field || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want field %q and %q", c.src, err, c.field, c.msg)
		}
	}
}

func TestParseExactMessage(t *testing.T) {
	src := strings.Replace(fullPlatform, `L = "1.5us"`, `L = "1.5 parsecs"`, 1)
	_, err := Parse([]byte(src), "ib-edr.toml")
	const want = `ib-edr.toml: network.L: "1.5 parsecs" is not a duration (use us, ns, ms or s)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestParseSyntaxError(t *testing.T) {
	for _, c := range []struct {
		old, new string
		line     int
	}{
		{`g = "0.1us"`, `g = `, 8},
		{`O = "10ps/B"`, `G = "1GB/s"`, 10}, // a duplicate key
		{`mapping = "cyclic"`, `mapping = cyclic`, 19},
	} {
		src := strings.Replace(fullPlatform, c.old, c.new, 1)
		_, err := Parse([]byte(src), "test.toml")
		var perr *PlatformError
		if !errors.As(err, &perr) || perr.Line != c.line {
			t.Errorf("%s -> %s: got %v, want a *PlatformError on line %d", c.old, c.new, err, c.line)
			continue
		}
		if prefix := "test.toml:" + strconv.Itoa(c.line) + ": "; !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("%s -> %s: error %q does not start with %q", c.old, c.new, err, prefix)
		}
	}
}

func TestPresets(t *testing.T) {
	names := Presets()
	for _, want := range []string{"ethernet", "ib-edr", "ideal", "laptop"} {
		if !slices.Contains(names, want) {
			t.Errorf("Presets() = %v, missing %s", names, want)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("Presets() = %v, not sorted", names)
	}
	if !slices.Contains(names, DefaultPlatform) {
		t.Errorf("DefaultPlatform %q is not a preset", DefaultPlatform)
	}
	for _, name := range names {
		p, err := Preset(name)
		if err != nil {
			t.Errorf("preset %s: %v", name, err)
			continue
		}
		if p.Name != name || p.Source != "preset "+name || p.Description == "" {
			t.Errorf("preset %s: name %q, source %q, description %q", name, p.Name, p.Source, p.Description)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	if _, err := Preset("infiniband"); err == nil || !strings.Contains(err.Error(), "ib-edr") {
		t.Errorf(`Preset("infiniband") = %v, want an error listing the presets`, err)
	}
}

func TestPresetValues(t *testing.T) {
	ideal, err := Preset("ideal")
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(ideal.Network, LogGP{Eager: 64 << 10}) || ideal.Intra != nil {
		t.Errorf("ideal network = %+v, intra %v; want free", ideal.Network, ideal.Intra)
	}
	if got := ideal.Machine.Work(0, 1, 1000, 10); got != 1000 {
		t.Errorf("ideal: 1000 flops take %v, want 1ns", got)
	}
	edr, err := Preset("ib-edr")
	if err != nil {
		t.Fatal(err)
	}
	if edr.Intra == nil || edr.Intra.Latency >= edr.Network.Latency || edr.Intra.ByteGap >= edr.Network.ByteGap {
		t.Errorf("ib-edr: intra-node %+v should be faster than the network %+v", edr.Intra, edr.Network)
	}
}

func TestResolve(t *testing.T) {
	p, err := Resolve("ethernet")
	if err != nil || p.Name != "ethernet" {
		t.Fatalf(`Resolve("ethernet") = %v, %v`, p, err)
	}

	path := filepath.Join(t.TempDir(), "mine.toml")
	if err := os.WriteFile(path, []byte(fullPlatform), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err = Resolve(path)
	if err != nil || p.Name != "test" || p.Source != path {
		t.Fatalf("Resolve(%q) = %v, %v", path, p, err)
	}

	broken := filepath.Join(t.TempDir(), "broken.toml")
	if err := os.WriteFile(broken, []byte("name = \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(broken); err == nil || !strings.HasPrefix(err.Error(), broken+":1: ") {
		t.Errorf("Resolve(%q) = %v, want a syntax error on line 1", broken, err)
	}

	_, err = Resolve("no-such-platform")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf(`Resolve("no-such-platform") = %v, want fs.ErrNotExist`, err)
	}
	for _, name := range Presets() {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf(`Resolve("no-such-platform") = %v, want it to list preset %s`, err, name)
		}
	}
}
