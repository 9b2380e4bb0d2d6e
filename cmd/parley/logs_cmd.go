package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/parley-hpc/parley/logfile"
)

func init() {
	register(&command{
		name:    "logs",
		args:    "LOGS [PREDICTED] [--rank N | --all]",
		summary: "show a run's logs, or compare measured logs with predicted ones",
		details: logsHelp,
		flags: func(fs *pflag.FlagSet) any {
			o := &logsOptions{}
			fs.BoolVar(&o.all, "all", false, "show every rank; when comparing, list every rank instead of summarizing beyond 8")
			fs.IntVar(&o.rank, "rank", 0, "show this rank's tables instead of rank 0's")
			return o
		},
		run: runLogs,
	})
}

const logsHelp = `
A run writes one coNCePTuaL-format log per task, named PROGRAM-RANK.log:
"parley run PROG --logs DIR" writes logs of PREDICTED times into DIR, and a
compiled program (parley compile, or coNCePTuaL's own) writes logs of
MEASURED times into the directory it runs in. LOGS names one run's logs:
  a directory    every PROGRAM-RANK.log in it (of one program)
  a prefix       pred/ring means pred/ring-0.log, pred/ring-1.log, ...
  a file         pred/ring-0.log alone

With one argument, prints the logs: which backend wrote them, whether the
times are measured or predicted, and rank 0's tables (headings, aggregate
labels, rows) and footer; --rank N shows another rank, --all every rank.

With two, MEASURED then PREDICTED, compares them task by task: tables by
position, columns by heading and aggregate, rows by position. Each value
is shown on both sides with the ratio predicted / measured, so 1 is a
perfect prediction and 0.5 a prediction twice too fast. Columns that agree
exactly, such as message sizes, take one line and label the others' rows.
A column logged by more than 8 ranks is summarized per row by the min,
median and max across ranks (--all lists every rank instead). Then come
the message totals of each task, which must agree exactly (the same
messages and bytes sent and received), and the elapsed times.

Example: predict a ring on 4 tasks, measure it, compare.
  parley run examples/ring.parley --tasks 4 --logs pred
  mpirun -np 4 ./ring        # ring.parley compiled to C+MPI
  parley logs . pred

Exit status: 0 on success; 1 if the message totals differ on any rank (the
prediction does not communicate as the program does); 2 for bad usage or
logs that cannot be read.`

type logsOptions struct {
	all  bool
	rank int
}

func runLogs(e *env, inv *invocation) int {
	o := inv.opts.(*logsOptions)
	pos := inv.pos
	rankSet := inv.changed("rank")
	switch {
	case len(pos) == 0 || len(pos) > 2:
		fmt.Fprintf(e.stderr, "parley logs: give one set of logs to show, or two (measured, then predicted) to compare; see \"parley logs --help\"\n")
		return 2
	case o.all && rankSet:
		fmt.Fprintf(e.stderr, "parley logs: --rank and --all do not go together\n")
		return 2
	case len(pos) == 2 && rankSet:
		fmt.Fprintf(e.stderr, "parley logs: --rank is for showing one set of logs; a comparison covers every rank\n")
		return 2
	case len(pos) == 1:
		rank := o.rank
		if !rankSet {
			rank = -1
		}
		return showLogs(e, pos[0], rank, o.all)
	}
	return compareLogs(e, pos[0], pos[1], o.all)
}

// loadLogs reads a set of logs, reporting a failure on stderr as the
// command cmd ("parley logs").
func loadLogs(e *env, cmd, path string) *logfile.Set {
	s, err := logfile.LoadSet(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", cmd, err)
		return nil
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(e.stderr, "%s: warning: %s\n", cmd, w)
	}
	return s
}

// showLogs prints one set: rank, or with rank -1 rank 0 (else the lowest
// rank present), or every rank.
func showLogs(e *env, path string, rank int, all bool) int {
	s := loadLogs(e, "parley logs", path)
	if s == nil {
		return 2
	}
	ranks := s.Ranks()
	switch {
	case all:
	case rank >= 0:
		ranks = []int{rank}
	default: // rank 0, or the lowest rank present
		ranks = ranks[:1]
	}
	if err := s.WriteText(e.stdout, ranks); err != nil {
		fmt.Fprintf(e.stderr, "parley logs: %v\n", err)
		return 2
	}
	if !all && len(s.Log(ranks[0]).File.Tables) == 0 {
		if logged := loggingRanks(s); len(logged) > 0 {
			fmt.Fprintf(e.stdout, "\n%s logged tables: show one with --rank N, or all with --all\n", logfile.RankList(logged))
		}
	}
	return 0
}

// loggingRanks lists the ranks whose logs hold tables.
func loggingRanks(s *logfile.Set) []int {
	var r []int
	for _, l := range s.Logs {
		if len(l.File.Tables) > 0 {
			r = append(r, l.Rank)
		}
	}
	return r
}

// compareLogs compares a measured set with a predicted one.
func compareLogs(e *env, measuredPath, predictedPath string, all bool) int {
	cmp, code := writeComparison(e, "parley logs", measuredPath, predictedPath, all)
	if cmp == nil {
		return code
	}
	if !totalsAgree(e, "parley logs", cmp) {
		return 1
	}
	return 0
}

// writeComparison loads a measured and a predicted set of logs, compares
// them and prints the comparison, as the command cmd. On failure it says
// why and returns a nil comparison with exit status 2.
func writeComparison(e *env, cmd, measuredPath, predictedPath string, all bool) (*logfile.Comparison, int) {
	m := loadLogs(e, cmd, measuredPath)
	if m == nil {
		return nil, 2
	}
	p := loadLogs(e, cmd, predictedPath)
	if p == nil {
		return nil, 2
	}
	m, p = orient(e, cmd, m, p)
	c, err := logfile.Compare(m, p)
	if err == nil {
		err = c.WriteText(e.stdout, logfile.TextOptions{AllRanks: all})
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", cmd, err)
		return nil, 2
	}
	return c, 0
}

// totalsAgree reports whether the compared sets send and receive the same
// messages, and says so on stderr when they do not.
func totalsAgree(e *env, cmd string, c *logfile.Comparison) bool {
	if c.TotalsAgree() {
		return true
	}
	fmt.Fprintf(e.stderr, "%s: message totals differ on %s: the prediction does not communicate as the program does\n",
		cmd, logfile.RankList(c.DifferingRanks()))
	return false
}

// orient returns the measured set first. It notes on stderr when both sets
// are of one kind (it compares them anyway) and swaps them when the
// predicted set came first.
func orient(e *env, cmd string, first, second *logfile.Set) (measured, predicted *logfile.Set) {
	switch {
	case first.Predicted == second.Predicted:
		fmt.Fprintf(e.stderr, "%s: note: %s and %s both hold %s times; comparing them anyway, %s as measured\n",
			cmd, first.Path, second.Path, first.Kind(), first.Path)
	case first.Predicted:
		fmt.Fprintf(e.stderr, "%s: note: %s holds predicted times and %s measured ones; comparing %s as measured\n",
			cmd, first.Path, second.Path, second.Path)
		return second, first
	}
	return first, second
}
