package trace

// Tally is how often one kind of call was made and the bytes it moved.
type Tally struct {
	Calls, Bytes int64
}

// Tally counts rank's calls and their bytes per operation, the way seed
// 000 (section 5.2) checks a generated benchmark against its application:
// computation, Init and Finalize are left out. The bytes of a
// point-to-point call are its message's; of a collective what the rank
// contributes (Count elements); of an Alltoallv what the rank sends to
// the others, since its block to itself is a local copy.
func (t *Trace) Tally(rank int) map[Op]Tally {
	out := map[Op]Tally{}
	for e := range t.Events(rank) {
		switch e.Op {
		case Compute, Init, Finalize:
			continue
		}
		c := out[e.Op]
		c.Calls++
		c.Bytes += e.Bytes()
		if e.Op == Alltoallv {
			c.Bytes -= t.selfBlock(rank, e) * e.TypeSize
		}
		out[e.Op] = c
	}
	return out
}

// selfBlock is the count an Alltoallv of rank sends to itself.
func (t *Trace) selfBlock(rank int, e *Event) int64 {
	me := rank
	if e.Comm > 0 && e.Comm < len(t.Comms) && t.Comms[e.Comm] != nil {
		me = -1
		for i, w := range t.Comms[e.Comm] {
			if w == rank {
				me = i
			}
		}
	}
	if me < 0 || me >= len(e.Counts) {
		return 0
	}
	return e.Counts[me]
}
