package netmodel

// Platform is what a run is priced on: a network model, a machine model and
// the placement of tasks on nodes.
type Platform struct {
	Name        string
	Description string
	Network     LogGP  // between tasks on different nodes
	Intra       *LogGP // between tasks on the same node; nil: as Network
	// Model is the network model of messages between nodes. Under Flow and Packet,
	// Network's L and G are 0: the topology's links give the latency and
	// the bandwidth, and Network keeps the CPU overheads, the gap and the
	// eager limit.
	Model    Model
	Topology *Topology    // the links between nodes; nil under LogGPModel
	Flow     FlowParams   // under PacketModel, factors of 1
	Packet   PacketParams // PacketModel's

	Machine Machine
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
	// Regimes price messages by size, as SimGrid's piecewise smpi/os,
	// smpi/or and latency and bandwidth factors do: an MPI's transport
	// changes protocol with the size (a small-message buffer, eager,
	// rendezvous), and one set of LogGOPS parameters cannot follow its
	// steps. A message of n bytes is priced by the first regime whose UpTo
	// is at least n, and by the fields above if there is none; see At.
	// Most platforms have none.
	Regimes []Regime
}

// Regime is the LogGOPS parameters of the messages of a range of sizes:
// those larger than the previous regime's UpTo (or empty) and no larger
// than its own.
type Regime struct {
	UpTo int64 // bytes
	// LogGP holds every parameter, those the regime does not set being
	// the link's; its Eager is the link's (the protocol switch is one
	// size) and it has no Regimes.
	LogGP
}

// Model is a network model.
type Model uint8

// Network models.
const (
	// LogGPModel prices each message by LogGOPS alone: no contention.
	LogGPModel Model = iota
	// FlowModel sends each message as a flow over its route in the
	// topology, sharing links by max-min fairness.
	FlowModel
	// PacketModel cuts each message into packets that cross the topology
	// hop by hop, through output queues and finite buffers.
	PacketModel
)

var modelNames = [...]string{LogGPModel: "loggp", FlowModel: "flow", PacketModel: "packet"}

func (m Model) String() string { return modelNames[m] }

// FlowParams adjust the flow model. SimGrid's default network model
// (LV08, Velho and Legrand 2009) multiplies a route's latency by 13.01 and
// each link's bandwidth by 0.97, and bounds a flow's rate by its TCP
// window, 4 MiB, over twice the route's latency; "factors = simgrid" sets
// all three, so that Parley and SimGrid can be compared.
type FlowParams struct {
	LatencyFactor   float64 // multiplies route latencies; 1 by default
	BandwidthFactor float64 // multiplies link bandwidths; 1 by default
	TCPGamma        int64   // bytes; a flow's rate is at most TCPGamma / (2 x route latency); 0: no bound
	// Precision lets flows due to end within it of an instant end at that
	// instant, with the flows ending then: fewer instants, fewer refills,
	// each flow early by at most Precision. 0 (the default) is exact.
	Precision Duration
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
