package interp

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/parley-hpc/parley/internal/memlimit"
	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/logfile"
	"github.com/parley-hpc/parley/netmodel"
)

// taskLog is what one task has logged: a table per top-level statement,
// a column per LOGS item, as coNCePTuaL's run-time library keeps them.
type taskLog struct {
	tables []*logTable // in the order their top-level statements ran
	byTop  map[int32]*logTable
}

type logTable struct {
	cols []*logCol // by column index
}

type logCol struct {
	heading string
	fn      logfile.Func
	pct     float64
	raw     []float64 // values since the last aggregation
	stmt    *ir.Log   // where the column is logged, for errors
	rows    []string  // aggregated values
}

var aggFuncs = map[lang.AggFuncKind]logfile.Func{
	lang.Mean: logfile.Mean, lang.ArithmeticMean: logfile.Mean, lang.HarmonicMean: logfile.HarmonicMean,
	lang.GeometricMean: logfile.GeometricMean, lang.Median: logfile.Median,
	lang.StandardDeviation: logfile.StdDev, lang.MedianAbsoluteDeviation: logfile.MAD,
	lang.Variance: logfile.Variance, lang.Sum: logfile.Sum, lang.Minimum: logfile.Minimum,
	lang.Maximum: logfile.Maximum, lang.Final: logfile.Final, lang.Percentile: logfile.Percentile,
}

func aggregateOf(c *ir.LogColumn) logfile.Func {
	switch c.Agg {
	case lang.AggOnly:
		return logfile.Only
	case lang.AggHistogram:
		return logfile.Histogram
	case lang.AggFuncs:
		return aggFuncs[c.Func]
	}
	return logfile.AllData
}

// logRow records one execution of a LOGS statement.
func (t *task) logRow(st *ir.Log) {
	r := t.more()
	if r.log == nil {
		r.log = &taskLog{byTop: map[int32]*logTable{}}
	}
	top := t.sim.code[t.pc].table
	tab := r.log.byTop[top]
	if tab == nil {
		tab = &logTable{}
		r.log.byTop[top] = tab
		r.log.tables = append(r.log.tables, tab)
	}
	for _, c := range st.Columns {
		for len(tab.cols) <= c.Index {
			tab.cols = append(tab.cols, nil)
		}
		col := tab.cols[c.Index]
		if col == nil {
			col = &logCol{heading: c.Heading, fn: aggregateOf(c), stmt: st}
			if c.ValueOf {
				col.heading = t.sim.logComment(c.Heading)
			}
			tab.cols[c.Index] = col
		}
		if c.Pct != nil {
			col.pct = c.Pct.Float(t.frame())
		}
		if len(col.raw) == cap(col.raw) {
			t.sim.logGrowth(int64(max(cap(col.raw), 4))*loggedValueBytes, st)
		}
		col.raw = append(col.raw, c.X.Float(t.frame()))
	}
}

// loggedValueBytes is what one logged value may take: the value, and the
// text of a row of (ALL DATA) with its string header.
const loggedValueBytes = 8 + 16 + 24

// logGrowth accounts for the logs' data growing by n bytes for statement
// st, and stops the run with a "limit" problem there if that takes it over
// its memory limit.
func (s *Sim) logGrowth(n int64, st ir.Stmt) {
	s.logBytes += n
	if s.fits(0) {
		return
	}
	s.problem(Problem{Kind: "limit", Task: -1, Span: st.Span(), Msg: fmt.Sprintf(
		"the logs' data would hold %s, with %s for the tasks, over %s: log aggregates (THE MEAN OF ...) or fewer values",
		memlimit.Format(s.logBytes), memlimit.Format(s.memBase), memlimit.Describe(s.opts.MaxMemory))})
	s.fatal = true
	panic(errOverLimit)
}

// flush computes the aggregates of the current table's columns (COMPUTE
// AGGREGATES, and the end of each top-level statement).
func (l *taskLog) flush(top int32) {
	tab := l.byTop[top]
	if tab == nil {
		return
	}
	for _, c := range tab.cols {
		if c == nil || len(c.raw) == 0 {
			continue
		}
		switch c.fn {
		case logfile.AllData:
			for _, v := range c.raw {
				c.rows = append(c.rows, logfile.Number(v))
			}
		case logfile.Histogram:
			vals, tallies := logfile.Hist(c.raw)
			for i := range vals {
				c.rows = append(c.rows, logfile.Number(vals[i]), logfile.Number(tallies[i]))
			}
		default:
			v, err := logfile.Aggregate(c.fn, c.raw, c.pct)
			if err != nil {
				panic(&ir.RuntimeError{Span: c.stmt.Span(), Msg: fmt.Sprintf("column %q: %v; log it with an aggregate (THE MEAN OF ...) or add COMPUTES AGGREGATES after each value", c.heading, err)})
			}
			c.rows = append(c.rows, logfile.Number(v))
		}
		c.raw = c.raw[:0]
	}
}

// endTable aggregates what the finished top-level statement logged: t is
// at the instruction after its last (a new statement's opTable, or opEnd).
func (t *task) endTable() {
	if t.rare != nil && t.rare.log != nil && t.pc > 0 {
		t.rare.log.flush(t.sim.code[t.pc-1].table)
	}
}

// LogHeader returns the comment lines that start every task's log: which
// program ran, how, and that its times are predictions.
func (s *Sim) logHeader(rank int) []logfile.KV {
	p := s.plat
	timing := fmt.Sprintf("predicted by the loggp network model (LogGOPS L=%s o=%s g=%s G=%.4g GB/s O=%.4g GB/s S=%d bytes)",
		p.Network.Latency, p.Network.Overhead, p.Network.Gap, p.Network.ByteGap.Bandwidth()/1e9, p.Network.ByteOverhead.Bandwidth()/1e9, p.Network.Eager)
	switch p.Model {
	case netmodel.FlowModel:
		timing = fmt.Sprintf("predicted by the flow network model on a %v (o=%s g=%s O=%.4g GB/s S=%d bytes; link latency factor %g, bandwidth factor %g)",
			p.Topology, p.Network.Overhead, p.Network.Gap, p.Network.ByteOverhead.Bandwidth()/1e9, p.Network.Eager, p.Flow.LatencyFactor, p.Flow.BandwidthFactor)
	case netmodel.PacketModel:
		timing = fmt.Sprintf("predicted by the packet network model on a %v (o=%s g=%s O=%.4g GB/s S=%d bytes; MTU %d bytes, buffers of %d bytes)",
			p.Topology, p.Network.Overhead, p.Network.Gap, p.Network.ByteOverhead.Bandwidth()/1e9, p.Network.Eager, p.Packet.MTU, p.Packet.Buffer)
	}
	if n := len(p.Network.Regimes); n > 0 {
		timing += fmt.Sprintf(", those above for messages over %d bytes; %d regimes by size below (network.regime)", p.Network.Regimes[n-1].UpTo, n)
	}
	kv := []logfile.KV{
		{Key: "coNCePTuaL backend", Value: "parley interpreter (predicted times, not measured)"},
		{Key: "Timing", Value: timing},
		{Key: "Platform", Value: fmt.Sprintf("%s (%s)", p.Name, p.Source)},
		{Key: "Number of tasks", Value: strconv.FormatInt(s.g.NumTasks, 10)},
		{Key: "Rank (0<=P<tasks)", Value: strconv.Itoa(rank)},
		{Key: "Host name", Value: fmt.Sprintf("node %d (simulated)", p.Machine.NodeOf(int64(rank), s.g.NumTasks))},
		{Key: "Microsecond timer type", Value: "simulated clock (picosecond resolution)"},
		{Key: "Average timer overhead [elapsed_usecs]", Value: "0 (simulated)"},
		{Key: "Timer increment [elapsed_usecs]", Value: "1e-06 (simulated)"},
		{Key: "Random-number seed", Value: strconv.FormatUint(s.g.Seed, 10)},
		{Key: "Program", Value: s.prog.Lang.File},
		{Key: logfile.KeyRunID, Value: s.runID()},
	}
	for i, info := range s.prog.Params {
		kv = append(kv, logfile.KV{Key: info.Help, Value: strconv.FormatInt(s.g.Params[i], 10)})
	}
	return kv
}

// runID identifies the run in every task's log, so that logs of another
// run left in the same directory can be told apart. A prediction is a
// pure function of its inputs, so the identifier is a digest of them (the
// program, its parameters, the task count, the seed and the platform)
// formatted as a UUID: logs stay reproducible, and two runs share an
// identifier only when they write the same logs.
func (s *Sim) runID() string {
	if s.logID != "" {
		return s.logID
	}
	h := sha256.New()
	p := s.plat
	fmt.Fprintf(h, "%q %q %d %d %v\n", s.prog.Lang.File, s.prog.Lang.Source, s.g.NumTasks, s.g.Seed, s.g.Params)
	fmt.Fprintf(h, "%q %q %v %v %v\n", p.Name, p.Source, p.Network, p.Machine, p.Collectives)
	if p.Topology != nil {
		fmt.Fprintf(h, "%v %+v %+v\n", p.Model, *p.Topology, p.Flow)
		if p.Model == netmodel.PacketModel {
			fmt.Fprintf(h, "%+v\n", p.Packet)
		}
	}
	if p.Intra != nil {
		fmt.Fprintf(h, "%v\n", *p.Intra)
	}
	d := h.Sum(nil)
	d[6] = d[6]&0x0f | 0x80 // version 8: a custom UUID
	d[8] = d[8]&0x3f | 0x80 // the RFC 9562 variant
	s.logID = fmt.Sprintf("%x-%x-%x-%x-%x", d[0:4], d[4:6], d[6:8], d[8:10], d[10:16])
	return s.logID
}

// logComment looks up THE VALUE OF key among the log-file comments, then
// the environment, as coNCePTuaL does; unknown keys are empty.
func (s *Sim) logComment(key string) string {
	for _, kv := range s.logHeader(0) {
		if kv.Key == key {
			return kv.Value
		}
	}
	return os.Getenv(key)
}

// WriteLogs writes one coNCePTuaL-format log per task into dir, named
// base-<rank>.log, and removes the logs of base that an earlier run with
// more tasks left in dir (see logfile.StaleLogs), which would otherwise
// be read as part of this run. As with coNCePTuaL, a program that never
// logs (see ir.Program.UsesLogs) writes no logs at all, and so leaves no
// log of base in dir.
func (s *Sim) WriteLogs(dir, base string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing logs: %w", err)
	}
	status := "Program exited normally."
	if len(s.problems) > 0 {
		status = "Program exited abnormally: " + s.problems[0].Msg
	}
	written := 0
	if s.prog.UsesLogs() {
		written = len(s.tasks)
	}
	for i := range written {
		t := &s.tasks[i]
		f := &logfile.File{Header: s.logHeader(i), Source: string(s.prog.Lang.Source)}
		if t.rare != nil && t.rare.log != nil {
			for _, tab := range t.rare.log.tables {
				var table logfile.Table
				for _, c := range tab.cols {
					if c == nil {
						continue
					}
					table.Columns = append(table.Columns, logfile.Column{
						Heading: c.heading, Label: logfile.Label(c.fn, c.pct), Hist: c.fn == logfile.Histogram, Rows: c.rows,
					})
				}
				f.Tables = append(f.Tables, table)
			}
		}
		f.Footer = []logfile.KV{
			{Value: status},
			{Key: "Elapsed time", Value: fmt.Sprintf("%s seconds (predicted)", logfile.Number(t.finish.Micros()/1e6))},
			// Whole-run point-to-point totals, which a compiled run must match.
			{Key: "Messages sent", Value: strconv.FormatInt(t.totals().msgsSent, 10)},
			{Key: "Messages received", Value: strconv.FormatInt(t.totals().msgsRecv, 10)},
			{Key: "Bytes sent", Value: strconv.FormatInt(t.totals().bytesSent, 10)},
			{Key: "Bytes received", Value: strconv.FormatInt(t.totals().bytesRecv, 10)},
		}
		path := filepath.Join(dir, fmt.Sprintf("%s-%d.log", base, i))
		out, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("writing logs: %w", err)
		}
		werr := f.Write(out)
		if cerr := out.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("writing %s: %w", path, werr)
		}
	}
	stale, err := logfile.StaleLogs(dir, base, int64(written))
	if err != nil {
		return fmt.Errorf("writing logs: looking for an earlier run's logs: %w", err)
	}
	for _, path := range stale {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("writing logs: removing an earlier run's log: %w", err)
		}
	}
	return nil
}
