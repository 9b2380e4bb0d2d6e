// Package partition owns Parley's graph partitioner: it splits an undirected
// graph with vertex and edge weights into k parts of balanced vertex weight
// while keeping the weight of the edges between parts (the edge cut) small.
// The value-flow frontend uses it to map program values onto MPI tasks, the
// value decomposition of seed 001 (CommAnalyzer, section 4.2.2: balance the
// values' weight over the compute nodes and minimise the weighted edge cut
// of the value communication graph, by multilevel partitioning); anything
// else that needs a k-way split can use it too.
//
// The algorithm is the multilevel k-way scheme of METIS (G. Karypis and
// V. Kumar, "Multilevel k-way partitioning scheme for irregular graphs",
// JPDC 48(1), 1998, and "A fast and high quality multilevel scheme for
// partitioning irregular graphs", SIAM J. Sci. Comput. 20(1), 1998, with
// METIS 5's refinements of it):
//
//   - coarsening: the graph is contracted level by level along a heavy-edge
//     matching, visiting vertices roughly by increasing degree; when the
//     matching stalls (more than a tenth of the vertices stay single), 2-hop
//     matching pairs vertices that share a neighbour or have identical
//     neighbourhoods; isolated vertices are paired with each other;
//   - initial partitioning: the coarsest graph is split by multilevel
//     recursive bisection, each bisection grown breadth-first from random
//     seeds (packing whole components where the graph has several) and
//     improved by Fiduccia-Mattheyses (FM) refinement, the best of several
//     tries kept;
//   - uncoarsening: the partition is projected back level by level and
//     improved at every level by greedy boundary refinement and k-way FM
//     (moves that lose are taken best first and rolled back to the best
//     cut seen), never past the balance limit, with balancing passes when a
//     level is out of balance and a last balancing pass that may move any
//     vertex to any part.
//
// A graph whose vertices and adjacency entries number under a million gets
// two to four complete runs, the best kept (gpmetis makes one by default).
//
// Graphs are in compressed sparse rows, as METIS takes them (Graph), built
// from an edge list by FromEdges or read and written in the METIS graph file
// format (ReadMETIS, WriteMETIS), so that results can be checked against
// gpmetis; TestQualityAgainstGpmetis does that where gpmetis is installed.
//
// The result is a pure function of the graph, k and the Options: the
// randomised steps draw from a generator seeded by Options.Seed, and nothing
// runs concurrently. Bad input (k out of range, an invalid graph, a malformed
// file) is an error, never a panic; only FromEdges, whose input is the
// caller's own, panics on an endpoint out of range.
//
// Limits:
//   - the objective is the edge cut, under one balance constraint: METIS's
//     communication-volume objective (vertex sizes, file fmt 100) and
//     several weights per vertex (ncon > 1) are not supported;
//   - parts are not made connected: CommAnalyzer's third objective,
//     connected value components per node (METIS's -contig), is left out,
//     and a part may hold pieces of several components;
//   - it is a heuristic, like METIS: on the test graphs its cut averages
//     0.93 times gpmetis's and is at most 1.04 times on any graph and k
//     (means over three seeds), but one run's cut, KWay's or gpmetis's,
//     can vary by 10-20% with the seed, and neither is optimal;
//   - at most k = n parts, fewer than 2^31-1 vertices and adjacency
//     entries (int32 indices, as METIS's default build), and vertex and edge
//     weight totals up to 2^53;
//   - one goroutine, and about 1.8 times gpmetis's CPU time: a
//     million-vertex 3-D grid into 64 parts takes 4.5 to 6.5 CPU seconds on
//     a shared 2-core machine and allocates about 490 MB, mostly the coarse
//     graphs (BenchmarkKWay3DGrid1M beside BenchmarkGpmetis3DGrid1M).
//
// It imports only the standard library.
package partition
