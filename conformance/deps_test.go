package conformance_test

import (
	"testing"

	"github.com/parley-hpc/parley/internal/mpitest"
)

// TestColumnDeps: the harness compares a LOG column's values only where
// they depend on neither the clock nor random draws, following variables
// through the LET and FOR EACH that bind them; in a program with a timed
// loop the counters count what the machine managed, so they depend on
// the clock too. It needs no coNCePTuaL and no MPI.
func TestColumnDeps(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want map[string]dep // columns not named are fixed
	}{{`LET r BE A RANDOM TASK WHILE
  FOR EACH i IN {1, ..., 3}
    FOR EACH j IN {r, r + 1}
      TASK 0 LOGS i AS "fixed" AND j AS "bound to a draw" AND RANDOM_UNIFORM(0, 1) AS "drawn" AND
        elapsed_usecs / 2 AS "clock" AND msgs_sent AS "counter" AND j + elapsed_usecs AS "both".`,
		map[string]dep{"bound to a draw": random, "drawn": random, "clock": timing, "both": timing},
	}, {`FOR 1 MILLISECOND TASK 0 SENDS A 1 BYTE MESSAGE TO TASK 1 THEN
TASK 0 LOGS msgs_sent AS "counter" AND num_tasks AS "tasks".`,
		map[string]dep{"counter": timing},
	}} {
		got := columnDeps(mpitest.Build(t, "deps.parley", []byte(tc.src)))
		for _, m := range []map[string]dep{got, tc.want} {
			for col := range m {
				if got[col] != tc.want[col] {
					t.Errorf("%s:\ncolumn %q depends on %v, want %v", tc.src, col, got[col], tc.want[col])
				}
			}
		}
		if len(got) == 0 {
			t.Errorf("%s: no columns found", tc.src)
		}
	}
}
