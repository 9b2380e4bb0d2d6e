package tit

import (
	"fmt"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
	"github.com/parley-hpc/parley/frontend/trace/wordline"
)

// How strongly a line tells the two forms apart, strongest first.
const (
	// byArity: SimGrid itself would refuse the line in the other form
	// (send with 2 or 4 arguments, wait with 0 or 3).
	byArity = iota
	// byValue: the line reads in both forms, but its values only make
	// sense in one (send 1 1e6 0: a tag is not 1e6; send 1 0 1024: no old
	// datatype id is 1024).
	byValue
	// bySpelling: the action is spelled as only one generation of SimGrid
	// registered it (Isend, waitAll before 3.20; isend, waitall since).
	// Case is otherwise ignored, so this is the weakest clue.
	bySpelling
	numStrengths
)

// clue is a line that tells which form a trace is in.
type clue struct {
	form      form
	file      string
	line, col int
	what      string
	seq       int // order among the lines read
}

func (c *clue) String() string { return fmt.Sprintf("%s:%d: %s", c.file, c.line, c.what) }

// where is a position in a file.
type where struct {
	file      string
	line, col int
}

// survey is the first pass over a trace: the ranks its lines name and the
// clues to its form.
type survey struct {
	maxRank int
	maxAt   where            // where maxRank was seen
	ranks   wordline.RankSet // the ranks that have lines
	clues   [numStrengths][2]*clue
	owner   map[int]int // rank -> index of the source holding its lines
	seq     int
}

// oldSpellings and newSpellings are the names only one generation of
// SimGrid's replay registered.
var (
	oldSpellings = map[string]bool{"Isend": true, "Irecv": true, "waitAll": true, "allReduce": true, "allToAll": true,
		"allToAllV": true, "gatherV": true, "scatterV": true, "allGather": true, "allGatherV": true, "reduceScatter": true}
	newSpellings = map[string]bool{"isend": true, "irecv": true, "waitall": true, "allreduce": true, "alltoall": true,
		"alltoallv": true, "gatherv": true, "scatterv": true, "allgather": true, "allgatherv": true, "reducescatter": true}
)

// surveySources reads every source once.
func surveySources(srcs []source) (*survey, error) {
	s := &survey{maxRank: -1}
	perLine := len(srcs) > 1 && srcs[0].rank < 0 // a directory: ranks must not span files
	if perLine {
		s.owner = map[int]int{}
	}
	for i, src := range srcs {
		rc, err := src.open()
		if err != nil {
			return nil, err
		}
		sc := newScanner(src.name, rc)
		for l, ok := sc.Next(); ok; l, ok = sc.Next() {
			r, ok := parseRankText(l.Fields[0].Text)
			if !ok || (src.rank >= 0 && r != src.rank) {
				continue // refused or skipped by the second pass
			}
			if perLine {
				if j, seen := s.owner[r]; !seen {
					s.owner[r] = i
				} else if j != i {
					rc.Close()
					return nil, trace.Errorf(src.name, l.Num, 1, "rank %d also has lines in %s; in a directory each rank's lines must be in one file", r, srcs[j].name)
				}
			}
			s.saw(r, src.name, l)
			s.look(src.name, l)
		}
		rc.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// saw records that rank r has line l.
func (s *survey) saw(r int, file string, l line) {
	if r > s.maxRank {
		s.maxRank = r
		s.maxAt = where{file, l.Num, l.Fields[0].Col}
	}
	s.ranks.Add(r)
}

// checkRanks refuses a trace whose highest rank would leave more than
// maxIdleRanks ranks without lines: a damaged rank number, which would
// otherwise cost memory for ranks that do nothing.
func (s *survey) checkRanks() error {
	if idle := s.maxRank + 1 - s.ranks.Len(); idle > maxIdleRanks {
		at := s.maxAt
		return trace.Errorf(at.file, at.line, at.col, "rank %d makes a trace of %d ranks of which %d have lines; at most %d ranks may have none, so the rank number looks damaged", s.maxRank, s.maxRank+1, s.ranks.Len(), maxIdleRanks)
	}
	return nil
}

// note records a clue unless one as strong for the same form came first.
// Its arguments are strings, which cost nothing to pass when the clue is
// not needed.
func (s *survey) note(strength int, f form, file string, l line, i int, format string, args ...string) {
	if s.clues[strength][f] != nil {
		return
	}
	boxed := make([]any, len(args))
	for k, a := range args {
		boxed[k] = a
	}
	col := l.Fields[min(i, len(l.Fields)-1)].Col
	s.clues[strength][f] = &clue{form: f, file: file, line: l.Num, col: col, what: fmt.Sprintf(format, boxed...), seq: s.seq}
}

// look collects what line l says about the form.
func (s *survey) look(file string, l line) {
	s.seq++
	if len(l.Fields) < 2 {
		return
	}
	action := l.Fields[1].Text
	switch {
	case oldSpellings[action]:
		s.note(bySpelling, oldForm, file, l, 1, "%s is spelled as before SimGrid 3.20", action)
	case newSpellings[action]:
		s.note(bySpelling, newForm, file, l, 1, "%s is spelled as since SimGrid 3.20", action)
	}
	args := l.Fields[2:]
	switch strings.ToLower(action) {
	case "send", "isend", "recv", "irecv":
		switch len(args) {
		case 2:
			s.note(byArity, oldForm, file, l, 1, "%s has 2 arguments (PEER SIZE)", action)
		case 4:
			s.note(byArity, newForm, file, l, 1, "%s has 4 arguments (PEER TAG SIZE DATATYPE)", action)
		case 3:
			// PEER SIZE DATATYPE or PEER TAG SIZE?
			second, third := args[1].Text, args[2].Text
			switch {
			case !isInteger(second) && isDecimal(second):
				s.note(byValue, oldForm, file, l, 3, "%s's second argument %s is a size, not a tag", action, second)
			case isInteger(second) && strings.HasPrefix(second, "-"):
				s.note(byValue, newForm, file, l, 3, "%s's second argument %s is a tag, not a size", action, second)
			}
			if v, ok := parseInt32(third); (ok && (v < -1 || v > 6)) || (!ok && isDecimal(third)) {
				s.note(byValue, newForm, file, l, 4, "%s's third argument %s is a size, not a datatype id", action, third)
			}
		}
	case "wait", "test":
		switch len(args) {
		case 0:
			s.note(byArity, oldForm, file, l, 1, "%s has no arguments", action)
		case 3:
			s.note(byArity, newForm, file, l, 1, "%s names its request by SRC DST TAG", action)
		}
	}
}

// decide returns the form of the trace and why, or an error if two lines
// contradict each other outright.
func (s *survey) decide() (form, string, error) {
	if a, b := s.clues[byArity][newForm], s.clues[byArity][oldForm]; a != nil && b != nil {
		first, later := a, b
		if b.seq < a.seq {
			first, later = b, a
		}
		return 0, "", trace.Errorf(later.file, later.line, later.col, "%s, which is %s, but %s, which is %s; a trace is written in one form or the other", later.what, later.form, first, first.form)
	}
	for strength := range numStrengths {
		a, b := s.clues[strength][newForm], s.clues[strength][oldForm]
		switch {
		case a != nil && (b == nil || a.seq < b.seq):
			return newForm, a.String(), nil
		case b != nil:
			return oldForm, b.String(), nil
		}
	}
	return newForm, "no line tells the forms apart", nil
}
