package dumpi

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// The traces under testdata/ring and testdata/more are real: the MPI
// programs beside them (ring/all.c.txt, more/more.c.txt) ran on 4 ranks of
// Open MPI linked with sst-dumpi's libdumpi, and dumpi2ascii converted the
// binary traces (-S for ring, -a for more). testdata/sst is sst-dumpi's own
// test trace (tests/traces/testtrace-000N.bin) converted with
// dumpi2ascii -HSKFPAX. The other inputs are written here following the
// printf formats of dumpi/bin/dumpi2ascii-defs.h.

const (
	ringDir = "testdata/ring"
	moreDir = "testdata/more"
	sstDir  = "testdata/sst"
)

// calls lists a rank's events other than compute, with the communicator
// of each collective and the counts of the "v" collectives.
func calls(tr *trace.Trace, rank int) []string {
	var out []string
	for ev := range tr.Events(rank) {
		if ev.Op == trace.Compute {
			continue
		}
		s := ev.String()
		if ev.Op.IsCollective() {
			if ev.Comm == 0 {
				s += " on world"
			} else {
				s += fmt.Sprintf(" on %v", tr.Comms[ev.Comm])
			}
		}
		if ev.Counts != nil {
			s += fmt.Sprintf(" counts %v", ev.Counts)
		}
		out = append(out, s)
	}
	return out
}

func mustRead(t *testing.T, path string) *trace.Trace {
	t.Helper()
	tr, err := Read(path)
	if err != nil {
		t.Fatalf("Read(%s): %v", path, err)
	}
	return tr
}

func checkCalls(t *testing.T, tr *trace.Trace, rank int, want []string) {
	t.Helper()
	got := calls(tr, rank)
	if !slices.Equal(got, want) {
		t.Errorf("rank %d's calls:\n%s\nwant:\n%s", rank, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRingEveryCallKind(t *testing.T) {
	tr := mustRead(t, ringDir)
	if tr.Format != "dumpi" || tr.NumRanks != 4 || tr.TimeUnit != trace.Microseconds {
		t.Fatalf("got format %q, %d ranks, unit %v", tr.Format, tr.NumRanks, tr.TimeUnit)
	}
	checkCalls(t, tr, 0, []string{
		"init",
		"send to 1 tag 7, 4 x 4 B",
		"recv from 3 tag 7, 4 x 4 B",
		"irecv from 3 tag 3, 8 x 8 B",
		"isend to 1 tag 3, 8 x 8 B",
		"wait [2 1]", // MPI_Waitall
		"recv from any any tag, 2 x 4 B",
		"recv from any any tag, 2 x 4 B",
		"recv from any any tag, 2 x 4 B",
		"barrier on world",
		"isend to 1 tag 11, 1 x 4 B",
		"irecv from 3 tag 11, 1 x 4 B",
		"wait [1]", // MPI_Wait on the Irecv
		"wait [2]", // MPI_Wait on the Isend
		"irecv from 3 tag 12, 1 x 4 B",
		"isend to 1 tag 12, 1 x 4 B",
		"wait [1]", // MPI_Waitany completing the Isend
		"wait [2]", // MPI_Waitsome completing the Irecv
		// MPI_Waitall on null requests, MPI_Send and MPI_Recv on
		// MPI_PROC_NULL: no events
		"isend to 1 tag 5, 3 x 4 B", // MPI_Sendrecv
		"irecv from 3 tag 5, 3 x 4 B",
		"wait [1 2]",
		"barrier on world",
		"bcast root 1, 5 x 8 B on world",
		"reduce root 2, 3 x 8 B on world",
		"allreduce 2 x 8 B on world",
		"gather root 0, 2 x 4 B on world",
		"gatherv root 3, 1 x 4 B on world",
		"scatter root 1, 2 x 4 B on world",
		"scatterv root 2, 1 x 4 B on world",
		"allgather 3 x 4 B on world",
		"allgatherv 1 x 4 B on world counts [1 2 3 4]",
		"alltoall 2 x 4 B on world",
		"alltoallv 10 x 4 B on world counts [1 2 3 4]",
		"reduce_scatter 10 x 8 B on world counts [1 2 3 4]",
		"scan 4 x 8 B on world",
		"bcast root 1, 1 x 8 B on [1 0]", // the half split with key -rank
		"recv from 1 tag 9, 6 x 4 B",     // source 0 of that half
		"allreduce 1 x 8 B on world",     // the dup of MPI_COMM_WORLD
		"isend to 1 tag 21, 2 x 12 B",    // MPI_Type_contiguous of 3 MPI_INT
		"irecv from 3 tag 21, 2 x 12 B",
		"wait [1 2]",
		"bcast root 0, 1 x 32 B on world", // MPI_Type_vector 2 x 2 MPI_DOUBLE
		"finalize",
	})
	checkCalls(t, tr, 3, []string{
		"init",
		"recv from 2 tag 7, 4 x 4 B",
		"send to 0 tag 7, 4 x 4 B",
		"irecv from 2 tag 3, 8 x 8 B",
		"isend to 0 tag 3, 8 x 8 B",
		"wait [2 1]",
		"send to 0 tag 103, 2 x 4 B",
		"barrier on world",
		"isend to 0 tag 11, 1 x 4 B",
		"irecv from 2 tag 11, 1 x 4 B",
		"wait [1]",
		"wait [2]",
		"irecv from 2 tag 12, 1 x 4 B",
		"isend to 0 tag 12, 1 x 4 B",
		"wait [2]", // here MPI_Waitany completes the Irecv first
		"wait [1]",
		"isend to 0 tag 5, 3 x 4 B",
		"irecv from 2 tag 5, 3 x 4 B",
		"wait [1 2]",
		"barrier on world",
		"bcast root 1, 5 x 8 B on world",
		"reduce root 2, 3 x 8 B on world",
		"allreduce 2 x 8 B on world",
		"gather root 0, 2 x 4 B on world",
		"gatherv root 3, 4 x 4 B on world counts [1 2 3 4]", // the root
		"scatter root 1, 2 x 4 B on world",
		"scatterv root 2, 4 x 4 B on world",
		"allgather 3 x 4 B on world",
		"allgatherv 4 x 4 B on world counts [1 2 3 4]",
		"alltoall 2 x 4 B on world",
		"alltoallv 10 x 4 B on world counts [1 2 3 4]",
		"reduce_scatter 10 x 8 B on world counts [1 2 3 4]",
		"scan 4 x 8 B on world",
		"bcast root 3, 1 x 8 B on [3 2]",
		"send to 2 tag 9, 6 x 4 B",
		"allreduce 1 x 8 B on world",
		"barrier on [1 3]", // MPI_Comm_create from MPI_Group_range_incl
		"isend to 0 tag 21, 2 x 12 B",
		"irecv from 2 tag 21, 2 x 12 B",
		"wait [1 2]",
		"bcast root 0, 1 x 32 B on world",
		"finalize",
	})
	// The root of MPI_Scatterv sees its own block of the per-member counts.
	for ev := range tr.Events(2) {
		if ev.Op == trace.Scatterv && (ev.Count != 3 || !slices.Equal(ev.Counts, []int64{1, 2, 3, 4})) {
			t.Errorf("rank 2's scatterv: count %d, counts %v; want 3, [1 2 3 4]", ev.Count, ev.Counts)
		}
	}
}

func TestCommunicators(t *testing.T) {
	tr := mustRead(t, ringDir)
	// Split into halves (key -rank reverses each half), dup of the world
	// (index 0), create from the odd ranks.
	want := [][]int{nil, {1, 0}, {1, 3}, {3, 2}}
	if !equalComms(tr.Comms, want) {
		t.Errorf("ring comms %v, want %v", tr.Comms, want)
	}

	tr = mustRead(t, moreDir)
	// Cart_create 2x2 and Cart_sub keeping dimension 1 (rows), a
	// Group_incl in reverse, a split of that by even and odd ranks, and
	// each rank's MPI_COMM_SELF.
	for r, want := range [][]string{
		{"allreduce 2 x 4 B on [0 1]", "bcast root 3, 3 x 4 B on [3 2 1 0]", "gather root 0, 1 x 4 B on [2 0]", "barrier on [0]"},
		{"allreduce 2 x 4 B on [0 1]", "bcast root 3, 3 x 4 B on [3 2 1 0]", "gather root 1, 1 x 4 B on [3 1]", "barrier on [1]"},
		{"allreduce 2 x 4 B on [2 3]", "bcast root 3, 3 x 4 B on [3 2 1 0]", "gather root 0, 1 x 4 B on [2 0]", "barrier on [2]"},
		{"allreduce 2 x 4 B on [2 3]", "bcast root 3, 3 x 4 B on [3 2 1 0]", "gather root 1, 1 x 4 B on [3 1]", "barrier on [3]"},
	} {
		var got []string
		for _, s := range calls(tr, r) {
			if strings.Contains(s, " on ") {
				got = append(got, s)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("rank %d's collectives %q, want %q", r, got, want)
		}
	}
	// Point-to-point peers on a subcommunicator are world ranks.
	if got := calls(tr, 2)[4]; got != "send to 0 tag 4, 5 x 2 B" {
		t.Errorf("rank 2's MPI_Ssend on [2 0]: %q", got)
	}
}

func TestGroups(t *testing.T) {
	grp := func(h int) string { return fmt.Sprintf("MPI_Group group=%d (user-defined-group)", h) }
	newgrp := func(h int) string { return fmt.Sprintf("MPI_Group newgroup=%d (user-defined-group)", h) }
	var text strings.Builder
	for r := range 4 {
		text.WriteString(rec("MPI_Init", 1, 2, "int argc=0", "string argv[0]=<IGNORED>") +
			rec("MPI_Comm_group", 3, 4, world, grp(3)) + // [0 1 2 3]
			rec("MPI_Group_range_excl", 5, 6, grp(3), "int count=1", "int ranges[1][3]=[[0, 0, 1]", "]"+newgrp(4)) + // [1 2 3]
			rec("MPI_Group_incl", 7, 8, grp(3), "int count=2", "int ranks[2]=[3, 1]", newgrp(5)) + // [3 1]
			rec("MPI_Group_union", 9, 10, "MPI_Group group1=5 (user-defined-group)", "MPI_Group group2=4 (user-defined-group)", newgrp(6)) + // [3 1 2]
			rec("MPI_Group_intersection", 11, 12, "MPI_Group group1=4 (user-defined-group)", "MPI_Group group2=5 (user-defined-group)", newgrp(7)) + // [1 3]
			rec("MPI_Group_difference", 13, 14, "MPI_Group group1=4 (user-defined-group)", "MPI_Group group2=5 (user-defined-group)", newgrp(8)) + // [2]
			rec("MPI_Group_excl", 15, 16, grp(6), "int count=1", "int ranks[1]=[0]", newgrp(9)) + // [1 2]
			rec("MPI_Group_range_incl", 17, 18, grp(3), "int count=2", "int ranges[2][3]=[[3, 2, -1]", ", [0, 0, 1]", "]"+newgrp(10))) // [3 2 0]
		for i, g := range []int{6, 7, 8, 9, 10} {
			h := 4 + i
			text.WriteString(rec("MPI_Comm_create", int64(20+2*i), int64(21+2*i), "MPI_Comm oldcomm=2 (MPI_COMM_WORLD)", grp(g), fmt.Sprintf("MPI_Comm newcomm=%d (user-defined-comm)", h)))
		}
		for i, members := range [][]int{{3, 1, 2}, {1, 3}, {2}, {1, 2}, {3, 2, 0}} {
			if slices.Contains(members, r) {
				text.WriteString(rec("MPI_Barrier", int64(40+2*i), int64(41+2*i), fmt.Sprintf("MPI_Comm comm=%d (user-defined-comm)", 4+i)))
			}
		}
	}
	tr := mustParse(t, text.String())
	checkCalls(t, tr, 2, []string{"init", "barrier on [3 1 2]", "barrier on [2]", "barrier on [1 2]", "barrier on [3 2 0]"})
	checkCalls(t, tr, 3, []string{"init", "barrier on [3 1 2]", "barrier on [1 3]", "barrier on [3 2 0]"})
}

func equalComms(got, want [][]int) bool {
	return slices.EqualFunc(got, want, func(a, b []int) bool { return slices.Equal(a, b) })
}

func TestTestCallsAndDerivedTypes(t *testing.T) {
	tr := mustRead(t, moreDir)
	got := calls(tr, 1)[4:]
	want := []string{
		"recv from 3 tag 4, 5 x 2 B",
		"irecv from 0 tag 30, 1 x 4 B",
		"isend to 2 tag 30, 1 x 4 B", // MPI_Issend
		"wait [2 1]",                 // MPI_Testall with flag=1; flag=0 ones vanish
		"irecv from 0 tag 31, 1 x 4 B",
		"isend to 2 tag 31, 1 x 4 B",
		"wait [2]",                    // MPI_Test
		"wait [1]",                    // MPI_Testany
		"isend to 2 tag 40, 2 x 16 B", // MPI_Sendrecv_replace of an MPI_Type_create_struct
		"irecv from 0 tag 40, 2 x 16 B",
		"wait [1 2]",
		"barrier on [1]",
		"finalize",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rank 1's calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSSTTestTrace(t *testing.T) {
	tr := mustRead(t, sstDir)
	for r := range 4 {
		checkCalls(t, tr, r, []string{
			"init",
			"barrier on world",
			fmt.Sprintf("isend to %d tag 1337, 1 x 4 B", (r+1)%4),
			fmt.Sprintf("recv from %d tag 1337, 1 x 4 B", (r+3)%4),
			"wait [1]",
			"allreduce 1 x 4 B on world",
			"finalize",
		})
	}
}

// rec prints one call record as dumpi2ascii does (DUMPI_ENTERING and
// DUMPI_RETURNING); times are in microseconds.
func rec(name string, enter, exit int64, params ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s entering at walltime %d.%09d, cputime 0.000000000 seconds in thread 0.\n", name, enter/1e6, enter%1e6*1000)
	for _, p := range params {
		b.WriteString(p + "\n")
	}
	fmt.Fprintf(&b, "%s returning at walltime %d.%09d, cputime 0.000000000 seconds in thread 0.\n", name, exit/1e6, exit%1e6*1000)
	return b.String()
}

const world = "MPI_Comm comm=2 (MPI_COMM_WORLD)"

func mustParse(t *testing.T, text string) *trace.Trace {
	t.Helper()
	tr, err := Parse("in.txt", strings.NewReader(text))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return tr
}

func TestComputeGaps(t *testing.T) {
	text := rec("MPI_Init", 1_000_000, 1_000_001, "int argc=0", "string argv[0]=<IGNORED>") +
		rec("MPI_Comm_rank", 1_000_003, 1_000_004, world, "int rank=0") + // moves no data
		rec("MPI_Send", 1_000_010, 1_000_011, "int count=1", "MPI_Datatype datatype=9 (MPI_INT)", "int dest=0", "int tag=0", world) +
		rec("MPI_Barrier", 1_000_011, 1_000_012, world) + // no gap
		rec("MPI_Wtime", 1_000_050, 1_000_050) +
		rec("MPI_Finalize", 1_000_112, 1_000_113)
	tr := mustParse(t, text)
	var got []string
	for ev := range tr.Events(0) {
		got = append(got, ev.String())
	}
	want := []string{"init", "compute 9", "send to 0 tag 0, 1 x 4 B", "barrier", "compute 100", "finalize"}
	if !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
	// Sub-microsecond gaps are kept: the lowering rounds.
	text = "MPI_Init entering at walltime 5.000000000, cputime 0.0 seconds in thread 0.\n" +
		"MPI_Init returning at walltime 5.000000100, cputime 0.0 seconds in thread 0.\n" +
		"MPI_Finalize entering at walltime 5.0000004, cputime 0.0 seconds in thread 0.\n" +
		"MPI_Finalize returning at walltime 5.0000004, cputime 0.0 seconds in thread 0.\n"
	tr = mustParse(t, text)
	for ev := range tr.Events(0) {
		if ev.Op == trace.Compute && ev.Amount != 0.3 {
			t.Errorf("compute %v µs, want 0.3", ev.Amount)
		}
	}
}

func TestRequests(t *testing.T) {
	isend := func(at int64, dest string, h int) string {
		return rec("MPI_Isend", at, at+1, "int count=1", "MPI_Datatype datatype=5 (MPI_BYTE)", "int dest="+dest, "int tag=1", world, fmt.Sprintf("MPI_Request request=[%d]", h))
	}
	irecv := func(at int64, h int) string {
		return rec("MPI_Irecv", at, at+1, "int count=1", "MPI_Datatype datatype=5 (MPI_BYTE)", "int source=-1 (MPI_ANY_SOURCE)", "int tag=-1 (MPI_ANY_TAG)", world, fmt.Sprintf("MPI_Request request=[%d]", h))
	}
	text := isend(10, "0", 2) + // nonblocking call 1
		irecv(20, 3) + // 2
		isend(30, "-2 (MPI_ROOT)", 4) + // MPI_PROC_NULL in Open MPI: dropped
		irecv(40, 5) + // 3
		rec("MPI_Waitall", 50, 51, "int count=4", "MPI_Request requests[4]=[2, 3, 4, 1]", "MPI_Status statuses[4]=<IGNORED>") +
		isend(60, "0", 2) + // 4, reusing handle 2
		rec("MPI_Request_free", 70, 71, "MPI_Request request=[5]") +
		rec("MPI_Testsome", 80, 81, "int count=1", "MPI_Request requests[1]=[2]", "int outcount=0", "int indices[0]=<IGNORED>", "MPI_Status statuses[0]=<IGNORED>") +
		rec("MPI_Waitsome", 90, 91, "int count=1", "MPI_Request requests[1]=[2]", "int outcount=1", "int indices[1]=[0]", "MPI_Status statuses[1]=<IGNORED>") +
		rec("MPI_Wait", 100, 101, "MPI_Request request=[1]", "MPI_Status status=<IGNORED>")
	tr := mustParse(t, text)
	checkCalls(t, tr, 0, []string{
		"isend to 0 tag 1, 1 x 1 B",
		"irecv from any any tag, 1 x 1 B",
		"irecv from any any tag, 1 x 1 B",
		"wait [3 2]",
		"isend to 0 tag 1, 1 x 1 B",
		"wait [1]",
	})
}

func TestDatatypes(t *testing.T) {
	send := func(at int64, n int, dtype string) string {
		return rec("MPI_Send", at, at+1, fmt.Sprintf("int count=%d", n), "MPI_Datatype datatype="+dtype, "int dest=0", "int tag=0", world)
	}
	text := rec("MPI_Type_contiguous", 1, 2, "int count=3", "MPI_Datatype oldtype=14 (MPI_DOUBLE)", "MPI_Datatype newtype=28 (user-defined-datatype)") +
		rec("MPI_Type_vector", 3, 4, "int count=2", "int blocklength=3", "int stride=5", "MPI_Datatype oldtype=28 (user-defined-datatype)", "MPI_Datatype newtype=29 (user-defined-datatype)") +
		rec("MPI_Type_indexed", 5, 6, "int count=2", "int lengths[2]=[1, 4]", "int indices[2]=[0, 8]", "MPI_Datatype oldtype=7 (MPI_SHORT)", "MPI_Datatype newtype=30 (user-defined-datatype)") +
		send(10, 2, "29 (user-defined-datatype)") +
		send(20, 1, "30 (user-defined-datatype)") +
		send(30, 1, "11 (MPI_LONG)") +
		send(40, 0, "99 (user-defined-datatype)") + // no elements: no size needed
		send(50, 1, "31 (user-defined-datatype)") + // sized by the table
		"Datatype 11 (MPI_LONG) has size 4\n" +
		"Datatype 31 (user-defined-datatype) has size 7\n"
	tr := mustParse(t, text)
	checkCalls(t, tr, 0, []string{
		"send to 0 tag 0, 2 x 144 B",
		"send to 0 tag 0, 1 x 10 B",
		"send to 0 tag 0, 1 x 4 B",
		"send to 0 tag 0, 0 x 0 B",
		"send to 0 tag 0, 1 x 7 B",
	})
}

func TestParseConcatenation(t *testing.T) {
	var all strings.Builder
	for r := range 4 {
		data, err := os.ReadFile(filepath.Join(sstDir, fmt.Sprintf("testtrace-%04d.txt", r)))
		if err != nil {
			t.Fatal(err)
		}
		all.Write(data)
	}
	tr := mustParse(t, all.String())
	ref := mustRead(t, sstDir)
	if tr.NumRanks != 4 {
		t.Fatalf("%d ranks, want 4", tr.NumRanks)
	}
	for r := range 4 {
		if got, want := calls(tr, r), calls(ref, r); !slices.Equal(got, want) {
			t.Errorf("rank %d: %q, want %q", r, got, want)
		}
	}
	// Without headers, each MPI_Init after calls starts the next rank.
	ranks := rec("MPI_Init", 1, 2, "int argc=0", "string argv[0]=<IGNORED>") + rec("MPI_Send", 3, 4, "int count=1", "MPI_Datatype datatype=2 (MPI_CHAR)", "int dest=1", "int tag=0", world)
	ranks += rec("MPI_Init", 1, 2, "int argc=0", "string argv[0]=<IGNORED>") + rec("MPI_Recv", 3, 4, "int count=1", "MPI_Datatype datatype=2 (MPI_CHAR)", "int source=0", "int tag=0", world, "MPI_Status status=<IGNORED>")
	tr = mustParse(t, ranks)
	checkCalls(t, tr, 1, []string{"init", "recv from 0 tag 0, 1 x 1 B"})
}

func TestReadPaths(t *testing.T) {
	copyRing := func(t *testing.T) string {
		dir := t.TempDir()
		files, _ := filepath.Glob(filepath.Join(ringDir, "dumpi-*"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	const stamp = "dumpi-2026.11.21.13.22.58"
	ref := mustRead(t, ringDir)

	t.Run("one file reads its siblings", func(t *testing.T) {
		tr := mustRead(t, filepath.Join(ringDir, stamp+"-0002.txt"))
		if tr.NumRanks != 4 || !slices.Equal(calls(tr, 3), calls(ref, 3)) {
			t.Errorf("got %d ranks", tr.NumRanks)
		}
	})
	tests := []struct {
		name   string
		damage func(dir string) error
		path   string // relative to dir; "" for dir
		want   string // error text, with %s for dir
	}{
		{"missing rank", func(dir string) error { return os.Remove(filepath.Join(dir, stamp+"-0002.txt")) }, "",
			"%s: rank 2's file is missing (expected " + stamp + "-0002.txt next to " + stamp + "-0003.txt)"},
		{"meta disagrees", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, stamp+".meta"), []byte("hostname=vm\nnumprocs=8\n"), 0o644)
		}, "", "%s/" + stamp + ".meta:2:10: numprocs=8, but 4 rank files " + stamp + "-NNNN were found: expected one per rank"},
		// A trace cannot declare ranks it has no file for: a file of rank
		// 2^20-1 beside ranks 0-2, or numprocs of a million, is refused
		// without allocating for the ranks between.
		{"huge rank", func(dir string) error {
			return os.Rename(filepath.Join(dir, stamp+"-0003.txt"), filepath.Join(dir, stamp+"-1048575.txt"))
		}, "", "%s: rank 3's file is missing (expected " + stamp + "-0003.txt next to " + stamp + "-1048575.txt)"},
		{"huge numprocs", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, stamp+".meta"), []byte("numprocs=1048576\n"), 0o644)
		}, "", "%s/" + stamp + ".meta:1:10: numprocs=1048576, but 4 rank files " + stamp + "-NNNN were found: expected one per rank"},
		{"two traces", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "other-0000.txt"), []byte(rec("MPI_Finalize", 1, 2)), 0o644)
		}, "", "%s holds several traces (" + stamp + "-NNNN.txt, other-NNNN.txt): pass one of their files"},
		{"swapped ranks", func(dir string) error {
			a, b := filepath.Join(dir, stamp+"-0001.txt"), filepath.Join(dir, stamp+"-0002.txt")
			if err := os.Rename(a, a+".tmp"); err != nil {
				return err
			}
			if err := os.Rename(b, a); err != nil {
				return err
			}
			return os.Rename(a+".tmp", b)
		}, "", "%s/" + stamp + "-0001.txt:7:10: MPI_Comm_rank on MPI_COMM_WORLD returns 2, but this is rank 1 (by its file name)"},
		{"a rank alone", func(dir string) error {
			return os.Rename(filepath.Join(dir, stamp+"-0000.txt"), filepath.Join(dir, "alone.txt"))
		},
			"alone.txt", "%s/alone.txt:11:10: MPI_Comm_size on MPI_COMM_WORLD returns 4, but the trace has 1 rank: expected one dumpi2ascii output per rank"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyRing(t)
			if err := tt.damage(dir); err != nil {
				t.Fatal(err)
			}
			_, err := Read(filepath.Join(dir, tt.path))
			want := strings.ReplaceAll(tt.want, "%s", dir)
			if err == nil || err.Error() != want {
				t.Errorf("got error %v\nwant %s", err, want)
			}
		})
	}
}

func TestDamage(t *testing.T) {
	send := rec("MPI_Send", 1, 2, "int count=1", "MPI_Datatype datatype=9 (MPI_INT)", "int dest=0", "int tag=0", world)
	tests := []struct {
		name, text, want string
	}{
		{"truncated record",
			"MPI_Send entering at walltime 1.000000000, cputime 0.000000000 seconds in thread 0.\nint count=1\n",
			`in.txt:2:12: input ends inside the MPI_Send record begun at line 1: expected "MPI_Send returning at walltime ..."`},
		{"count not a number",
			strings.Replace(send, "int count=1", "int count=x1", 1),
			`in.txt:2:11: int count="x1": expected a 32-bit integer`},
		{"negative count",
			strings.Replace(send, "int count=1", "int count=-4", 1),
			`in.txt:2:11: count=-4 is negative: expected a count of zero or more`},
		{"bad walltime",
			strings.Replace(send, "walltime 0.000001000", "walltime 0.0000x1000", 1),
			`in.txt:1:31: walltime "0.0000x1000" is not a time: expected seconds as "S.NNNNNNNNN"`},
		{"returning before entering",
			strings.Replace(send, "returning at walltime 0.000002000", "returning at walltime 0.000000500", 1),
			`in.txt:7:32: MPI_Send returns at walltime 0.000000500, before it entered (line 1)`},
		{"other call returns",
			strings.Replace(send, "MPI_Send returning", "MPI_Recv returning", 1),
			`in.txt:7:1: MPI_Recv returning inside the MPI_Send record begun at line 1: expected "MPI_Send returning at walltime ..."`},
		{"nested entering",
			strings.Replace(send, "int tag=0\n", "int tag=0\n"+rec("MPI_Barrier", 1, 2, world), 1),
			`in.txt:6:1: MPI_Barrier entering inside the MPI_Send record begun at line 1: expected "MPI_Send returning at walltime ..." first`},
		{"garbage between records",
			send + "hello world\n" + send,
			`in.txt:8:1: unexpected line "hello world": expected a call record ("MPI_Xxx entering at walltime S.NS, cputime S.NS seconds in thread T.") or a dumpi2ascii header or footer line`},
		{"garbage in a record",
			strings.Replace(send, "int tag=0", "int tag 0", 1),
			`in.txt:5:1: unexpected line "int tag 0" in the MPI_Send record begun at line 1: expected a parameter line "TYPE NAME=VALUE" or "MPI_Send returning at walltime ..."`},
		{"missing parameter",
			strings.Replace(send, "int tag=0\n", "", 1),
			`in.txt:1:1: MPI_Send record has no parameter tag: expected a line "tag=VALUE" before "MPI_Send returning"`},
		{"peer outside the communicator",
			strings.Replace(send, "int dest=0", "int dest=9", 1),
			`in.txt:4:10: dest=9 is outside the communicator of 1 rank`},
		{"negative send tag",
			strings.Replace(send, "int tag=0", "int tag=-7", 1),
			`in.txt:5:9: tag=-7 is negative: expected a tag of zero or more`},
		{"unknown request",
			rec("MPI_Wait", 1, 2, "MPI_Request request=[7]", "MPI_Status status=<IGNORED>"),
			`in.txt:2:21: MPI_Wait completes request 7, which no earlier nonblocking call of rank 0 returned (or which completed already)`},
		{"unknown datatype",
			strings.Replace(send, "9 (MPI_INT)", "40 (user-defined-datatype)", 1),
			`in.txt:3:23: MPI_Send: datatype 40 (user-defined-datatype) has no known size: no MPI_Type_contiguous, MPI_Type_vector or other constructor in the trace creates it, and the trace has no size table (dumpi2ascii -X)`},
		{"derived from an unknown datatype",
			rec("MPI_Type_contiguous", 1, 2, "int count=2", "MPI_Datatype oldtype=40 (user-defined-datatype)", "MPI_Datatype newtype=41 (user-defined-datatype)") +
				strings.Replace(send, "9 (MPI_INT)", "41 (user-defined-datatype)", 1),
			`in.txt:8:23: MPI_Send: datatype 41 (user-defined-datatype) has no known size: it is built from another: datatype 40 (user-defined-datatype) has no known size: no MPI_Type_contiguous, MPI_Type_vector or other constructor in the trace creates it, and the trace has no size table (dumpi2ascii -X)`},
		{"absurd message",
			rec("MPI_Type_contiguous", 1, 2, "int count=1073741824", "MPI_Datatype oldtype=5 (MPI_BYTE)", "MPI_Datatype newtype=28 (user-defined-datatype)") +
				strings.Replace(strings.Replace(send, "9 (MPI_INT)", "28 (user-defined-datatype)", 1), "count=1", "count=2000000000", 1),
			`in.txt:8:23: MPI_Send moves 2000000000 elements of 1073741824 bytes, more than 1125899906842624 bytes in all`},
		{"waitsome without indices",
			rec("MPI_Waitsome", 1, 2, "int count=1", "MPI_Request requests[1]=[2]", "int outcount=1", "int indices[1]=<IGNORED>", "MPI_Status statuses[1]=<IGNORED>"),
			`in.txt:5:16: MPI_Waitsome indices=<IGNORED>: expected the indices of the 1 completed requests`},
		{"unmapped communicator",
			strings.Replace(send, world, "MPI_Comm comm=6 (user-defined-comm)", 1),
			`in.txt:6:15: MPI_Send uses communicator 6 (user-defined-comm), which this reader cannot map to world ranks: communicator handle 6 is not MPI_COMM_WORLD or MPI_COMM_SELF and no earlier call in the trace creates it`},
		{"intercommunicator",
			rec("MPI_Intercomm_create", 1, 2, "MPI_Comm localcomm=2 (MPI_COMM_WORLD)", "int localleader=0", "MPI_Comm remotecomm=2 (MPI_COMM_WORLD)", "int remoteleader=0", "int tag=0", "MPI_Comm newcomm=4 (user-defined-comm)") +
				rec("MPI_Barrier", 3, 4, "MPI_Comm comm=4 (user-defined-comm)"),
			`in.txt:10:15: MPI_Barrier uses communicator 4 (user-defined-comm), which this reader cannot map to world ranks: it is made by MPI_Intercomm_create, which this reader does not follow`},
		{"data-moving call without an event",
			send + rec("MPI_Ibcast", 3, 4, "int count=1"),
			`in.txt:8:1: MPI_Ibcast moves data, but the trace model has no event for it`},
		{"persistent request",
			rec("MPI_Send_init", 3, 4, "int count=1"),
			`in.txt:1:1: MPI_Send_init moves data, but the trace model has no event for it (persistent requests are not supported)`},
		{"commsize disagrees",
			rec("MPI_Allgatherv", 1, 2, "int commsize=2", "int sendcount=1", "MPI_Datatype sendtype=9 (MPI_INT)", "int recvcounts[2]=[1, 1]", "int displs[2]=[0, 1]", "MPI_Datatype recvtype=9 (MPI_INT)", world),
			`in.txt:2:14: commsize=2, but the communicator has 1 rank`},
		{"short array",
			rec("MPI_Allgatherv", 1, 2, "int commsize=1", "int sendcount=1", "MPI_Datatype sendtype=9 (MPI_INT)", "int recvcounts[1]=[1, 1]", "int displs[1]=[0]", "MPI_Datatype recvtype=9 (MPI_INT)", world),
			`in.txt:5:19: int recvcounts: array has more than 1 elements`},
		{"broken range array",
			rec("MPI_Group_range_incl", 1, 2, "MPI_Group group=3 (user-defined-group)", "int count=2", "int ranges[2][3]=[[0, 0, 1]", "oops"),
			`in.txt:5:1: unexpected line "oops" inside the array ranges begun at line 4: expected ", [...]" or "]"`},
		{"group rank out of range",
			rec("MPI_Comm_group", 1, 2, world, "MPI_Group group=3 (user-defined-group)") +
				rec("MPI_Group_incl", 3, 4, "MPI_Group group=3 (user-defined-group)", "int count=1", "int ranks[1]=[5]", "MPI_Group newgroup=4 (user-defined-group)"),
			`in.txt:5:1: MPI_Group_incl: rank 5 is outside the group of 1`},
		{"split without a match",
			rec("MPI_Init", 1, 2, "int argc=0", "string argv[0]=<IGNORED>") +
				rec("MPI_Comm_split", 3, 4, "MPI_Comm oldcomm=2 (MPI_COMM_WORLD)", "int color=0", "int key=0", "MPI_Comm newcomm=4 (user-defined-comm)") +
				rec("MPI_Init", 1, 2, "int argc=0", "string argv[0]=<IGNORED>") +
				rec("MPI_Finalize", 3, 4),
			`in.txt:5:1: MPI_Comm_split: rank 1 (in.txt) ends without the matching call: every member of the communicator must make the same communicator-creating calls in the same order`},
		{"dup matched by split",
			rec("MPI_Init", 1, 2, "int argc=0", "string argv[0]=<IGNORED>") +
				rec("MPI_Comm_split", 3, 4, "MPI_Comm oldcomm=2 (MPI_COMM_WORLD)", "int color=0", "int key=0", "MPI_Comm newcomm=4 (user-defined-comm)") +
				rec("MPI_Init", 1, 2, "int argc=0", "string argv[0]=<IGNORED>") +
				rec("MPI_Comm_dup", 3, 4, "MPI_Comm oldcomm=2 (MPI_COMM_WORLD)", "MPI_Comm newcomm=4 (user-defined-comm)"),
			`in.txt:15:1: MPI_Comm_dup: matches MPI_Comm_split of rank 0 (in.txt:5): every member of the communicator must make the same communicator-creating calls in the same order`},
		{"datatype size table line",
			send + "Datatype 3 (MPI_SIGNED_CHAR) has size x\n",
			`in.txt:8:1: malformed datatype size line "Datatype 3 (MPI_SIGNED_CHAR) has size x": expected "Datatype N (NAME) has size S"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("in.txt", strings.NewReader(tt.text))
			var se *trace.SyntaxError
			if err == nil || !errors.As(err, &se) || err.Error() != tt.want {
				t.Errorf("got error %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestSkippedAndDropped(t *testing.T) {
	text := rec("MPI_Init", 1, 2, "int argc=0", "string argv[0]=<IGNORED>") +
		rec("MPI_Wtime", 3, 4) +
		rec("MPI_Comm_set_name", 5, 6, world, `string name="a name with = and ] in it"`) +
		rec("MPI_File_open", 7, 8, world, "string filename=\"f\"", "int amode=2 (MPI_MODE_RDWR)", "MPI_Info info=0 (MPI_INFO_NULL)", "MPI_File file=1 (user-file)") +
		rec("MPI_Probe", 9, 10, "int source=-1 (MPI_ANY_SOURCE)", "int tag=-1 (MPI_ANY_TAG)", world, "MPI_Status status=<IGNORED>") +
		rec("MPI_Sendrecv", 11, 12, "int sendcount=1", "MPI_Datatype sendtype=9 (MPI_INT)", "int dest=-1", "int sendtag=0",
			"int recvcount=1", "MPI_Datatype recvtype=9 (MPI_INT)", "int source=0", "int recvtag=0", world, "MPI_Status status=<IGNORED>") +
		rec("MPI_Finalize", 13, 14)
	tr := mustParse(t, text)
	// MPICH's MPI_PROC_NULL is -1: the send half of the Sendrecv drops.
	checkCalls(t, tr, 0, []string{"init", "recv from 0 tag 0, 1 x 4 B", "finalize"})
}

func TestSniff(t *testing.T) {
	ring, err := os.ReadFile(filepath.Join(ringDir, "dumpi-2026.11.21.13.22.58-0000.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sst, err := os.ReadFile(filepath.Join(sstDir, "testtrace-0000.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		head string
		want bool
	}{
		{string(ring[:512]), true},
		{string(sst[:512]), true},
		{string(ring[:20]), true}, // "MPI_Init entering at"
		{"version=1.0", true},
		{"\nMPI_Barrier entering at walltime 1.000000000, cputime 0.1 seconds in thread 0.\n", true},
		{"version=one\n", false},
		{"0 init\n0 send 1 100\n", false},
		{"MPI_Init called 1 times and ignored 0 times\n", false},
		{"", false},
		{"# scalatrace\n", false},
	} {
		if got := Sniff([]byte(tt.head)); got != tt.want {
			t.Errorf("Sniff(%q) = %v, want %v", tt.head, got, tt.want)
		}
	}
}
