package interp_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/netmodel"
)

// packetPlatform is flowPlatform under the packet model: 4 KiB packets,
// 64 KiB buffers.
func packetPlatform(t testing.TB, topology string) *netmodel.Platform {
	t.Helper()
	return netPlatform(t, "packet", "", topology)
}

// TestPacketIncast: 8 tasks send 1 MiB each to task 0 through its one
// 10 GB/s link: 8 MiB / (10 GB/s) plus the latency of the two links,
// within 3%, the link busy all along; 8 x 256 packets of 0 hops.
func TestPacketIncast(t *testing.T) {
	res := runFlow(t, "TASKS t SUCH THAT t > 0 SEND A 1 MEGABYTE MESSAGE TO TASK 0.", 9, packetPlatform(t, `kind = "star"
nodes = 9`))
	want := 2*interp.Microsecond + interp.Time(8*mib*1e12/10e9)
	if !within(res.Predicted, want, 0.03) {
		t.Errorf("incast takes %v, want %v within 3%%", res.Predicted, want)
	}
	n := res.Network
	if n.Model != "packet" || n.Packets != 8*256 || n.Messages != 8 || n.AvgHops != 0 ||
		n.MaxLinkUtilization < 0.97 || n.Busiest[0].Name != "node 0 down" {
		t.Errorf("network %+v, want 2048 packets and node 0 down busy all along", n)
	}
}

// TestPacketTorusNeighbours: the six-neighbour exchange on a 4x4x4 torus
// crosses one link between routers per packet; each 1 KiB message is one
// packet.
func TestPacketTorusNeighbours(t *testing.T) {
	res := runFlow(t, nearestNeighbours, 64, packetPlatform(t, `kind = "torus"
dims = [4, 4, 4]`))
	if n := res.Network; n.AvgHops != 1.0 || n.Messages != 6*64 || n.Packets != 6*64 || n.Bytes != 6*64*1024 {
		t.Errorf("network %+v, want 384 packets of 1 KiB, 1.0 hops each", n)
	}
}

// TestPacketJSON: the JSON summary counts the packets.
func TestPacketJSON(t *testing.T) {
	plat := packetPlatform(t, `kind = "fattree"
k = 4
n = 3`)
	a := runFlow(t, "ALL TASKS ASYNCHRONOUSLY SEND A 64 KILOBYTE MESSAGE TO ALL OTHER TASKS THEN ALL TASKS AWAIT COMPLETION.", 64, plat)
	var js bytes.Buffer
	if err := a.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Network struct {
			Model   string `json:"model"`
			Packets int64  `json:"packets"`
		} `json:"network"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Network.Model != "packet" || out.Network.Packets != 64*63*16 {
		t.Errorf("JSON network %+v, want 64,512 packets", out.Network)
	}
}
