package trace

import (
	"fmt"
	"strings"
)

// Trace is one traced run: every rank's MPI calls and the computation
// between them, in the order each rank issued them.
type Trace struct {
	// Format names the reader ("scalatrace", "tit", "dperf", "dumpi",
	// "ptrace").
	Format string
	// NumRanks is the size of MPI_COMM_WORLD.
	NumRanks int
	// Ranks holds each world rank's calls; len(Ranks) == NumRanks.
	Ranks []Rank
	// Comms lists the communicators the events name, as world ranks in
	// communicator rank order. Comms[0] is MPI_COMM_WORLD and may be nil.
	Comms [][]int
	// TimeUnit says what compute events measure.
	TimeUnit ComputeUnit
	// Partial is empty for a trace of a whole run. For a run that ended
	// early (a crash) it says why and what the reader kept.
	Partial string
}

// ComputeUnit says what a trace's compute events count.
type ComputeUnit uint8

const (
	// Microseconds: Event.Amount is a duration in microseconds.
	Microseconds ComputeUnit = iota
	// Instructions: Event.Amount is an instruction count.
	Instructions
	// Flops: Event.Amount is a count of floating-point operations.
	Flops
)

// Rank is one rank's calls: a sequence of call sites and loops.
type Rank struct {
	Body []Node
}

// Node is one element of a rank's sequence: exactly one of Site and Loop
// is set.
type Node struct {
	Site *Site
	Loop *Loop
}

// Loop repeats its body Count times.
type Loop struct {
	Count int64
	Body  []Node
}

// Site is one call site. Its executions cycle through Events: execution n
// of the site, counted over the whole run of its rank across all enclosing
// loops, issues Events[n mod len(Events)]. A site whose parameters never
// change has one event.
type Site struct {
	Events []Event
}

// Event is one MPI call, or the computation before one.
type Event struct {
	Op Op
	// Peer is the other side of a point-to-point operation as a world
	// rank, or AnySource for a wildcard receive.
	Peer int
	// Tag is the message tag; AnyTag on a receive matches any.
	Tag int
	// Count is the number of elements; TypeSize the bytes per element.
	// For collectives they describe what each member contributes (the
	// root's message for Bcast and Scatter).
	Count    int64
	TypeSize int64
	// Counts holds per-member counts of the "v" collectives (Gatherv,
	// Scatterv, Allgatherv, Alltoallv, Reduce_scatter), in communicator
	// rank order; nil otherwise.
	Counts []int64
	// Root is the root of a rooted collective, as a world rank.
	Root int
	// Comm indexes Trace.Comms: the communicator of a collective.
	Comm int
	// Waits lists the requests a Wait or Waitall completes by age: 1 is
	// the rank's most recent nonblocking call (Isend or Irecv), 2 the one
	// before, and so on.
	Waits []int
	// Amount is the computation of a Compute event, in Trace.TimeUnit:
	// finite, non-negative and below MaxAmount.
	Amount float64
	// Pos is where the event comes from in the trace.
	Pos Pos
}

// MaxAmount bounds a Compute event's Amount, and the computation between
// two calls of a rank: a lowered program computes it as an integer, which
// is 64 bits. Readers refuse larger amounts where they read them, rather
// than let them become a meaningless integer.
const MaxAmount = 1 << 63

// Bytes is the size of the event's message: Count elements of TypeSize
// bytes.
func (e *Event) Bytes() int64 { return e.Count * e.TypeSize }

// AnySource and AnyTag are the wildcards of a receive.
const (
	AnySource = -1
	AnyTag    = -1
)

// Pos is a place in a trace file.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("line %d", p.Line)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Op is the operation of an event.
type Op uint8

// The operations. Blocking and nonblocking forms of a point-to-point call
// are distinct, so that counts per MPI call kind survive lowering.
const (
	OpInvalid Op = iota
	Compute
	Init
	Finalize
	Send
	Isend
	Recv
	Irecv
	Wait    // MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome: Waits says which
	Barrier // the collectives
	Bcast
	Reduce
	Allreduce
	Gather
	Gatherv
	Scatter
	Scatterv
	Allgather
	Allgatherv
	Alltoall
	Alltoallv
	ReduceScatter
	Scan
	numOps
)

var opNames = [numOps]string{
	OpInvalid:     "invalid",
	Compute:       "compute",
	Init:          "init",
	Finalize:      "finalize",
	Send:          "send",
	Isend:         "isend",
	Recv:          "recv",
	Irecv:         "irecv",
	Wait:          "wait",
	Barrier:       "barrier",
	Bcast:         "bcast",
	Reduce:        "reduce",
	Allreduce:     "allreduce",
	Gather:        "gather",
	Gatherv:       "gatherv",
	Scatter:       "scatter",
	Scatterv:      "scatterv",
	Allgather:     "allgather",
	Allgatherv:    "allgatherv",
	Alltoall:      "alltoall",
	Alltoallv:     "alltoallv",
	ReduceScatter: "reduce_scatter",
	Scan:          "scan",
}

func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// IsCollective reports whether o is a collective over a communicator.
// Init and Finalize are not, though matching treats Finalize as one.
func (o Op) IsCollective() bool { return o >= Barrier && o < numOps }

// IsP2P reports whether o sends or receives one message.
func (o Op) IsP2P() bool { return o >= Send && o <= Irecv }

// IsSend reports whether o is a send, IsRecv whether a receive;
// IsAsync whether o is a nonblocking point-to-point call.
func (o Op) IsSend() bool  { return o == Send || o == Isend }
func (o Op) IsRecv() bool  { return o == Recv || o == Irecv }
func (o Op) IsAsync() bool { return o == Isend || o == Irecv }

// IsRooted reports whether o's collective has a root.
func (o Op) IsRooted() bool {
	switch o {
	case Bcast, Reduce, Gather, Gatherv, Scatter, Scatterv:
		return true
	}
	return false
}

// String prints an event the way reports quote it: "isend to 3 tag 0,
// 20480 x 8 B".
func (e *Event) String() string {
	var b strings.Builder
	b.WriteString(e.Op.String())
	switch {
	case e.Op.IsSend():
		fmt.Fprintf(&b, " to %d tag %d, %d x %d B", e.Peer, e.Tag, e.Count, e.TypeSize)
	case e.Op.IsRecv():
		if e.Peer == AnySource {
			b.WriteString(" from any")
		} else {
			fmt.Fprintf(&b, " from %d", e.Peer)
		}
		if e.Tag == AnyTag {
			b.WriteString(" any tag")
		} else {
			fmt.Fprintf(&b, " tag %d", e.Tag)
		}
		fmt.Fprintf(&b, ", %d x %d B", e.Count, e.TypeSize)
	case e.Op == Wait:
		fmt.Fprintf(&b, " %v", e.Waits)
	case e.Op == Compute:
		fmt.Fprintf(&b, " %g", e.Amount)
	case e.Op.IsRooted():
		fmt.Fprintf(&b, " root %d, %d x %d B", e.Root, e.Count, e.TypeSize)
	case e.Op.IsCollective() && e.Op != Barrier:
		fmt.Fprintf(&b, " %d x %d B", e.Count, e.TypeSize)
	}
	return b.String()
}
