package parser_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/parser"
)

// bigProgram writes a program of about `lines` lines in the shape of real
// benchmarks: parameters, then blocks of loops holding sends, receives,
// collectives, computation and logging.
func bigProgram(lines int) []byte {
	var b strings.Builder
	b.WriteString("REQUIRE LANGUAGE VERSION \"1.5\".\n")
	b.WriteString("reps IS \"Repetitions\" AND COMES FROM \"--reps\" OR \"-r\" WITH DEFAULT 100.\n")
	b.WriteString("msgsize IS \"Message size\" AND COMES FROM \"--msgsize\" OR \"-m\" WITH DEFAULT 64K.\n")
	n := 3
	for i := 0; n < lines; i++ {
		fmt.Fprintf(&b, `# Phase %d
FOR reps REPETITIONS PLUS 2 WARMUP REPETITIONS AND A SYNCHRONIZATION {
  ALL TASKS RESET THEIR COUNTERS THEN
  ALL TASKS t ASYNCHRONOUSLY SEND A msgsize BYTE MESSAGE TO TASK (t + %d) MOD num_tasks THEN
  TASKS t SUCH THAT t IS EVEN /\ t < num_tasks - 1 SEND %d UNIQUE %d KILOBYTE MESSAGES TO TASK t + 1 WHO RECEIVES THEM ASYNCHRONOUSLY THEN
  ALL TASKS AWAIT COMPLETION THEN
  FOR EACH d IN {-1, 1}
    ALL TASKS t SEND A msgsize * %d BYTE MESSAGE TO TASK MESH_NEIGHBOR((4*, num_tasks / 4), t, (d, 0)) THEN
  ALL TASKS COMPUTE %d * msgsize FLOPS AND 16 * msgsize BYTES OF MEMORY TRAFFIC THEN
  ALL TASKS REDUCE %d DOUBLEWORDS TO TASK 0 THEN
  IF reps > %d THEN TASK 0 MULTICASTS A %d BYTE MESSAGE TO ALL OTHER TASKS OTHERWISE ALL TASKS SYNCHRONIZE THEN
  TASK 0 LOGS THE msgsize AS "Bytes" AND THE MEDIAN OF elapsed_usecs / 2 AS "Latency (usecs)"
} THEN
TASK 0 COMPUTES AGGREGATES.
`, i, i%7+1, i%3+1, i%4+1, i%5+1, i*10, i%9+1, i, i*8)
		n += 14
	}
	return []byte(b.String())
}

// BenchmarkParseCheck100k measures parse + check throughput on a generated
// 100,000-line program.
//
//	go test ./parser -run '^$' -bench ParseCheck -benchmem
func BenchmarkParseCheck100k(b *testing.B) {
	src := bigProgram(100_000)
	lines := strings.Count(string(src), "\n")
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for range b.N {
		prog, diags := parser.Parse("big.parley", src)
		if diags.HasErrors() {
			b.Fatal(diags[0].Error())
		}
		if d := lang.Check(prog); d.HasErrors() {
			b.Fatal(d[0].Error())
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

func TestBigProgramChecks(t *testing.T) {
	src := bigProgram(200)
	prog, diags := parser.Parse("big.parley", src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if d := lang.Check(prog); len(d) > 0 {
		t.Fatal(d)
	}
}
