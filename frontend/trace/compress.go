package trace

import (
	"encoding/binary"
	"math"
)

// Compressor folds one rank's event stream into nested loops as events
// arrive (ScalaTrace's intra-node compression).
//
// Events are interned by value: two events are the same symbol when every
// field but Pos is equal, slices compared by content. The symbols go
// through a SymbolCompressor, so memory follows the number of distinct
// events plus the size of the compressed sequence, not the event count.
type Compressor struct {
	syms *SymbolCompressor
	// ids maps an event's key (see appendEventKey) to its symbol; events
	// holds each symbol's first occurrence, whose Pos the site keeps.
	ids    map[string]int32
	events []Event
	key    []byte // reused by Add, so interning does not allocate
}

// NewCompressor returns an empty compressor.
func NewCompressor() *Compressor {
	return &Compressor{syms: NewSymbolCompressor(0), ids: map[string]int32{}}
}

// Add appends one event. The compressor keeps e's slices if e is the
// first event of its value; the caller must not modify them afterwards.
func (c *Compressor) Add(e Event) {
	c.key = appendEventKey(c.key[:0], &e)
	id, ok := c.ids[string(c.key)]
	if !ok {
		if len(c.events) == math.MaxInt32 {
			panic("trace: more than 2^31-1 distinct events in one rank")
		}
		id = int32(len(c.events))
		c.ids[string(c.key)] = id
		c.events = append(c.events, e)
	}
	c.syms.Push(id)
}

// Finish returns the compressed sequence. Each distinct event value is
// one *Site holding that single event, shared by all its occurrences;
// equal loops share one *Loop. The result must be treated as read-only.
func (c *Compressor) Finish() []Node {
	f := nodeBuilder{
		events: c.events,
		sites:  make([]*Site, len(c.events)),
		loops:  map[*SeqLoop]*Loop{},
	}
	return f.nodes(c.syms.Finish())
}

// nodeBuilder maps a Seq back to Nodes, keeping the sharing of the Seq
// (which the SymbolCompressor builds once per distinct loop).
type nodeBuilder struct {
	events []Event
	sites  []*Site
	loops  map[*SeqLoop]*Loop
}

func (f *nodeBuilder) nodes(s Seq) []Node {
	out := make([]Node, len(s))
	for i, it := range s {
		if it.Loop == nil {
			site := f.sites[it.Sym]
			if site == nil {
				site = &Site{Events: []Event{f.events[it.Sym]}}
				f.sites[it.Sym] = site
			}
			out[i] = Node{Site: site}
			continue
		}
		l, ok := f.loops[it.Loop]
		if !ok {
			l = &Loop{Count: it.Loop.Count, Body: f.nodes(it.Loop.Body)}
			f.loops[it.Loop] = l
		}
		out[i] = Node{Loop: l}
	}
	return out
}

// appendEventKey appends a byte string that identifies e's value, Pos
// aside. Every field is written in a self-delimiting form (varints,
// fixed-width float bits, length-prefixed slices), so distinct values give
// distinct keys. Amount is compared by its bits: exact, and -0 and NaN
// behave like any other value.
func appendEventKey(b []byte, e *Event) []byte {
	b = append(b, byte(e.Op))
	b = binary.AppendVarint(b, int64(e.Peer))
	b = binary.AppendVarint(b, int64(e.Tag))
	b = binary.AppendVarint(b, e.Count)
	b = binary.AppendVarint(b, e.TypeSize)
	b = binary.AppendVarint(b, int64(e.Root))
	b = binary.AppendVarint(b, int64(e.Comm))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.Amount))
	b = binary.AppendUvarint(b, uint64(len(e.Counts)))
	for _, n := range e.Counts {
		b = binary.AppendVarint(b, n)
	}
	b = binary.AppendUvarint(b, uint64(len(e.Waits)))
	for _, w := range e.Waits {
		b = binary.AppendVarint(b, int64(w))
	}
	return b
}
