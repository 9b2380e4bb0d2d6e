// Package partition owns Parley's graph partitioner: it splits an undirected,
// weighted graph into k parts of balanced vertex weight while keeping the
// weight of the edges between parts (the edge cut) small. The value-flow
// frontend uses it to map program values onto MPI tasks (seed 001,
// CommAnalyzer, section 4.2.2), and anything else that needs a k-way split
// can too.
//
// The algorithm is the multilevel k-way scheme of METIS (Karypis and Kumar,
// "Multilevel k-way partitioning scheme for irregular graphs", JPDC 1998, and
// METIS 5's refinements of it):
//
//   - coarsening: the graph is contracted level by level along a heavy-edge
//     matching, visiting vertices roughly by increasing degree; when the
//     matching stalls (more than a tenth of the vertices stay single), 2-hop
//     matching pairs vertices that share a neighbour or have identical
//     neighbourhoods; isolated vertices are paired with each other;
//   - initial partitioning: the coarsest graph is split by multilevel
//     recursive bisection, each bisection grown breadth-first from random
//     seeds and improved by Fiduccia-Mattheyses (FM) refinement, the best of
//     several tries kept;
//   - uncoarsening: the partition is projected back level by level and
//     improved by greedy boundary refinement that moves vertices to the
//     neighbouring part that gains most, never past the balance limit, with
//     balancing passes when a level is out of balance and a last balancing
//     pass that may move any vertex to any part.
//
// Graphs are in compressed sparse rows, as METIS takes them (Graph), and can
// be read and written in the METIS graph file format (ReadMETIS,
// WriteMETIS) so that results can be checked against gpmetis.
//
// The result is a pure function of the graph, k and the Options: the
// randomised steps draw from a generator seeded by Options.Seed, and nothing
// runs concurrently.
//
// It imports only the standard library.
package partition
