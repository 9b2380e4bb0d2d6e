package scalatrace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// sharedData holds copies of the shared NAS traces (ScalaTrace-TI, public).
var sharedData = filepath.Join("testdata", "nas")

// TestTotals expands every shared trace and checks its point-to-point
// totals against the table in the data's README, which was computed
// independently of this reader.
func TestTotals(t *testing.T) {
	cases := []struct {
		file       string
		ranks      int
		msgs, byts int64
	}{
		{"lu-A-4-td.trace", 4, 126536, 487302080},
		{"lu-A-8-td.trace", 8, 316338, 974604224},
		{"lu-A-16-td.trace", 16, 759204, 1461906432},
		{"cg-A-4-ti.trace", 4, 6720, 186395648},
		{"cg-A-8-ti.trace", 8, 23552, 279662592},
		{"cg-A-16-ti.trace", 16, 47104, 559325184},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			tr, err := Read(filepath.Join(sharedData, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if tr.NumRanks != c.ranks {
				t.Errorf("NumRanks = %d, want %d", tr.NumRanks, c.ranks)
			}
			var sends, sbytes, recvs, rbytes int64
			for r := range tr.NumRanks {
				for e := range tr.Events(r) {
					switch {
					case e.Op.IsSend():
						sends++
						sbytes += e.Bytes()
					case e.Op.IsRecv():
						recvs++
						rbytes += e.Bytes()
					}
				}
			}
			if sends != c.msgs || sbytes != c.byts || recvs != c.msgs || rbytes != c.byts {
				t.Errorf("sends %d (%d B), receives %d (%d B); want %d messages of %d B", sends, sbytes, recvs, rbytes, c.msgs, c.byts)
			}
		})
	}
}

// TestSampleCounts checks every record's expanded call count against the
// sample count of its statistic lines: the tracer adds one sample per
// call, so this pins down the loop and rank-list semantics.
func TestSampleCounts(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(sharedData, "*.trace"))
	if len(files) == 0 {
		t.Skip("no shared traces")
	}
	for _, file := range files {
		tr, err := Read(file)
		if err != nil {
			t.Fatal(err)
		}
		calls := map[int]float64{}
		for r := range tr.NumRanks {
			for e := range tr.Events(r) {
				if e.Op != trace.Compute {
					calls[e.Pos.Line]++
				}
			}
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := parse(file, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, rec := range recs {
			n := max(rec.comp[0].n, rec.comp[1].n)
			if n == 0 {
				continue
			}
			checked++
			if calls[rec.opLine] != n {
				t.Errorf("%s:%d: EVENT%d expands to %g calls, its COMP lines count %g", filepath.Base(file), rec.opLine, rec.event, calls[rec.opLine], n)
			}
		}
		if checked < len(recs)/2 {
			t.Errorf("%s: only %d of %d records have COMP lines", file, checked, len(recs))
		}
	}
}
