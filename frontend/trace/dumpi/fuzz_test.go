package dumpi

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/frontend/trace"
)

// FuzzParse checks that Parse never panics or hangs, fails only with a
// *trace.SyntaxError, and yields only events that name real ranks,
// communicators and requests.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("testdata/*/*-[0-9][0-9][0-9][0-9].txt")
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed traces: %v", err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// Each trace whole, as Parse reads a concatenation, less its footer
	// of call counts to keep the seeds small.
	for _, set := range []string{ringDir, moreDir, sstDir} {
		var all bytes.Buffer
		for _, name := range files {
			if filepath.Dir(name) != set {
				continue
			}
			data, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			for line := range strings.Lines(string(data)) {
				if !strings.Contains(line, " times and ignored ") {
					all.WriteString(line)
				}
			}
		}
		f.Add(all.Bytes())
	}
	f.Add([]byte(rec("MPI_Comm_group", 1, 2, world, "MPI_Group group=3 (user-defined-group)") +
		rec("MPI_Group_range_incl", 3, 4, "MPI_Group group=3 (user-defined-group)", "int count=1", "int ranges[1][3]=[[0, 0, 1]", "]MPI_Group newgroup=4 (user-defined-group)") +
		rec("MPI_Comm_create", 5, 6, "MPI_Comm oldcomm=2 (MPI_COMM_WORLD)", "MPI_Group group=4 (user-defined-group)", "MPI_Comm newcomm=4 (user-defined-comm)") +
		rec("MPI_Cart_create", 7, 8, "MPI_Comm oldcomm=4 (user-defined-comm)", "int ndim=1", "int dims[1]=[1]", "int periods[1]=[0]", "int reorder=0", "MPI_Comm newcomm=5 (user-defined-comm)") +
		rec("MPI_Cart_sub", 9, 10, "int ndim=1", "MPI_Comm oldcomm=5 (user-defined-comm)", "int remain_dims[1]=[0]", "MPI_Comm newcomm=6 (user-defined-comm)") +
		rec("MPI_Reduce_scatter", 11, 12, "int commsize=1", "int recvcounts[1]=[3]", "MPI_Datatype datatype=13 (MPI_FLOAT)", "MPI_Op op=3 (MPI_SUM)", "MPI_Comm comm=6 (user-defined-comm)") +
		rec("MPI_Type_create_subarray", 13, 14, "int ndims=2", "int sizes[2]=[4, 4]", "int subsizes[2]=[2, 3]", "int starts[2]=[0, 0]", "int order=1 (MPI_ORDER_C)", "MPI_Datatype oldtype=9 (MPI_INT)", "MPI_Datatype newtype=28 (user-defined-datatype)") +
		rec("MPI_Bcast", 15, 16, "int count=1", "MPI_Datatype datatype=28 (user-defined-datatype)", "int root=0", "MPI_Comm comm=5 (user-defined-comm)")))

	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse("fuzz.txt", bytes.NewReader(data))
		if err != nil {
			var se *trace.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *trace.SyntaxError", err)
			}
			return
		}
		if tr.NumRanks < 1 || len(tr.Ranks) != tr.NumRanks {
			t.Fatalf("%d ranks, %d rank bodies", tr.NumRanks, len(tr.Ranks))
		}
		for i, c := range tr.Comms[1:] {
			if len(c) == 0 {
				t.Fatalf("communicator %d is empty", i+1)
			}
			for _, m := range c {
				if m < 0 || m >= tr.NumRanks {
					t.Fatalf("communicator %d holds rank %d", i+1, m)
				}
			}
		}
		for r := range tr.NumRanks {
			var nb int
			waited := map[int]bool{}
			for ev := range tr.Events(r) {
				switch {
				case ev.Count < 0 || ev.TypeSize < 0 || ev.Count > 0 && ev.TypeSize > 0 && ev.Bytes()/ev.TypeSize != ev.Count:
					t.Fatalf("rank %d: %v has a negative or overflowing size", r, ev)
				case ev.Comm < 0 || ev.Comm >= len(tr.Comms):
					t.Fatalf("rank %d: %v names communicator %d of %d", r, ev, ev.Comm, len(tr.Comms))
				case ev.Op.IsP2P() && (ev.Peer >= tr.NumRanks || ev.Peer < 0 && !(ev.Op.IsRecv() && ev.Peer == trace.AnySource)):
					t.Fatalf("rank %d: %v names rank %d", r, ev, ev.Peer)
				case ev.Op.IsRooted() && (ev.Root < 0 || ev.Root >= tr.NumRanks):
					t.Fatalf("rank %d: %v has root %d", r, ev, ev.Root)
				case ev.Op == trace.Compute && !(ev.Amount > 0 && ev.Amount < trace.MaxAmount):
					t.Fatalf("rank %d: compute %v", r, ev.Amount)
				}
				if ev.Op.IsAsync() {
					nb++
				}
				for _, w := range ev.Waits {
					if w < 1 || w > nb || waited[nb-w] {
						t.Fatalf("rank %d: %v waits for request %d of %d, or again", r, ev, w, nb)
					}
					waited[nb-w] = true
				}
			}
		}
	})
}
