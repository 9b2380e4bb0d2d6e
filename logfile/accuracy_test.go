package logfile

import (
	"math"
	"strings"
	"testing"
)

func TestAccuracies(t *testing.T) {
	sizes := &ColumnComparison{Heading: "Bytes", Label: "(only value)", Cells: []Cell{
		{Rank: 0, Row: 0, Measured: "8", Predicted: "8"}, {Rank: 0, Row: 1, Measured: "16", Predicted: "16"}}}
	times := &ColumnComparison{Heading: "Time", Label: "(median)", Cells: []Cell{
		{Rank: 0, Row: 0, Measured: "10", Predicted: "11", Ratio: 1.1, HasRatio: true},
		{Rank: 0, Row: 1, Measured: "20", Predicted: "14", Ratio: 0.7, HasRatio: true},
		{Rank: 1, Row: 0, Measured: "0", Predicted: "3"}, // no ratio: measured 0
	}}
	c := &Comparison{Columns: []*ColumnComparison{sizes, times}}
	accs := c.Accuracies()
	if len(accs) != 1 || accs[0].Column != times {
		t.Fatalf("got %d accuracies; the exact column must be left out", len(accs))
	}
	a := accs[0]
	if a.Cells != 2 || a.Missing != 1 || math.Abs(a.Error-0.2) > 1e-12 || math.Abs(a.Worst-0.3) > 1e-12 || a.WorstCell != 1 {
		t.Errorf("got %+v", a)
	}
	if a.Measured != 10 || a.Predicted != 11 { // medians of {0, 10, 20} and {3, 11, 14}
		t.Errorf("medians %v %v", a.Measured, a.Predicted)
	}
	var b strings.Builder
	if WriteAccuracies(&b, accs, 0.25) != true || !strings.Contains(b.String(), "20.0%") || !strings.Contains(b.String(), "30.0% (rank 0 row 2)") || !strings.Contains(b.String(), "(+1 unmatched)") {
		t.Errorf("at 25%%:\n%s", b.String())
	}
	b.Reset()
	if WriteAccuracies(&b, accs, 0.1) != false || !strings.Contains(b.String(), "OUTSIDE") {
		t.Errorf("at 10%%:\n%s", b.String())
	}
}

func TestMedianSet(t *testing.T) {
	run := func(times ...string) *Set {
		f := &File{Tables: []Table{{Columns: []Column{
			{Heading: "Bytes", Label: "(only value)", Rows: []string{"0", "8"}},
			{Heading: "Time", Label: "(median)", Rows: times},
		}}}}
		return &Set{Logs: []TaskLog{{Rank: 0, File: f}}}
	}
	runs := []*Set{run("1", "40"), run("2", "10", "7"), run("900", "20")}
	m := MedianSet(runs)
	got := m.Log(0).File.Tables[0].Columns
	if got[0].Rows[1] != "8" || got[1].Rows[0] != "2" || got[1].Rows[1] != "20" || len(got[1].Rows) != 2 {
		t.Errorf("medians: %v", got)
	}
	if runs[0].Log(0).File.Tables[0].Columns[1].Rows[0] != "1" {
		t.Error("MedianSet changed its first run")
	}
	dir := t.TempDir()
	if err := m.WriteFiles(dir, "prog"); err != nil {
		t.Fatal(err)
	}
	back, err := LoadSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.Log(0).File.Tables[0].Columns[1].Rows[1] != "20" {
		t.Errorf("written and read back: %v", back.Log(0).File.Tables[0].Columns)
	}
}
