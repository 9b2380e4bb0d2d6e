// Package partition owns Parley's graph partitioner: it splits an undirected
// graph with vertex and edge weights into k parts of balanced vertex weight
// while keeping the weight of the edges between parts (the edge cut) small,
// or, with Options.Objective set to Volume, the communication volume.
// The value-flow frontend uses it to map program values onto MPI tasks, the
// value decomposition of seed 001 (CommAnalyzer, section 4.2.2: balance the
// values' weight over the compute nodes and minimise the weighted edge cut
// of the value communication graph, by multilevel partitioning); anything
// else that needs a k-way split can use it too.
//
// The two objectives differ where one vertex's data goes to many vertices
// of another part: the cut counts every edge, the volume counts the data
// once per part that receives it (Graph.Volume: the sum over the vertices
// v of VSize[v] times the number of other parts among the neighbours v
// sends to, METIS's definition, gpmetis -objtype=vol). Volume is what a
// program sends when every task receives each value it needs once, which is
// what the value-flow estimate (seed 001's Algorithm 4) counts. On matrix
// multiply's graph, element (i, j) joined to its row and its column, strips
// of whole columns cut the fewest edges and 2-D blocks send the least: on 4
// parts the strips send 1.5 times as much. Graph.Sends makes the volume
// directed (data flowing one way along an edge, from producer to
// consumer, as FromArcs builds it); without it data flows both ways along
// every edge, as in METIS. The edge cut ignores VSize and Sends.
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
// For the Volume objective, refinement at every level is greedy k-way
// volume refinement (as METIS's Greedy_KWayVolOptimize) followed, on
// graphs of up to two million vertices and adjacency entries, by k-way FM
// on the volume (moves that lose taken too, each pass rolled back to the
// best volume seen). It works on nets: net e carries one vertex's
// data to a set of pins, and keeps the parts of its pins with counts (at
// most min(pins, k) of them), from which a move's exact volume gain
// follows (lambda - 1, as hypergraph partitioners count it); each vertex
// is one net, to the neighbours it sends to, unless the graph has Nets.
// Moves that lower the volume, or keep it and lower the cut, are taken
// best first within the balance limit. Balancing works as for the cut.
// Besides that multilevel run, on graphs of up to two million vertices
// and adjacency entries the uncontracted graph is split by recursive
// bisection with ghosts: each side's subgraph gets a weightless copy of
// every vertex outside it that has neighbours in it, standing for the
// data it sends in, so that later bisections see what splitting its
// receivers costs; then volume refinement; the better of the two is kept.
// Contraction merges a matrix's rows and columns into pieces that hide
// that 2-D blocks send less than strips; the bisection with ghosts on the
// whole graph finds the blocks.
//
// Graph.Nets gives the volume exactly where one vertex's data goes
// different ways (the value-flow graph: a vertex holds several values,
// each read by its own vertices). The nets are then contracted with the
// graph, so that refinement at every level counts the exact volume of
// the partition it projects to, and split between the sides of every
// bisection (net splitting: a net's pins on the side of its source form a
// net from it, those on the other side one from outside, which every part
// holding a pin receives), so that each even bisection is refined for
// the exact volume it adds and up to twice as many tries are compared by
// it, stopping once as many in a row as a bisection without nets makes
// have found nothing better; every other try bisects the subgraph
// without its ghosts (where two splits send the same, a 2-D block of
// matrix multiply into halves by rows or by columns, the ghosts' even
// pull makes bisections that mix the two). KWay then makes one run. On matrix multiply's exact nets it
// finds the 2-D blocks' volume on 2, 4 and 8 parts
// (TestKWayVolumeMatmulNets; before the tries without ghosts, 1.03 to
// 1.06 times it on 8 parts of a 32 x 32 matrix, 1.09 on 64 x 64).
//
// A graph whose vertices and adjacency entries number under a million gets
// two to four complete runs, the best kept (gpmetis makes one by default).
// A graph without edges (and without nets with pins) has nothing to cut or
// send: its vertices are packed by weight, heaviest first, each into the
// lightest part.
//
// Graphs are in compressed sparse rows, as METIS takes them (Graph), built
// from an edge list by FromEdges (or FromArcs, with directions) or read and
// written in the METIS graph file format, vertex sizes included (ReadMETIS,
// WriteMETIS), so that results can be checked against gpmetis;
// TestQualityAgainstGpmetis and TestVolumeAgainstGpmetis do that where
// gpmetis is installed.
//
// The result is a pure function of the graph, k and the Options: the
// randomised steps draw from a generator seeded by Options.Seed, and nothing
// runs concurrently. Bad input (k out of range, an invalid graph, a malformed
// file) is an error, never a panic; only FromEdges, whose input is the
// caller's own, panics on an endpoint out of range.
//
// Limits:
//   - one balance constraint: several weights per vertex (ncon > 1) are
//     not supported;
//   - without Nets the volume is counted per vertex: a vertex that stands
//     for several values sends its VSize once to each part that any of its
//     values goes to; Nets count each value's readers, but the bisection
//     and the coarsening that find the initial partition still go by the
//     graph's edges;
//   - parts are not made connected: CommAnalyzer's third objective,
//     connected value components per node (METIS's -contig), is left out,
//     and a part may hold pieces of several components;
//   - it is a heuristic, like METIS: on the test graphs its cut averages
//     0.93 times gpmetis's and is at most 1.04 times on any graph and k
//     (means over three seeds), but one run's cut, KWay's or gpmetis's,
//     can vary by 10-20% with the seed, and neither is optimal; with the
//     Volume objective its volume averages 0.91 times gpmetis
//     -objtype=vol's, from 0.53 to 1.15 times (value-flow-like chains
//     into 16 parts are the worst; 0.94 and 1.22 before volume FM, in
//     one session), and on matrix multiply's graph
//     it finds the 2-D blocks on 4 parts and comes within 1.1 times of them
//     on 8, where gpmetis's partitions send 1.35 to 1.5 times the blocks'
//     volume on 4 parts (32 x 32 and 64 x 64 matrices);
//   - at most k = n parts, fewer than 2^31-1 vertices and adjacency
//     entries (int32 indices, as METIS's default build), and vertex and edge
//     weight totals up to 2^53;
//   - one goroutine, and about 1.8 times gpmetis's CPU time: a
//     million-vertex 3-D grid into 64 parts takes 4.5 to 6.5 CPU seconds on
//     a shared 2-core machine and allocates about 490 MB, mostly the coarse
//     graphs (BenchmarkKWay3DGrid1M beside BenchmarkGpmetis3DGrid1M); the
//     Volume objective takes 8.4 CPU seconds there against gpmetis
//     -objtype=vol's 3.2, and sends 1.07 times as much. Refining on nets
//     (one per vertex, built for each level) made it 1.5 times slower
//     than before, 7.9 CPU seconds against 5.1 to 5.3 and 830 MB
//     allocated against 695, and it sends 0.8% less
//     (BenchmarkKWayVolume3DGrid1M -cpu 1 beside main's, one session);
//     the value-flow estimate's analysis takes 1.2 to 3.7 times the
//     edge cut's time (1.7 to 6.5 before the stopping rule of exact
//     bisections, edgeless packing and a 0.1% balance; docs/valueflow.md).
//
// It imports only the standard library.
package partition
