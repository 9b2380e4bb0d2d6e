package logfile

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// MedianSet returns a copy of runs[0] whose every numeric cell is the
// median of that cell (same rank, table, column and row) across the runs:
// repeated runs of one program, whose medians other work on the machine
// disturbs less than any one run. Histogram columns, and cells that are
// not numbers, stay as runs[0] has them.
func MedianSet(runs []*Set) *Set {
	out := *runs[0]
	out.Logs = make([]TaskLog, len(runs[0].Logs))
	for i, l := range runs[0].Logs {
		f := *l.File
		f.Tables = make([]Table, len(l.File.Tables))
		for ti, t := range l.File.Tables {
			cols := make([]Column, len(t.Columns))
			for ci, c := range t.Columns {
				cols[ci] = c
				cols[ci].Rows = slices.Clone(c.Rows)
				if c.Hist {
					continue
				}
				for ri := range c.Rows {
					if v, ok := cellMedian(runs, l.Rank, ti, ci, ri); ok {
						cols[ci].Rows[ri] = Number(v)
					}
				}
			}
			f.Tables[ti] = Table{Columns: cols}
		}
		out.Logs[i] = TaskLog{Rank: l.Rank, Path: l.Path, File: &f}
	}
	return &out
}

// cellMedian is the median of one cell's numbers across the runs.
func cellMedian(runs []*Set, rank, table, col, row int) (float64, bool) {
	var vs []float64
	for _, s := range runs {
		l := s.Log(rank)
		if l == nil || table >= len(l.File.Tables) || col >= len(l.File.Tables[table].Columns) {
			continue
		}
		if c := l.File.Tables[table].Columns[col]; row < len(c.Rows) {
			if v, ok := number(c.Rows[row]); ok {
				vs = append(vs, v)
			}
		}
	}
	if len(vs) == 0 {
		return 0, false
	}
	return median(vs), true
}

// WriteFiles writes each log of the set into dir as BASE-RANK.log.
func (s *Set) WriteFiles(dir, base string) error {
	for _, l := range s.Logs {
		f, err := os.Create(filepath.Join(dir, base+"-"+strconv.Itoa(l.Rank)+".log"))
		if err != nil {
			return err
		}
		err = l.File.Write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
