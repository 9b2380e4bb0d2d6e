// Package netmodel owns the models that price what a Parley program does:
// the network models (LogGOPS: L, o, g, G, O, S, by message size when a
// platform has protocol regimes; the flow model,
// FlowNet, which shares the links of a topology by max-min fairness; and
// the packet model, PacketNet, which moves packets through the topology's
// queues and buffers by virtual cut-through), the
// topologies and their routing (star, torus, fat tree, dragonfly), the
// machine model (flop rate, memory bandwidth and speed per node,
// heterogeneous node lists, tasks per node), platform files in TOML with
// their presets, and the collective algorithms (binomial trees, recursive
// doubling, ring, Rabenseifner, Bruck, pairwise, dissemination) that
// expand MPI collectives into point-to-point steps, chosen as MPICH
// chooses them (a rank's whole plan, a window of it, or, for the
// log-depth algorithms, any one step in O(1): StepAt).
//
// Times are integer picoseconds (Duration) so that simulations are exact
// and deterministic; per-byte costs are integer femtoseconds per byte.
//
// netmodel imports the standard library, a TOML parser and stdlib (for the
// preset files); the interpreter imports it.
package netmodel
