package tit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/netmodel"
)

// machine: 2 tasks per node, 2 Gflop/s and 1 GB/s per node, so each rank
// computes at 1e9 flop/s and moves memory at 0.5e9 B/s: a flop is 1 ns and
// a byte of memory traffic 2 ns.
func machine() *netmodel.Machine {
	return &netmodel.Machine{TasksPerNode: 2, IntSize: 4, PageSize: 4096,
		Nodes: []netmodel.NodeGroup{{Name: "n", FlopRate: 2e9, MemBandwidth: 1e9, Speed: 1}}}
}

func create(t *testing.T, n int64) *Writer {
	t.Helper()
	w, err := Create(filepath.Join(t.TempDir(), "out"), "prog", n, machine())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// check closes w and compares every rank's file with want, one string of
// lines per rank.
func check(t *testing.T, w *Writer, want ...string) {
	t.Helper()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for r, lines := range want {
		got, err := os.ReadFile(w.RankPath(int64(r)))
		if err != nil {
			t.Fatal(err)
		}
		if exp := strings.TrimLeft(lines, "\n"); string(got) != exp {
			t.Errorf("rank %d:\ngot:\n%s\nwant:\n%s", r, got, exp)
		}
	}
}

func TestPointToPointComputeSleep(t *testing.T) {
	w := create(t, 2)
	w.Send(0, 1, 100, 5, false)
	w.Recv(1, 0, 100, 5, false)
	w.Send(0, 1, 64, 7, true)
	w.Recv(1, 0, 64, 7, true)
	w.Recv(0, 1, 0, 0, true)
	w.Send(1, 0, 0, 0, true)
	w.Await(0)
	w.Await(1)
	w.Compute(0, netmodel.Millisecond, -1)     // 1e-3 s at 1e9 flop/s
	w.Compute(1, 3*netmodel.Microsecond, 3000) // flop-bound: the count itself
	w.Compute(1, 2*netmodel.Microsecond, 10)   // memory-bound (1000 B): 2 us of flops
	w.Compute(1, 1500*netmodel.Picosecond, -1) // 1.5 flops, rounded to 2
	w.Compute(0, 0, -1)                        // nothing
	w.Compute(0, 400*netmodel.Picosecond, -1)  // 0.4 flops: nothing
	w.Sleep(1, 1500*netmodel.Millisecond)      // seconds
	w.Sleep(0, 0)                              // nothing
	w.Sleep(0, 1234567*netmodel.Picosecond)    // 1.234567 us
	w.Send(0, 1, 1, -1, false)                 // negative tags are shifted by 2^31
	w.Recv(1, 0, 1, -(1 << 30), false)
	check(t, w, `
0 init
0 send 1 5 100
0 isend 1 7 64
0 irecv 1 0 0
0 waitall
0 compute 1000000
0 sleep 0.000001234567
0 send 1 2147483647 1
0 finalize
`, `
1 init
1 recv 0 5 100
1 irecv 0 7 64
1 isend 0 0 0
1 waitall
1 compute 3000
1 compute 2000
1 compute 2
1 sleep 1.5
1 recv 0 1073741824 1
1 finalize
`)
	idx, err := os.ReadFile(w.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(w.IndexPath())
	if want := filepath.Join(dir, "prog-0.tit") + "\n" + filepath.Join(dir, "prog-1.tit") + "\n"; string(idx) != want {
		t.Errorf("index:\n%s\nwant:\n%s", idx, want)
	}
	if filepath.Base(w.IndexPath()) != "prog.tit" {
		t.Errorf("index is %s", w.IndexPath())
	}
}

// sizes10 gives each member's block as 10 times its group rank plus 10.
func sizes10(src, dst int) int64 { return int64(10 * (src + 1)) }

func TestWorldCollectives(t *testing.T) {
	w := create(t, 4)
	coll := func(r int64, c netmodel.Collective) {
		c.N = 4
		w.Collective(r, c, netmodel.Choose(c), nil, int(r), -(1 << 30))
	}
	coll(1, netmodel.Collective{Op: netmodel.Barrier})
	coll(1, netmodel.Collective{Op: netmodel.Bcast, Root: 2, Bytes: 1000})
	// Recursive doubling on 4 ranks: two steps, each combining 8 bytes
	// (24 bytes of traffic, 48 ns): 96 ns, 96 flops.
	coll(1, netmodel.Collective{Op: netmodel.Allreduce, Bytes: 8})
	// Binomial reduce to 0: rank 1 only sends; rank 0 combines the 16
	// bytes of ranks 1 and 2 (2 x 96 ns).
	coll(1, netmodel.Collective{Op: netmodel.Reduce, Root: 0, Bytes: 16})
	coll(0, netmodel.Collective{Op: netmodel.Reduce, Root: 0, Bytes: 16})
	// 10 bytes: blocks 3 3 2 2. Recursive halving: rank 1 keeps blocks
	// 0-1 (6 bytes) at distance 2, then block 1 (3 bytes): 27 bytes of
	// traffic, 36 + 18 ns.
	coll(1, netmodel.Collective{Op: netmodel.ReduceScatter, Bytes: 10})
	coll(1, netmodel.Collective{Op: netmodel.Gather, Root: 0, Bytes: 9})
	coll(1, netmodel.Collective{Op: netmodel.Gather, Root: 0, Sizes: sizes10})
	coll(1, netmodel.Collective{Op: netmodel.Scatter, Root: 3, Bytes: 7})
	coll(1, netmodel.Collective{Op: netmodel.Scatter, Root: 3, Sizes: func(src, dst int) int64 { return int64(dst + 1) }})
	coll(1, netmodel.Collective{Op: netmodel.Allgather, Bytes: 6})
	coll(1, netmodel.Collective{Op: netmodel.Allgather, Sizes: func(src, dst int) int64 { return int64(src + 1) }})
	coll(1, netmodel.Collective{Op: netmodel.Alltoall, Bytes: 5})
	coll(1, netmodel.Collective{Op: netmodel.Alltoall, Sizes: func(src, dst int) int64 {
		if src == dst {
			return 0
		}
		return int64(10*src + dst)
	}})
	check(t, w, `
0 init
0 reduce 16 192 0
0 finalize
`, `
1 init
1 barrier
1 bcast 1000 2
1 allreduce 8 96
1 reduce 16 0 0
1 reducescatter 3 3 2 2 54
1 gather 9 9 0
1 gatherv 20 10 20 30 40 0
1 scatter 7 7 3
1 scatterv 1 2 3 4 2 3
1 allgather 6 6
1 allgatherv 2 1 2 3 4
1 alltoall 5 5
1 alltoallv 35 10 0 12 13 53 1 0 21 31
1 finalize
`, `
2 init
2 finalize
`)
}

// TestReassignedWorld: every rank takes part but group ranks are not world
// ranks (ARE ASSIGNED TO): roots and per-member sizes are given in world
// rank order.
func TestReassignedWorld(t *testing.T) {
	w := create(t, 4)
	members := []int64{2, 0, 3, 1} // group rank -> world rank
	c := netmodel.Collective{Op: netmodel.Gather, N: 4, Root: 0, Sizes: func(src, dst int) int64 { return int64(src + 1) }}
	// World rank 3 is group rank 2; world ranks 0..3 are group ranks 1, 3,
	// 0, 2, so their blocks are 2 4 1 3; the root is world rank 2.
	w.Collective(3, c, "linear", members, 2, -(1 << 30))
	w.Collective(3, netmodel.Collective{Op: netmodel.Bcast, N: 4, Root: 1, Bytes: 8}, "binomial", members, 2, -(1 << 30))
	check(t, w, `
0 init
0 finalize
`, `
1 init
1 finalize
`, `
2 init
2 finalize
`, `
3 init
3 gatherv 3 2 4 1 3 2
3 bcast 8 0
3 finalize
`)
}

// TestSubsetCollectives: collectives over some of the ranks become the
// point-to-point steps of their algorithm.
func TestSubsetCollectives(t *testing.T) {
	w := create(t, 4)
	const tag = -(1 << 30) - 32
	pair := []int64{1, 3}
	ar := netmodel.Collective{Op: netmodel.Allreduce, N: 2, Bytes: 8}
	w.Collective(1, ar, "recursive_doubling", pair, 0, tag)
	w.Collective(3, ar, "recursive_doubling", pair, 1, tag)
	// Binomial broadcast over ranks 0, 2, 3 from group rank 0 (rank 0):
	// the root sends to group rank 2 (distance 2), then to group rank 1.
	trio := []int64{0, 2, 3}
	bc := netmodel.Collective{Op: netmodel.Bcast, N: 3, Root: 0, Bytes: 100}
	for me, r := range trio {
		w.Collective(r, bc, "binomial", trio, me, tag-1)
	}
	// A barrier over 1 and 3: one zero-byte exchange each way.
	w.Collective(3, netmodel.Collective{Op: netmodel.Barrier, N: 2}, "dissemination", pair, 1, tag-2)
	check(t, w, `
0 init
0 send 3 -1073741857 100
0 send 2 -1073741857 100
0 finalize
`, `
1 init
1 irecv 3 -1073741856 8
1 isend 3 -1073741856 8
1 wait 3 1 -1073741856
1 wait 1 3 -1073741856
1 compute 48
1 finalize
`, `
2 init
2 recv 0 -1073741857 100
2 finalize
`, `
3 init
3 irecv 1 -1073741856 8
3 isend 1 -1073741856 8
3 wait 1 3 -1073741856
3 wait 3 1 -1073741856
3 compute 48
3 recv 0 -1073741857 100
3 irecv 1 -1073741858 0
3 isend 1 -1073741858 0
3 wait 1 3 -1073741858
3 wait 3 1 -1073741858
3 finalize
`)
}

// TestStepsWorldCollectives: with Steps, a collective over every rank is
// written as the steps of its algorithm too, group ranks being ranks.
func TestStepsWorldCollectives(t *testing.T) {
	w := create(t, 4)
	w.Steps = true
	const tag = -(1 << 30) - 32
	// Recursive doubling on 4 ranks: rank 1 exchanges with rank 0, then
	// with rank 3, combining 8 bytes after each (48 flops).
	w.Collective(1, netmodel.Collective{Op: netmodel.Allreduce, N: 4, Bytes: 8}, "recursive_doubling", nil, 1, tag)
	check(t, w, `
0 init
0 finalize
`, `
1 init
1 irecv 0 -1073741856 8
1 isend 0 -1073741856 8
1 wait 0 1 -1073741856
1 wait 1 0 -1073741856
1 compute 48
1 irecv 3 -1073741856 8
1 isend 3 -1073741856 8
1 wait 3 1 -1073741856
1 wait 1 3 -1073741856
1 compute 48
1 finalize
`, `
2 init
2 finalize
`, `
3 init
3 finalize
`)
}

func TestErrors(t *testing.T) {
	w := create(t, 2)
	w.Send(0, 1, 1, -1, false)
	w.Send(0, 1, 1, 1<<30, false)
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "collide") {
		t.Errorf("tags -1 and 2^30: %v", err)
	}
	w = create(t, 2)
	w.Send(0, 1, 1<<31, 0, false)
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "C ints") {
		t.Errorf("2 GiB message: %v", err)
	}
	w = create(t, 2)
	w.Await(2)
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("rank 2 of 2: %v", err)
	}
	if _, err := Create(t.TempDir(), "p", 0, machine()); err == nil {
		t.Error("0 ranks accepted")
	}
}

// TestStreaming: with a small buffer each rank's file is appended to many
// times and ends up whole; a thousand ranks need a thousand files but no
// more than one open at a time.
func TestStreaming(t *testing.T) {
	const n = 1000
	w := create(t, n)
	w.limit = 64
	var want [n]strings.Builder
	for r := range n {
		fmt.Fprintf(&want[r], "%d init\n", r)
	}
	for i := range 50 {
		for r := int64(0); r < n; r++ {
			peer := (r + 1) % n
			w.Send(r, peer, int64(i), int32(i), true)
			fmt.Fprintf(&want[r], "%d isend %d %d %d\n", r, peer, i, i)
		}
		for r := int64(0); r < n; r++ {
			w.Await(r)
			fmt.Fprintf(&want[r], "%d waitall\n", r)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for r := range n {
		fmt.Fprintf(&want[r], "%d finalize\n", r)
		got, err := os.ReadFile(w.RankPath(int64(r)))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want[r].String() {
			t.Fatalf("rank %d: got %d bytes, want %d", r, len(got), want[r].Len())
		}
	}
	idx, _ := os.ReadFile(w.IndexPath())
	if lines := strings.Count(string(idx), "\n"); lines != n {
		t.Errorf("index has %d lines", lines)
	}
}

// TestOverwrite: exporting again into the same directory replaces the
// files rather than appending to them.
func TestOverwrite(t *testing.T) {
	dir := t.TempDir()
	for range 2 {
		w, err := Create(dir, "p", 1, machine())
		if err != nil {
			t.Fatal(err)
		}
		w.Await(0)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(filepath.Join(dir, "p-0.tit"))
	if string(got) != "0 init\n0 waitall\n0 finalize\n" {
		t.Errorf("got %q", got)
	}
}
