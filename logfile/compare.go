package logfile

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Header and footer keys that sets and comparisons read.
const (
	keyBackend    = "coNCePTuaL backend"
	keyTasks      = "Number of tasks"
	keyRank       = "Rank (0<=P<tasks)"
	keyProcessor  = "Processor (0<=P<tasks)" // coNCePTuaL's own name for the rank
	keyProgram    = "Program"
	keyExecutable = "Executable name" // coNCePTuaL's name for the program
	keyElapsed    = "Elapsed time"
	banner        = "# coNCePTuaL log file"
)

// TotalKeys are the optional footer lines that count a task's
// point-to-point traffic over the whole run, as "Messages sent: N". A
// faithful prediction sends exactly what the measured program sends.
var TotalKeys = [...]string{"Messages sent", "Messages received", "Bytes sent", "Bytes received"}

// ErrNotLog is wrapped by LoadSet's error for a file that is not a
// coNCePTuaL log at all.
var ErrNotLog = errors.New("not a coNCePTuaL log file")

// A Set is the logs of one run: one File per task, by rank.
type Set struct {
	Path      string    // the path LoadSet was given
	Base      string    // the files' common name before -<rank>.log, if any
	Program   string    // the program's name from the headers, else Base
	Backend   string    // the "coNCePTuaL backend" header
	Predicted bool      // the backend says its times are predicted, not measured
	Tasks     int       // the "Number of tasks" header, 0 if absent
	Logs      []TaskLog // one per task, by ascending rank
	Warnings  []string  // files LoadSet left out, and why
}

// TaskLog is one task's log in a Set.
type TaskLog struct {
	Rank int
	Path string
	File *File
}

// Kind is "predicted" or "measured".
func (s *Set) Kind() string {
	if s.Predicted {
		return "predicted"
	}
	return "measured"
}

// Ranks lists the ranks that have a log, in ascending order.
func (s *Set) Ranks() []int {
	r := make([]int, len(s.Logs))
	for i, l := range s.Logs {
		r[i] = l.Rank
	}
	return r
}

// Log returns the log of a rank, or nil if the set has none.
func (s *Set) Log(rank int) *TaskLog {
	i, ok := slices.BinarySearchFunc(s.Logs, rank, func(l TaskLog, r int) int { return cmp.Compare(l.Rank, r) })
	if !ok {
		return nil
	}
	return &s.Logs[i]
}

// Missing lists the ranks below the "Number of tasks" header that have no
// log in the set.
func (s *Set) Missing() []int {
	var m []int
	for r := range s.Tasks {
		if s.Log(r) == nil {
			m = append(m, r)
		}
	}
	return m
}

func lookup(kvs []KV, key string) (string, bool) {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}

// Elapsed returns the footer's elapsed time in seconds ("Elapsed time:
// 1.5 seconds", with or without "(predicted)").
func (f *File) Elapsed() (seconds float64, ok bool) {
	v, ok := lookup(f.Footer, keyElapsed)
	if !ok {
		return 0, false
	}
	fields := strings.Fields(v)
	if len(fields) == 0 {
		return 0, false
	}
	s, err := strconv.ParseFloat(fields[0], 64)
	return s, err == nil
}

// Total returns one of the footer's message totals (see TotalKeys).
func (f *File) Total(key string) (int64, bool) {
	v, ok := lookup(f.Footer, key)
	if !ok {
		return 0, false
	}
	fields := strings.Fields(v)
	if len(fields) == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(fields[0], 10, 64)
	return n, err == nil
}

// Comparison is a measured set of logs set against a predicted one.
type Comparison struct {
	Measured, Predicted *Set

	// Ranks have a log in both sets and were compared; the others are
	// listed, not compared.
	Ranks                       []int
	OnlyMeasured, OnlyPredicted []int

	// Columns are matched by table index, heading, label (and order among
	// equal ones), in table order.
	Columns []*ColumnComparison

	// Notes describe differences of shape: tables, columns or rows found
	// on one side only, logs of different programs, missing totals.
	Notes []string

	// TotalsChecked counts the ranks whose message totals both sets carry;
	// TotalDiffs lists the totals that differ.
	TotalsChecked int
	TotalDiffs    []TotalDiff

	// Elapsed summarizes the footers' elapsed times, in seconds, across
	// every log of each set.
	Elapsed struct{ Measured, Predicted Stats }
}

// ColumnComparison is one column's cells across the compared ranks.
type ColumnComparison struct {
	Table   int // the table's index in each log, from 0
	Heading string
	Label   string // the aggregate, e.g. "(median)"
	Hist    bool   // a histogram column: cells are "value (×tally)"
	Cells   []Cell // by rank, then row
}

// Cell is one row of a column on one rank.
type Cell struct {
	Rank, Row           int    // Row counts from 0
	Measured, Predicted string // as logged; "" where that side has no such row
	Ratio               float64
	HasRatio            bool // Ratio is Predicted/Measured: both are numbers and Measured != 0
}

// TotalDiff is a message total on which the two sets disagree.
type TotalDiff struct {
	Rank                int
	Total               string // one of TotalKeys
	Measured, Predicted int64
}

// Stats summarizes values across ranks.
type Stats struct {
	N                int
	Min, Median, Max float64
}

func statsOf(xs []float64) Stats {
	if len(xs) == 0 {
		return Stats{}
	}
	return Stats{N: len(xs), Min: slices.Min(xs), Median: median(xs), Max: slices.Max(xs)}
}

// Name is the column as the text shows it: quoted heading and label.
func (c *ColumnComparison) Name() string {
	label := c.Label
	if c.Hist {
		label = "(histogram)"
	}
	return strconv.Quote(c.Heading) + " " + label
}

// Exact reports whether every cell holds the same value on both sides:
// message sizes, parameters and other columns that are not timings.
func (c *ColumnComparison) Exact() bool {
	for _, cell := range c.Cells {
		if cell.Measured == "" || cell.Measured != cell.Predicted {
			return false
		}
	}
	return len(c.Cells) > 0
}

// TotalsAgree reports whether no rank's message totals differ.
func (c *Comparison) TotalsAgree() bool { return len(c.TotalDiffs) == 0 }

// DifferingRanks lists the ranks whose message totals differ.
func (c *Comparison) DifferingRanks() []int {
	var r []int
	for _, d := range c.TotalDiffs {
		if len(r) == 0 || r[len(r)-1] != d.Rank {
			r = append(r, d.Rank)
		}
	}
	return r
}

// Compare sets the measured logs against the predicted ones, rank by
// rank: tables by index, columns by heading and label, rows by index.
// Ranks with a log on one side only are listed, not compared. It also
// compares the footers' message totals, which a faithful prediction
// matches exactly, and elapsed times.
func Compare(measured, predicted *Set) (*Comparison, error) {
	if measured == nil || predicted == nil || len(measured.Logs) == 0 || len(predicted.Logs) == 0 {
		return nil, errors.New("comparing logs: both sets need at least one log")
	}
	c := &Comparison{Measured: measured, Predicted: predicted}
	c.Ranks, c.OnlyMeasured, c.OnlyPredicted = splitRanks(measured.Ranks(), predicted.Ranks())
	if a, b := programName(measured.Program), programName(predicted.Program); a != "" && b != "" && a != b {
		c.Notes = append(c.Notes, fmt.Sprintf("the logs come from different programs: %s measured, %s predicted", measured.Program, predicted.Program))
	}
	var n, totals notes
	cols := map[colKey]*ColumnComparison{}
	for _, r := range c.Ranks {
		m, p := measured.Log(r).File, predicted.Log(r).File
		c.compareTables(r, m, p, cols, &n)
		onlyM, onlyP := c.compareTotals(r, m, p)
		if onlyM {
			totals.add("message totals only in the measured logs, so not checked", r)
		}
		if onlyP {
			totals.add("message totals only in the predicted logs, so not checked", r)
		}
	}
	if c.TotalsChecked > 0 { // else the text says so once
		n.merge(&totals)
	}
	slices.SortStableFunc(c.Columns, func(a, b *ColumnComparison) int { return cmp.Compare(a.Table, b.Table) })
	c.Notes = append(c.Notes, n.list()...)
	for i, s := range []*Set{measured, predicted} {
		if r := unfinished(s); len(r) > 0 {
			side := [...]string{"measured", "predicted"}[i]
			c.Notes = append(c.Notes, fmt.Sprintf("the %s logs of %s have no footer: the run may have been cut short", side, RankList(r)))
		}
	}
	c.Elapsed.Measured, c.Elapsed.Predicted = elapsedStats(measured), elapsedStats(predicted)
	return c, nil
}

// unfinished lists the ranks whose logs end before the footer.
func unfinished(s *Set) []int {
	var r []int
	for _, l := range s.Logs {
		if len(l.File.Footer) == 0 {
			r = append(r, l.Rank)
		}
	}
	return r
}

// programName reduces "dir/ring.parley" or "./ring" to "ring".
func programName(p string) string {
	p = filepath.Base(p)
	if p == "." || p == string(filepath.Separator) {
		return ""
	}
	return strings.TrimSuffix(strings.TrimSuffix(p, ".parley"), ".ncptl")
}

// splitRanks splits two sorted rank lists into the common ranks and those
// of each side only.
func splitRanks(a, b []int) (both, onlyA, onlyB []int) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			onlyA = append(onlyA, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			onlyB = append(onlyB, b[j])
			j++
		default:
			both = append(both, a[i])
			i++
			j++
		}
	}
	return both, onlyA, onlyB
}

// colKey identifies a column across logs: its table, heading and label,
// and which of the columns with that heading and label it is.
type colKey struct {
	table          int
	heading, label string
	nth            int
}

type keyedColumn struct {
	key colKey
	col *Column
}

// keyedColumns returns the columns of table ti (none if there is no such
// table) with their keys.
func keyedColumns(tables []Table, ti int) []keyedColumn {
	if ti >= len(tables) {
		return nil
	}
	seen := map[colKey]int{}
	var out []keyedColumn
	for i := range tables[ti].Columns {
		col := &tables[ti].Columns[i]
		k := colKey{table: ti, heading: col.Heading, label: col.Label}
		n := seen[k]
		seen[k] = n + 1
		k.nth = n
		out = append(out, keyedColumn{k, col})
	}
	return out
}

func findColumn(cols []keyedColumn, k colKey) *Column {
	for _, kc := range cols {
		if kc.key == k {
			return kc.col
		}
	}
	return nil
}

// compareTables matches one rank's tables and columns and records their
// cells.
func (c *Comparison) compareTables(rank int, m, p *File, cols map[colKey]*ColumnComparison, n *notes) {
	if len(m.Tables) != len(p.Tables) {
		n.add(fmt.Sprintf("%d tables measured, %d predicted", len(m.Tables), len(p.Tables)), rank)
	}
	for ti := range max(len(m.Tables), len(p.Tables)) {
		mcols, pcols := keyedColumns(m.Tables, ti), keyedColumns(p.Tables, ti)
		keys := make([]colKey, 0, len(mcols)+len(pcols))
		for _, kc := range mcols {
			keys = append(keys, kc.key)
		}
		for _, kc := range pcols {
			if findColumn(mcols, kc.key) == nil {
				keys = append(keys, kc.key)
			}
		}
		for _, k := range keys {
			mc, pc := findColumn(mcols, k), findColumn(pcols, k)
			cc := cols[k]
			if cc == nil {
				col := cmp.Or(mc, pc)
				cc = &ColumnComparison{Table: ti, Heading: col.Heading, Label: col.Label, Hist: col.Hist}
				cols[k] = cc
				c.Columns = append(c.Columns, cc)
			}
			switch {
			case mc == nil:
				n.add(fmt.Sprintf("table %d, column %s: only in the predicted logs", ti+1, cc.Name()), rank)
			case pc == nil:
				n.add(fmt.Sprintf("table %d, column %s: only in the measured logs", ti+1, cc.Name()), rank)
			case rowCount(mc) != rowCount(pc):
				n.add(fmt.Sprintf("table %d, column %s: %d rows measured, %d predicted", ti+1, cc.Name(), rowCount(mc), rowCount(pc)), rank)
			}
			cc.Cells = append(cc.Cells, compareCells(rank, mc, pc)...)
		}
	}
}

// rowCount is a column's number of rows (0 for nil).
func rowCount(c *Column) int {
	switch {
	case c == nil:
		return 0
	case c.Hist:
		return len(c.Rows) / 2
	}
	return len(c.Rows)
}

// cellText is a column's row r as text, "" if it has no such row.
func cellText(c *Column, r int) string {
	switch {
	case r >= rowCount(c):
		return ""
	case c.Hist:
		return c.Rows[2*r] + " (×" + c.Rows[2*r+1] + ")"
	}
	return c.Rows[r]
}

func compareCells(rank int, mc, pc *Column) []Cell {
	rows := max(rowCount(mc), rowCount(pc))
	cells := make([]Cell, rows)
	for r := range rows {
		cell := Cell{Rank: rank, Row: r, Measured: cellText(mc, r), Predicted: cellText(pc, r)}
		cell.Ratio, cell.HasRatio = ratio(cell.Measured, cell.Predicted)
		cells[r] = cell
	}
	return cells
}

// ratio is predicted/measured when both are finite numbers and measured
// is not 0.
func ratio(measured, predicted string) (float64, bool) {
	m, ok1 := number(measured)
	p, ok2 := number(predicted)
	if !ok1 || !ok2 || m == 0 {
		return 0, false
	}
	return p / m, true
}

func number(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return v, err == nil && !math.IsInf(v, 0) && !math.IsNaN(v)
}

// compareTotals checks one rank's message totals. It returns which side
// alone carries some of them.
func (c *Comparison) compareTotals(rank int, m, p *File) (onlyMeasured, onlyPredicted bool) {
	checked := false
	for _, key := range TotalKeys {
		mv, mok := m.Total(key)
		pv, pok := p.Total(key)
		switch {
		case mok && pok:
			checked = true
			if mv != pv {
				c.TotalDiffs = append(c.TotalDiffs, TotalDiff{Rank: rank, Total: key, Measured: mv, Predicted: pv})
			}
		case mok:
			onlyMeasured = true
		case pok:
			onlyPredicted = true
		}
	}
	if checked {
		c.TotalsChecked++
	}
	return onlyMeasured, onlyPredicted
}

// hasTotals reports whether any log of s carries a message total.
func hasTotals(s *Set) bool {
	for _, l := range s.Logs {
		for _, key := range TotalKeys {
			if _, ok := l.File.Total(key); ok {
				return true
			}
		}
	}
	return false
}

func elapsedStats(s *Set) Stats {
	var xs []float64
	for _, l := range s.Logs {
		if v, ok := l.File.Elapsed(); ok {
			xs = append(xs, v)
		}
	}
	return statsOf(xs)
}

// notes gathers messages with the ranks they concern, in first-seen order.
type notes struct {
	order []string
	ranks map[string][]int
}

func (n *notes) add(msg string, rank int) {
	if n.ranks == nil {
		n.ranks = map[string][]int{}
	}
	if _, ok := n.ranks[msg]; !ok {
		n.order = append(n.order, msg)
	}
	n.ranks[msg] = append(n.ranks[msg], rank)
}

func (n *notes) merge(o *notes) {
	for _, msg := range o.order {
		for _, r := range o.ranks[msg] {
			n.add(msg, r)
		}
	}
}

func (n *notes) list() []string {
	out := make([]string, len(n.order))
	for i, msg := range n.order {
		out[i] = fmt.Sprintf("%s (%s)", msg, RankList(n.ranks[msg]))
	}
	return out
}

// RankList writes ascending ranks compactly: "rank 3", "ranks 0-3, 7".
func RankList(ranks []int) string {
	switch len(ranks) {
	case 0:
		return "no ranks"
	case 1:
		return "rank " + strconv.Itoa(ranks[0])
	}
	return "ranks " + rankRanges(ranks)
}

// rankRanges writes ascending ranks as ranges: "0-3, 7".
func rankRanges(ranks []int) string {
	var parts []string
	for i := 0; i < len(ranks); {
		j := i
		for j+1 < len(ranks) && ranks[j+1] == ranks[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(ranks[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ranks[i], ranks[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// SummaryRanks is the number of ranks beyond which Comparison.WriteText
// summarizes a column across ranks instead of listing every rank.
const SummaryRanks = 8

// TextOptions controls Comparison.WriteText.
type TextOptions struct {
	// AllRanks lists every rank's cells even when a column spans more
	// than SummaryRanks ranks.
	AllRanks bool
}

// WriteText writes the comparison as aligned text for a terminal: the two
// sets; per table, per column, a block of "rank row measured predicted
// ratio" lines (or, beyond SummaryRanks ranks, min/median/max across
// ranks per row); the message totals; and the elapsed times. A column
// whose values agree exactly takes one line, and when it is a table's
// first column (a message size, say) its values label the other columns'
// rows. Tables and rows count from 1.
func (c *Comparison) WriteText(w io.Writer, opt TextOptions) error {
	b := bufio.NewWriter(w)
	c.writeSets(b)
	c.writeColumns(b, opt)
	c.writeTotals(b)
	c.writeElapsed(b)
	return b.Flush()
}

func (c *Comparison) writeSets(w io.Writer) {
	row := func(side string, s *Set) []string {
		return []string{side + ":", s.Path, fmt.Sprintf("(%s, %s)", cmp.Or(s.Program, "unnamed program"), RankList(s.Ranks())), cmp.Or(s.Backend, "no backend header")}
	}
	writeGrid(w, "", "llll", [][]string{row("measured", c.Measured), row("predicted", c.Predicted)})
	fmt.Fprintln(w, "ratio = predicted / measured (1 is a perfect prediction)")
	if len(c.OnlyMeasured) > 0 {
		fmt.Fprintf(w, "not compared: %s only in the measured logs\n", RankList(c.OnlyMeasured))
	}
	if len(c.OnlyPredicted) > 0 {
		fmt.Fprintf(w, "not compared: %s only in the predicted logs\n", RankList(c.OnlyPredicted))
	}
	for _, n := range c.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

func (c *Comparison) writeColumns(w io.Writer, opt TextOptions) {
	if len(c.Columns) == 0 {
		fmt.Fprintln(w, "\nNo tables: the compared logs hold none.")
		return
	}
	for start := 0; start < len(c.Columns); {
		end := start + 1
		for end < len(c.Columns) && c.Columns[end].Table == c.Columns[start].Table {
			end++
		}
		writeTable(w, c.Columns[start:end], opt)
		start = end
	}
}

// writeTable writes the columns of one table.
func writeTable(w io.Writer, cols []*ColumnComparison, opt TextOptions) {
	fmt.Fprintf(w, "\nTable %d\n", cols[0].Table+1)
	var key *ColumnComparison
	if cols[0].Exact() && !cols[0].Hist {
		key = cols[0]
	}
	for _, col := range cols {
		ranks := cellRanks(col)
		switch {
		case col.Exact():
			fmt.Fprintf(w, "  %s: the same in both sets (%d values, %s)\n", col.Name(), len(col.Cells), RankList(ranks))
		case len(ranks) > SummaryRanks && !opt.AllRanks:
			writeSummary(w, col, key, ranks)
		default:
			writeCells(w, col, key)
		}
	}
}

// cellRanks lists the ranks that have cells in a column.
func cellRanks(col *ColumnComparison) []int {
	var r []int
	for _, cell := range col.Cells {
		if len(r) == 0 || r[len(r)-1] != cell.Rank {
			r = append(r, cell.Rank)
		}
	}
	return r
}

// cellKey identifies a cell's place: rank and row.
type cellKey struct{ rank, row int }

// keyValues maps each place to the key column's value there.
func keyValues(key *ColumnComparison) map[cellKey]string {
	if key == nil {
		return nil
	}
	m := make(map[cellKey]string, len(key.Cells))
	for _, cell := range key.Cells {
		m[cellKey{cell.Rank, cell.Row}] = cell.Measured
	}
	return m
}

// writeCells lists a column's cells rank by rank.
func writeCells(w io.Writer, col, key *ColumnComparison) {
	fmt.Fprintf(w, "\n  %s\n", col.Name())
	keys := keyValues(key)
	head := []string{"rank", "row"}
	if key != nil {
		head = append(head, key.Heading)
	}
	rows := [][]string{append(head, "measured", "predicted", "ratio")}
	for _, cell := range col.Cells {
		row := []string{strconv.Itoa(cell.Rank), strconv.Itoa(cell.Row + 1)}
		if key != nil {
			row = append(row, orDash(keys[cellKey{cell.Rank, cell.Row}]))
		}
		rows = append(rows, append(row, orDash(cell.Measured), orDash(cell.Predicted), ratioText(cell.Ratio, cell.HasRatio)))
	}
	writeGrid(w, "    ", "", rows)
}

// writeSummary writes, per row, the min, median and max across ranks of
// the measured values, the predicted values and the ratios.
func writeSummary(w io.Writer, col, key *ColumnComparison, ranks []int) {
	fmt.Fprintf(w, "\n  %s: %d ranks (%s), min/median/max across ranks\n", col.Name(), len(ranks), rankRanges(ranks))
	keys := keyValues(key)
	byRow := map[int][]Cell{}
	for _, cell := range col.Cells {
		byRow[cell.Row] = append(byRow[cell.Row], cell)
	}
	head, align := []string{"row"}, "r"
	if key != nil {
		head, align = append(head, key.Heading), "rr"
	}
	rows := [][]string{append(head, "", "ranks", "min", "median", "max")}
	for r := range len(byRow) { // each rank's rows count from 0
		s := summarize(byRow[r], keys)
		lead := []string{strconv.Itoa(r + 1)}
		if key != nil {
			lead = append(lead, orDash(s.key))
		}
		blank := make([]string, len(lead))
		rows = append(rows,
			slices.Concat(lead, statsRow("measured", s.measured, Number)),
			slices.Concat(blank, statsRow("predicted", s.predicted, Number)),
			slices.Concat(blank, statsRow("ratio", s.ratio, func(v float64) string { return ratioText(v, true) })))
	}
	writeGrid(w, "    ", align+"lrrrr", rows)
}

// rowSummary is one row of a column across ranks.
type rowSummary struct {
	measured, predicted, ratio Stats
	key                        string // the key column's value if the same on every rank
}

func summarize(cells []Cell, keys map[cellKey]string) rowSummary {
	var ms, ps, rs []float64
	key, sameKey := "", true
	for i, cell := range cells {
		if v, ok := number(cell.Measured); ok {
			ms = append(ms, v)
		}
		if v, ok := number(cell.Predicted); ok {
			ps = append(ps, v)
		}
		if cell.HasRatio {
			rs = append(rs, cell.Ratio)
		}
		k := keys[cellKey{cell.Rank, cell.Row}]
		if i == 0 {
			key = k
		}
		sameKey = sameKey && k == key
	}
	if !sameKey {
		key = ""
	}
	return rowSummary{measured: statsOf(ms), predicted: statsOf(ps), ratio: statsOf(rs), key: key}
}

// statsRow is a side's name, count, min, median and max.
func statsRow(name string, s Stats, format func(float64) string) []string {
	if s.N == 0 {
		return []string{name, "0", "-", "-", "-"}
	}
	return []string{name, strconv.Itoa(s.N), format(s.Min), format(s.Median), format(s.Max)}
}

func (c *Comparison) writeTotals(w io.Writer) {
	fmt.Fprintln(w)
	n := len(c.Ranks)
	switch {
	case c.TotalsChecked == 0:
		fmt.Fprintf(w, "message totals not checked: %s\n", c.totalsAbsence())
		return
	case len(c.TotalDiffs) == 0 && c.TotalsChecked == n:
		fmt.Fprintf(w, "message totals agree on all %s\n", plural(n, "rank"))
		return
	case len(c.TotalDiffs) == 0:
		fmt.Fprintf(w, "message totals agree on all %s that carry them (of %d compared)\n", plural(c.TotalsChecked, "rank"), n)
		return
	}
	differ := c.DifferingRanks()
	fmt.Fprintf(w, "message totals DIFFER on %d of %s: the prediction does not send what the program sends\n", len(differ), plural(c.TotalsChecked, "rank"))
	rows := [][]string{{"rank", "total", "measured", "predicted", "difference"}}
	for _, d := range c.TotalDiffs {
		rows = append(rows, []string{strconv.Itoa(d.Rank), d.Total, strconv.FormatInt(d.Measured, 10), strconv.FormatInt(d.Predicted, 10),
			fmt.Sprintf("%+d", d.Predicted-d.Measured)})
	}
	writeGrid(w, "  ", "rlrrr", rows)
}

// totalsAbsence says which side lacks the "Messages sent: N" footers.
func (c *Comparison) totalsAbsence() string {
	switch m, p := hasTotals(c.Measured), hasTotals(c.Predicted); {
	case m && p:
		return "no rank carries them in both sets"
	case m:
		return "only the measured logs carry them"
	case p:
		return "only the predicted logs carry them"
	}
	return `neither set's logs carry them ("Messages sent: N" and the like in the footer)`
}

func (c *Comparison) writeElapsed(w io.Writer) {
	m, p := c.Elapsed.Measured, c.Elapsed.Predicted
	fmt.Fprintln(w)
	if m.N == 0 && p.N == 0 {
		fmt.Fprintln(w, "elapsed time: in neither set's footers")
		return
	}
	rows := [][]string{
		{"elapsed time (s)", "ranks", "min", "median", "max"},
		statsRow("  measured", m, Number),
		statsRow("  predicted", p, Number),
	}
	if m.N > 0 && p.N > 0 {
		r := func(a, b float64) string { v, ok := ratioOf(a, b); return ratioText(v, ok) }
		rows = append(rows, []string{"  ratio", "", r(m.Min, p.Min), r(m.Median, p.Median), r(m.Max, p.Max)})
	}
	writeGrid(w, "", "lrrrr", rows)
}

func ratioOf(measured, predicted float64) (float64, bool) {
	if measured == 0 {
		return 0, false
	}
	return predicted / measured, true
}

// ratioText shows a ratio to 4 significant digits, "-" if there is none.
func ratioText(r float64, ok bool) string {
	if !ok {
		return "-"
	}
	return strconv.FormatFloat(r, 'g', 4, 64)
}

func orDash(s string) string { return cmp.Or(s, "-") }

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// WriteText writes the logs of the given ranks readably: the run that
// wrote them (backend, and whether the times are predicted or measured),
// then per rank each table's headings, labels and rows, and the footer.
func (s *Set) WriteText(w io.Writer, ranks []int) error {
	for _, r := range ranks {
		if s.Log(r) == nil {
			return fmt.Errorf("%s has no log for rank %d (it has %s)", s.Path, r, RankList(s.Ranks()))
		}
	}
	b := bufio.NewWriter(w)
	times := "measured"
	if s.Predicted {
		times = "predicted by a model, not measured"
	}
	info := [][]string{
		{"logs:", fmt.Sprintf("%s (%s)", s.Path, plural(len(s.Logs), "file"))},
		{"program:", cmp.Or(s.Program, "unnamed")},
		{"backend:", cmp.Or(s.Backend, "no backend header")},
		{"times:", times},
		{"ranks:", rankRanges(s.Ranks())},
	}
	if s.Tasks > 0 {
		info[4][1] += fmt.Sprintf(" of %d tasks", s.Tasks)
	}
	if m := s.Missing(); len(m) > 0 {
		info = append(info, []string{"missing:", RankList(m) + " (no log)"})
	}
	writeGrid(b, "", "ll", info)
	for _, r := range ranks {
		s.Log(r).writeText(b)
	}
	return b.Flush()
}

func (l *TaskLog) writeText(w io.Writer) {
	fmt.Fprintf(w, "\nRank %d (%s)\n", l.Rank, l.Path)
	if len(l.File.Tables) == 0 {
		fmt.Fprintln(w, "  no tables: this task logged nothing")
	}
	for i, t := range l.File.Tables {
		fmt.Fprintf(w, "  Table %d\n", i+1)
		writeGrid(w, "    ", "", tableRows(&t))
	}
	if len(l.File.Footer) == 0 {
		fmt.Fprintln(w, "  no footer: the run may have been cut short")
	}
	for _, kv := range l.File.Footer {
		if kv.Key == "" {
			fmt.Fprintf(w, "  %s\n", kv.Value)
		} else {
			fmt.Fprintf(w, "  %s: %s\n", kv.Key, kv.Value)
		}
	}
}

// tableRows lays a table out as its heading row, label row and data rows.
func tableRows(t *Table) [][]string {
	var heads, labs []string
	n := 0
	for _, c := range t.Columns {
		if c.Hist {
			heads = append(heads, c.Heading, c.Heading)
			labs = append(labs, "(hist. values)", "(hist. tallies)")
		} else {
			heads = append(heads, c.Heading)
			labs = append(labs, c.Label)
		}
		n = max(n, rowCount(&c))
	}
	rows := [][]string{heads, labs}
	for r := range n {
		var row []string
		for i := range t.Columns {
			c := &t.Columns[i]
			if c.Hist {
				row = append(row, cellAt(c.Rows, 2*r), cellAt(c.Rows, 2*r+1))
			} else {
				row = append(row, cellAt(c.Rows, r))
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func cellAt(rows []string, i int) string {
	if i < len(rows) {
		return rows[i]
	}
	return ""
}

// printable shows a cell (a heading may hold any byte) on one line: with
// Go's escapes if it holds a control character, else as it is.
func printable(s string) string {
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// writeGrid writes rows of cells in aligned columns, each line after
// indent. align has 'l' (left) or 'r' (right) per column; columns beyond
// it are right-aligned. Lines carry no trailing spaces.
func writeGrid(w io.Writer, indent, align string, rows [][]string) {
	var widths []int
	for _, row := range rows {
		for i, cell := range row {
			row[i] = printable(cell)
			cell = row[i]
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		b.Reset()
		b.WriteString(indent)
		for i, cell := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if i < len(align) && align[i] == 'l' {
				b.WriteString(cell)
				b.WriteString(pad)
			} else {
				b.WriteString(pad)
				b.WriteString(cell)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
