package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/internal/mpitest"
	"github.com/parley-hpc/parley/netmodel"
)

// TestCalibrateUsage: bad options and a machine without MPI are usage
// errors, one line each.
func TestCalibrateUsage(t *testing.T) {
	for _, args := range [][]string{
		{"calibrate", "extra"},
		{"calibrate", "--np", "1"},
		{"calibrate", "--max-size", "100"},
		{"calibrate", "--timeout", "0s"},
		{"calibrate", "--from-data", filepath.Join(t.TempDir(), "none.json"), "-o", filepath.Join(t.TempDir(), "p.toml")},
		{"validate"},
		{"validate", "ring.parley", "--tolerance", "lots"},
		{"validate", "ring.parley", "--tolerance", "-5%"},
		{"validate", "ring.parley", "--platform", "ideal", "--timeout", "-1s"},
		{"validate", "ring.parley", "--platform", "ideal", "--runs", "0"},
	} {
		if code, _, errOut := parley(t, "", args...); code != 2 || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d %q", strings.Join(args, " "), code, errOut)
		}
	}
	// Without --platform, validate wants calibrate's file.
	t.Chdir(t.TempDir())
	if code, _, errOut := parley(t, "", "validate", "ring.parley", "--tasks", "2"); code != 2 || !strings.Contains(errOut, "run parley calibrate first") {
		t.Errorf("validate without calibrated.toml: exit %d %q", code, errOut)
	}
	// Without MPI: a clear message and status 2.
	t.Setenv("PATH", t.TempDir())
	for _, args := range [][]string{{"calibrate"}, {"validate", "ring.parley", "--platform", "ideal"}} {
		code, _, errOut := parley(t, "", args...)
		if code != 2 || !strings.Contains(errOut, "not found") || !strings.Contains(errOut, "apt-get install openmpi-bin") {
			t.Errorf("%s without MPI: exit %d %q", args[0], code, errOut)
		}
	}
}

func TestParseTolerance(t *testing.T) {
	for in, want := range map[string]float64{"10%": 0.1, "5 %": 0.05, "0.2": 0.2, "0": 0} {
		if got, err := parseTolerance(in); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "%", "ten", "-1%"} {
		if _, err := parseTolerance(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// TestCalibrateFromData fits measurements saved on a 2-core machine
// (testdata/calibration-2cores.json, Open MPI 4.1.4 over shared memory)
// into a platform that the simulator runs with.
func TestCalibrateFromData(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.toml")
	code, _, errOut := parley(t, "", "calibrate", "--from-data", "testdata/calibration-2cores.json", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"R^2 = ", "Written by parley calibrate on vm at 2026-11-25", "tasks_per_node = 2"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the platform lacks %q:\n%s", want, text)
		}
	}
	p, err := netmodel.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	// Open MPI's shared-memory transport switches to a rendezvous near
	// 4 KiB (btl_vader_eager_limit, less the match header).
	if s := p.Network.Eager; s < 3072 || s > 4096 {
		t.Errorf("S = %d, want between 3 and 4 KiB", s)
	}
	// Its ping-pong steps after 256 B (the fast box ends), and S ends a
	// regime: [network] prices the rendezvous.
	var bounds []int64
	for _, r := range p.Network.Regimes {
		bounds = append(bounds, r.UpTo)
	}
	if !slices.Contains(bounds, 256) || !slices.Contains(bounds, p.Network.Eager) || bounds[len(bounds)-1] < p.Network.Eager {
		t.Errorf("regimes up to %v, want 256 B and S = %d B among them", bounds, p.Network.Eager)
	}
	if !strings.Contains(errOut, ", up to 256 B: ") || !strings.Contains(errOut, "one set of parameters for every size: ") {
		t.Errorf("calibrate does not report the regimes:\n%s", errOut)
	}
	if code, _, errOut := parley(t, "", "run", "pingpong-latency.parley", "--tasks", "2", "--platform", out, "--", "--maxbytes", "64K", "--reps", "3"); code != 0 {
		t.Errorf("run on the calibrated platform: exit %d\n%s", code, errOut)
	}
}

// TestCalibrateAndValidate measures this machine (with small messages
// only, to be quick) and validates the ping-pong against it: a loose
// tolerance passes, an impossible one fails with status 1.
func TestCalibrateAndValidate(t *testing.T) {
	mpitest.Tools(t)
	if testing.Short() {
		t.Skip("measures the machine with mpirun for about a minute")
	}
	dir := t.TempDir()
	plat := filepath.Join(dir, "here.toml")
	// Open MPI's rendezvous, 4 KiB on shared memory, is a break: the
	// regime below it ends at S. A machine busy with other work can hide
	// the switch in one calibration (S is then the largest size, 16 KiB),
	// so a second is allowed.
	var p *netmodel.Platform
	for attempt := 1; ; attempt++ {
		code, _, errOut := parley(t, "", "calibrate", "--max-size", "16KiB", "-o", plat)
		if code != 0 {
			t.Fatalf("calibrate: exit %d\n%s", code, errOut)
		}
		for _, stage := range []string{"ping-pong", "overheads", "trains", "compute"} {
			if !strings.Contains(errOut, "  "+stage+": ") {
				t.Errorf("calibrate did not report the %s stage:\n%s", stage, errOut)
			}
		}
		var err error
		if p, err = netmodel.Load(plat); err != nil {
			t.Fatal(err)
		}
		n := len(p.Network.Regimes)
		if n > 0 && p.Network.Regimes[n-1].UpTo == p.Network.Eager {
			break
		}
		if attempt == 2 {
			t.Fatalf("regimes %+v: none ends at S = %d B, twice", p.Network.Regimes, p.Network.Eager)
		}
		t.Logf("calibration %d: regimes %+v: none ends at S = %d B; calibrating again", attempt, p.Network.Regimes, p.Network.Eager)
	}
	validate := func(tolerance, runs string) (int, string, string) {
		return parley(t, "", "validate", "pingpong-latency.parley", "--tasks", "2", "--platform", plat, "--dir", dir,
			"--tolerance", tolerance, "--runs", runs, "--", "--maxbytes", "4K", "--reps", "20")
	}
	code, out, errOut := validate("1000%", "3")
	if code != 0 || !strings.Contains(out, `"1/2 RTT (usecs)" (median)`) || !strings.Contains(out, "Accuracy") {
		t.Errorf("validate, 1000%%: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "the compute kernels on 2 tasks now: ") {
		t.Errorf("validate did not check the machine's speed:\n%s", errOut)
	}
	for _, f := range []string{"pred/pingpong-latency-0.log", "meas/pingpong-latency-0.log", "meas/pingpong-latency.c", "meas/run-3/pingpong-latency-1.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("--dir: %v", err)
		}
	}
	code, out, errOut = validate("0.0001%", "1")
	if code != 1 || !strings.Contains(out, "OUTSIDE") || !strings.Contains(errOut, "outside the tolerance") {
		t.Errorf("validate, 0.0001%%: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestMachineDrift: the check compares per-task rates with the platform's
// share of a node, and warns beyond the tolerance.
func TestMachineDrift(t *testing.T) {
	plat := &netmodel.Platform{Machine: netmodel.Machine{TasksPerNode: 8, Nodes: []netmodel.NodeGroup{{FlopRate: 8e9, MemBandwidth: 40e9}}}}
	// 2 tasks on a node of 8 GF/s: 4 GF/s each.
	got := machineDrift("v", plat, 2, 3e9, 20e9, 0.1)
	want := "v: the compute kernels on 2 tasks now: 3 GF/s and 20 GB/s a task; the platform gives each 4 GF/s (-25%) and 20 GB/s (+0%)\n" +
		"v: this machine does not compute as the platform says: its predictions of computation are off by as much; calibrate again, on a quieter machine, and validate right after"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := machineDrift("v", plat, 2, 4.2e9, 19e9, 0.1); strings.Contains(got, "\n") {
		t.Errorf("within 10%%, a warning: %s", got)
	}
	// More tasks than a node holds: each node's tasks share it.
	if got := machineDrift("v", plat, 16, 1e9, 5e9, 0.1); !strings.Contains(got, "the platform gives each 1 GF/s (+0%) and 5 GB/s (+0%)") {
		t.Errorf("16 tasks on nodes of 8: %s", got)
	}
}
