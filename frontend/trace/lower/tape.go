package lower

import "github.com/parley-hpc/parley/frontend/trace"

// The second pass takes the same calls as the first, so the first keeps
// them, as the matcher gave them, for the second to replay rank by rank
// without matching again: each rank's calls that the matcher did not skip
// and where its repeats go. That costs a pointer a call; past maxTape
// calls the first pass stops keeping them and the second matches the
// trace again.

// maxTape bounds the calls the first pass keeps for the second: 64 MiB
// of pointers.
const maxTape = 1 << 23

// rankTape is one rank's calls, as the first pass took them.
type rankTape struct {
	events  []*trace.Event
	repeats []tapeRepeat
	mark    int // len(events) at the matcher's last Mark
}

// tapeRepeat says that events[from:at] happened k more times after
// events[at-1].
type tapeRepeat struct {
	from, at int
	k        int64
}

// record keeps rank r's call e for the second pass.
func (l *lowerer) record(r int, e *trace.Event) {
	if l.tape == nil {
		return
	}
	if l.taped++; l.taped > maxTape {
		l.tape = nil
		return
	}
	l.tape[r].events = append(l.tape[r].events, e)
}

// replayTape gives each rank, one after the other, the calls and repeats
// the first pass took: what the matcher would give it again, since a
// rank's lowering depends on its own calls alone.
func (l *lowerer) replayTape() error {
	for r, tp := range l.tape {
		rs := l.ranks[r]
		reps := tp.repeats
		for i := 0; ; i++ {
			for len(reps) > 0 && reps[0].at == i {
				if l.logging {
					if err := l.repeat(r, rs, reps[0].k); err != nil {
						return err
					}
				}
				rs.events, rs.log, l.logging = rs.events[:0], rs.log[:0], false
				reps = reps[1:]
			}
			if len(reps) > 0 && reps[0].from == i && reps[0].at > i {
				rs.markHere()
				l.logging = true
			}
			if i == len(tp.events) {
				break
			}
			e := tp.events[i]
			if l.logging {
				rs.events = append(rs.events, e)
			}
			if err := l.add(r, e); err != nil {
				return err
			}
		}
	}
	return nil
}
