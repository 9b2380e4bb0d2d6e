package interp_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/netmodel"
)

// sizedPingPong bounces one message of --n bytes.
const sizedPingPong = `n IS "bytes" AND COMES FROM "--n" OR "-n" WITH DEFAULT 0.
TASK 0 SENDS AN n BYTE MESSAGE TO TASK 1 THEN
TASK 1 SENDS AN n BYTE MESSAGE TO TASK 0.`

// testRegimes are three regimes over testPlatform (L 5us, o 1us, g 2us,
// G 1 ns/B, O 0, S 64 KiB): small messages, the rest of the eager ones,
// and rendezvous messages up to 1 MiB.
const testRegimes = `
[[network.regime]]
upto = "256B"
o = "0.2us"
L = "0.1us"

[[network.regime]]
upto = "64KiB"
G = "2ns/B"
O = "1ps/B"

[[network.regime]]
upto = "1MiB"
L = "20us"
g = "3us"
`

// TestRegimesPriceBySize: a message is priced exactly as it would be on
// a platform whose [network] has the values of its size's regime.
func TestRegimesPriceBySize(t *testing.T) {
	plat := platform(t, testRegimes)
	for _, c := range []struct {
		n    int64
		same []string // testPlatform's lines, edited to the regime's values
	}{
		{0, []string{`o = "1us"`, `o = "0.2us"`, `L = "5us"`, `L = "0.1us"`}},
		{256, []string{`o = "1us"`, `o = "0.2us"`, `L = "5us"`, `L = "0.1us"`}},
		{257, []string{`G = "1GB/s"`, `G = "2ns/B"`, `O = "0ns/B"`, `O = "1ps/B"`}},
		{64 << 10, []string{`G = "1GB/s"`, `G = "2ns/B"`, `O = "0ns/B"`, `O = "1ps/B"`}},
		{64<<10 + 1, []string{`L = "5us"`, `L = "20us"`, `g = "2us"`, `g = "3us"`}},
		{1 << 20, []string{`L = "5us"`, `L = "20us"`, `g = "2us"`, `g = "3us"`}},
		{1<<20 + 1, nil},
	} {
		arg := strconv.FormatInt(c.n, 10)
		got, _ := runOK(t, sizedPingPong, 2, plat, "--n", arg)
		same, err := netmodel.Parse([]byte(strings.NewReplacer(c.same...).Replace(testPlatform)), "same.toml")
		if err != nil {
			t.Fatal(err)
		}
		want, _ := runOK(t, sizedPingPong, 2, same, "--n", arg)
		if got.Predicted != want.Predicted {
			t.Errorf("%d B: %v with regimes, %v on the regime's values", c.n, got.Predicted, want.Predicted)
		}
	}
	// And in closed form: 100 B go eagerly both ways, each leg o + L + o +
	// (n-1)G with o = 0.2 us, L = 0.1 us, G = 1 ns/B.
	res, _ := runOK(t, sizedPingPong, 2, plat, "--n", "100")
	if want := 2 * (500*netmodel.Nanosecond + 99*netmodel.Nanosecond); res.Predicted != want {
		t.Errorf("100 B ping-pong = %v, want %v", res.Predicted, want)
	}
}

// TestRegimesLogHeader: the logs say that the parameters they show are
// not those of every size.
func TestRegimesLogHeader(t *testing.T) {
	sim, err := interp.New(build(t, "p.parley", sizedPingPong+"\nTASK 0 LOGS n AS \"bytes\"."), interp.Options{NumTasks: 2, Platform: platform(t, testRegimes), Logs: true})
	if err != nil {
		t.Fatal(err)
	}
	if res := sim.Run(); !res.OK() {
		t.Fatal(res.Problems)
	}
	dir := t.TempDir()
	if err := sim.WriteLogs(dir, "p"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "p-0.log"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "S=65536 bytes), those above for messages over 1048576 bytes; 3 regimes by size below (network.regime)"; !strings.Contains(string(data), want) {
		t.Errorf("log header lacks %q:\n%s", want, data)
	}
}

// TestRegimesCPUSideOfNetworkModels: under flow and packet a regime's o,
// g and O are the CPU's costs, as [network]'s are; the topology carries
// the bytes.
func TestRegimesCPUSideOfNetworkModels(t *testing.T) {
	for _, m := range networkModels {
		star := "kind = \"star\"\nnodes = 2"
		plat := netPlatform(t, m.model, "", star)
		cpu := plat.Network
		cpu.Overhead, cpu.Gap, cpu.ByteOverhead = 3*interp.Microsecond, interp.Microsecond, 5000
		plat.Network.Regimes = []netmodel.Regime{{UpTo: 1024, LogGP: cpu}}
		if err := plat.Validate(); err != nil {
			t.Fatal(err)
		}
		same := netPlatform(t, m.model, "", star)
		same.Network = cpu
		for _, n := range []string{"1000", "1024"} {
			got, _ := runOK(t, sizedPingPong, 2, plat, "--n", n)
			want, _ := runOK(t, sizedPingPong, 2, same, "--n", n)
			if got.Predicted != want.Predicted || got.Predicted <= 4*3*interp.Microsecond {
				t.Errorf("%s, %s B: %v with a regime, %v on its values (at least 12 us of o)", m.model, n, got.Predicted, want.Predicted)
			}
		}
		// Above the regime, [network]'s o = 0 prices the message.
		got, _ := runOK(t, sizedPingPong, 2, plat, "--n", "1025")
		base, _ := runOK(t, sizedPingPong, 2, netPlatform(t, m.model, "", star), "--n", "1025")
		if got.Predicted != base.Predicted {
			t.Errorf("%s, 1025 B: %v with a regime up to 1 KiB, %v without", m.model, got.Predicted, base.Predicted)
		}
	}
}
