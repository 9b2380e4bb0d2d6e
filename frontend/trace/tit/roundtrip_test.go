package tit_test

import (
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	writer "github.com/parley-hpc/parley/codegen/tit"
	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/frontend/trace/tit"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/netmodel"
	"github.com/parley-hpc/parley/parser"
)

// roundTripTasks are the task counts of the larger examples; the rest run
// on 8 (as in cmd/parley's export tests).
var roundTripTasks = map[string]int64{"halo3d.parley": 64, "halo2d.parley": 16, "wavefront.parley": 16, "lulesh.parley": 27}

// TestRoundTrip runs every example through the interpreter with
// codegen/tit's writer watching, reads the files back and checks, rank by
// rank, that the program's messages (sends and receives with a
// non-negative tag: the writer gives the steps of collectives over some
// of the tasks negative ones) are those the interpreter counted, and that
// every collective the writer wrote is read.
func TestRoundTrip(t *testing.T) {
	names, err := fs.Glob(examples.FS, "*.parley")
	if err != nil || len(names) == 0 {
		t.Fatalf("%d examples, %v", len(names), err)
	}
	plat, err := netmodel.Preset(netmodel.DefaultPlatform)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			n := roundTripTasks[name]
			if n == 0 {
				n = 8
			}
			src, _ := fs.ReadFile(examples.FS, name)
			prog, diags := parser.Parse(name, src)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			p, err := ir.Build(prog)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			base := strings.TrimSuffix(name, ".parley")
			w, err := writer.Create(dir, base, n, &plat.Machine)
			if err != nil {
				t.Fatal(err)
			}
			res, err := interp.Run(p, interp.Options{NumTasks: n, Platform: plat, Seed: 1, Observer: w})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			tr, err := tit.Read(w.IndexPath())
			if err != nil {
				t.Fatal(err)
			}
			if tr.NumRanks != int(n) {
				t.Fatalf("%d ranks, want %d", tr.NumRanks, n)
			}
			var colls, collMsgs int64
			for r := range tr.NumRanks {
				var sent, recvd, bytesSent, bytesRecvd int64
				for e := range tr.Events(r) {
					switch {
					case e.Op.IsSend() && e.Tag >= 0:
						sent++
						bytesSent += e.Bytes()
					case e.Op.IsRecv() && e.Tag >= 0:
						recvd++
						bytesRecvd += e.Bytes()
					case e.Op.IsCollective():
						colls++
					}
					if e.Pos.File != filepath.Join(dir, base+"-"+strconv.Itoa(r)+".tit") {
						t.Fatalf("rank %d's event %v comes from %s", r, e, e.Pos)
					}
				}
				ts := res.Tasks[r]
				collMsgs += ts.CollMsgs
				if sent != ts.MsgsSent || bytesSent != ts.BytesSent {
					t.Errorf("rank %d sends %d messages, %d bytes; the interpreter %d, %d", r, sent, bytesSent, ts.MsgsSent, ts.BytesSent)
				}
				// A run with a problem (deadlock-ring) may post receives
				// that never complete, which the trace holds but the
				// interpreter does not count.
				if res.OK() && (recvd != ts.MsgsReceived || bytesRecvd != ts.BytesReceived) || recvd < ts.MsgsReceived {
					t.Errorf("rank %d receives %d messages, %d bytes; the interpreter %d, %d", r, recvd, bytesRecvd, ts.MsgsReceived, ts.BytesReceived)
				}
			}
			if collMsgs > 0 && colls == 0 {
				t.Errorf("the run has collective messages but the trace no collective")
			}
			if res.OK() {
				if _, err := trace.Match(tr, func(int, *trace.Event) {}); err != nil {
					t.Errorf("the trace does not match up: %v", err)
				}
			}
		})
	}
}
