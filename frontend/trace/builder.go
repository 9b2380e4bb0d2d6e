package trace

// Builder assembles a Trace from flat per-rank event streams, the way the
// flat formats (SimGrid TIT, dPerf, DUMPI) deliver them: a reader calls Add
// for each event of each rank in that rank's order (ranks may interleave),
// then Trace once. Each rank's events are compressed into loops as they
// arrive, so memory follows the compressed size, not the event count.
type Builder struct {
	t     Trace
	ranks []*Compressor
	comms map[string]int
}

// NewBuilder starts a trace of numRanks ranks in the given format whose
// compute events count unit.
func NewBuilder(format string, numRanks int, unit ComputeUnit) *Builder {
	b := &Builder{
		t:     Trace{Format: format, NumRanks: numRanks, TimeUnit: unit, Comms: [][]int{nil}},
		ranks: make([]*Compressor, numRanks),
		comms: map[string]int{},
	}
	for i := range b.ranks {
		b.ranks[i] = NewCompressor()
	}
	return b
}

// Add appends e to rank's events. rank must lie in [0, numRanks).
func (b *Builder) Add(rank int, e Event) { b.ranks[rank].Add(e) }

// Comm returns the index in Trace.Comms of the communicator whose members
// are the given world ranks, in communicator rank order, adding it if new.
// The whole world in order is index 0.
func (b *Builder) Comm(members []int) int {
	world := len(members) == b.t.NumRanks
	for i, m := range members {
		if m != i {
			world = false
			break
		}
	}
	if world {
		return 0
	}
	k := commKey(members)
	if i, ok := b.comms[k]; ok {
		return i
	}
	b.t.Comms = append(b.t.Comms, append([]int(nil), members...))
	b.comms[k] = len(b.t.Comms) - 1
	return len(b.t.Comms) - 1
}

// Trace finishes every rank and returns the trace. The Builder must not
// be used afterwards.
func (b *Builder) Trace() *Trace {
	b.t.Ranks = make([]Rank, len(b.ranks))
	for i, c := range b.ranks {
		b.t.Ranks[i] = Rank{Body: c.Finish()}
	}
	return &b.t
}

func commKey(members []int) string {
	buf := make([]byte, 0, 4*len(members))
	for _, m := range members {
		buf = append(buf, byte(m>>24), byte(m>>16), byte(m>>8), byte(m))
	}
	return string(buf)
}
