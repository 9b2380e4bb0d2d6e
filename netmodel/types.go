package netmodel

// Platform is what a run is priced on: a network model, a machine model and
// the placement of tasks on nodes.
type Platform struct {
	Name        string
	Description string
	Network     LogGP  // between tasks on different nodes
	Intra       *LogGP // between tasks on the same node; nil: as Network
	Machine     Machine
	// Collectives overrides the automatic choice of algorithm per operation.
	Collectives map[Op]Algorithm
	// Source says where the platform came from: a file name or "preset NAME".
	Source string
}

// LogGP holds the LogGOPS parameters (Hoefler, Schneider, Lumsdaine:
// "LogGOPSim", HPDC 2010).
type LogGP struct {
	Latency      Duration // L: wire latency
	Overhead     Duration // o: CPU time to send or receive a message
	Gap          Duration // g: minimum time between two messages on a NIC
	ByteGap      PerByte  // G: NIC time per byte (inverse bandwidth)
	ByteOverhead PerByte  // O: CPU time per byte
	Eager        int64    // S: messages of at most this many bytes go eagerly; larger ones use rendezvous
}

// Mapping places tasks on nodes.
type Mapping int

// Task placements.
const (
	// Block fills each node before the next: tasks 0..k-1 on node 0.
	Block Mapping = iota
	// Cyclic deals tasks out like cards: task t on node t mod nodes.
	Cyclic
)

// Machine describes the nodes.
type Machine struct {
	TasksPerNode int // at least 1
	Mapping      Mapping
	Nodes        []NodeGroup // in order; see NodeGroup.Count
	IntSize      int64       // bytes in an INTEGER
	PageSize     int64       // bytes in a PAGE
}

// NodeGroup is a run of identical nodes. Rates are per node and are shared
// equally by the node's tasks.
type NodeGroup struct {
	Name         string
	Count        int     // nodes in the group; 0 in the last group means all remaining nodes
	FlopRate     float64 // floating-point operations per second
	MemBandwidth float64 // bytes per second
	Speed        float64 // COMPUTES FOR durations are divided by this; 1 is "as measured"
}

// Op is a collective operation.
type Op int

// Collective operations.
const (
	Bcast Op = iota
	Reduce
	Allreduce
	ReduceScatter
	Barrier
	Gather
	Scatter
	Allgather
	Alltoall
	numOps
)

var opNames = [...]string{
	Bcast: "bcast", Reduce: "reduce", Allreduce: "allreduce", ReduceScatter: "reduce_scatter",
	Barrier: "barrier", Gather: "gather", Scatter: "scatter", Allgather: "allgather", Alltoall: "alltoall",
}

func (o Op) String() string { return opNames[o] }

// OpByName finds an operation by its name ("bcast", "allreduce", ...).
func OpByName(name string) (Op, bool) {
	for i, n := range opNames {
		if n == name {
			return Op(i), true
		}
	}
	return 0, false
}

// Algorithm names a collective algorithm, e.g. "binomial", "ring".
type Algorithm string
