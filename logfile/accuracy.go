package logfile

import (
	"fmt"
	"io"
	"math"
	"strconv"
)

// Accuracy is how far a column's predictions are from its measurements.
type Accuracy struct {
	Column *ColumnComparison
	// Cells counts the cells with a ratio (numbers on both sides, the
	// measured one not 0); Missing the others.
	Cells, Missing int
	// Measured and Predicted are the medians of the column's numbers on
	// each side: its value, when it has one cell.
	Measured, Predicted float64
	// Error is the mean absolute percentage error, the mean over the
	// cells of |predicted / measured - 1| (seed 000 reports this MAPE);
	// Worst is the largest, in Cells[WorstCell].
	Error, Worst float64
	WorstCell    int
}

// Accuracies returns the accuracy of each column that holds timings: the
// columns whose values differ between the two sets and that have at least
// one cell with a ratio. Columns that agree exactly (message sizes,
// parameters) are left out.
func (c *Comparison) Accuracies() []Accuracy {
	var out []Accuracy
	for _, col := range c.Columns {
		if col.Exact() || col.Hist {
			continue
		}
		a := Accuracy{Column: col}
		var ms, ps []float64
		var sum float64
		for i, cell := range col.Cells {
			if v, ok := number(cell.Measured); ok {
				ms = append(ms, v)
			}
			if v, ok := number(cell.Predicted); ok {
				ps = append(ps, v)
			}
			if !cell.HasRatio {
				a.Missing++
				continue
			}
			e := math.Abs(cell.Ratio - 1)
			sum += e
			if a.Cells == 0 || e > a.Worst {
				a.Worst, a.WorstCell = e, i
			}
			a.Cells++
		}
		if a.Cells == 0 {
			continue
		}
		a.Error = sum / float64(a.Cells)
		a.Measured, a.Predicted = median(ms), median(ps)
		out = append(out, a)
	}
	return out
}

// WriteAccuracies writes one line per column: its cells, the medians of
// the measured and predicted values, the mean and the worst error, and
// whether the mean error is within tolerance (a fraction: 0.1 is 10%).
// It reports whether every column is.
func WriteAccuracies(w io.Writer, accs []Accuracy, tolerance float64) (allWithin bool) {
	pct := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }
	rows := [][]string{{"table", "column", "cells", "measured", "predicted", "error", "worst", ""}}
	allWithin = true
	for _, a := range accs {
		verdict := "ok"
		if a.Error > tolerance {
			verdict, allWithin = "OUTSIDE", false
		}
		worst := a.Column.Cells[a.WorstCell]
		cells := strconv.Itoa(a.Cells)
		if a.Missing > 0 {
			cells += fmt.Sprintf(" (+%d unmatched)", a.Missing)
		}
		rows = append(rows, []string{strconv.Itoa(a.Column.Table + 1), a.Column.Name(), cells,
			Number(a.Measured), Number(a.Predicted), pct(a.Error),
			fmt.Sprintf("%s (rank %d row %d)", pct(a.Worst), worst.Rank, worst.Row+1), verdict})
	}
	writeGrid(w, "  ", "rlr", rows)
	return allWithin
}
