package lang_test

import (
	"strings"
	"testing"

	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/parser"
)

// format parses src and prints it canonically.
func format(t *testing.T, src string) string {
	t.Helper()
	p, diags := parser.Parse("golden.parley", []byte(src))
	if diags.HasErrors() {
		t.Fatalf("parse %q:\n%v", src, diags)
	}
	return string(lang.Format(p))
}

// Every statement form, written loosely (mixed case, singular and plural
// synonyms, hyphens, optional periods) and in canonical form. Each expected
// output was checked by hand against the manual's grammar.
var goldenStatements = []struct{ in, want string }{
	// Communication.
	{`task 0 sends a 0 byte message to task 1`, `TASK 0 SENDS A 0 BYTE MESSAGE TO TASK 1.`},
	{`Task 0 Send A 1-kilobyte Message To Unsuspecting Task 1`, `TASK 0 SENDS A 1 KILOBYTE MESSAGE TO UNSUSPECTING TASK 1.`},
	{`all tasks t asynchronously send 3 unique 4 kilobyte page-aligned messages with data touching using tag 7 from buffer 2 to task t+1`,
		`ALL TASKS t ASYNCHRONOUSLY SEND 3 UNIQUE 4 KILOBYTE PAGE ALIGNED MESSAGES WITH DATA TOUCHING USING TAG 7 FROM BUFFER 2 TO TASK t + 1.`},
	{`task 0 synchronously sends an integer-sized message using tag "stuff" from the default buffer to all other tasks`,
		`TASK 0 SYNCHRONOUSLY SENDS AN INTEGER SIZED MESSAGE USING TAG "stuff" FROM THE DEFAULT BUFFER TO ALL OTHER TASKS.`},
	{`task 0 sends a 64 byte message from 4 doublewords into buffer 1 to task 1`,
		`TASK 0 SENDS A 64 BYTE MESSAGE FROM 4 DOUBLEWORDS INTO BUFFER 1 TO TASK 1.`},
	{`task 0 sends a 64 byte 16 byte misaligned message without verification to task 1`,
		`TASK 0 SENDS A 64 BYTE 16 BYTE MISALIGNED MESSAGE WITHOUT VERIFICATION TO TASK 1.`},
	{`task 0 sends a quadword aligned message to task 1`, `TASK 0 SENDS A QUADWORD ALIGNED MESSAGE TO TASK 1.`},
	{`task 0 sends 2 unaligned messages to task 1`, `TASK 0 SENDS 2 UNALIGNED MESSAGES TO TASK 1.`},
	{`task 0 sends a 1 megabyte message to task 1 who receives it asynchronously`,
		`TASK 0 SENDS A 1 MEGABYTE MESSAGE TO TASK 1 WHO RECEIVES IT ASYNCHRONOUSLY.`},
	{`task 0 sends 5 256 bit messages to task 1 who receives them as unique 8 byte aligned messages with verification into buffer 3`,
		`TASK 0 SENDS 5 256 BIT MESSAGES TO TASK 1 WHO RECEIVES THEM AS UNIQUE 8 BYTE ALIGNED MESSAGES WITH VERIFICATION INTO BUFFER 3.`},
	{`tasks t such that t > 0 receive a 4 word message into the default buffer from task 0`,
		`TASKS t SUCH THAT t > 0 RECEIVE A 4 WORD MESSAGE INTO THE DEFAULT BUFFER FROM TASK 0.`},
	{`task 1 asynchronously receives 3 nonunique 4 kilobyte messages from task 0`,
		`TASK 1 ASYNCHRONOUSLY RECEIVES 3 NONUNIQUE 4 KILOBYTE MESSAGES FROM TASK 0.`},
	{`task 0 multicasts a 16 byte message to tasks recip such that recip<4`,
		`TASK 0 MULTICASTS A 16 BYTE MESSAGE TO TASKS recip SUCH THAT recip < 4.`},
	{`tasks s such that s<3 asynchronously multicast a 1 kilobyte message to tasks s such that s>6`,
		`TASKS s SUCH THAT s < 3 ASYNCHRONOUSLY MULTICAST A 1 KILOBYTE MESSAGE TO TASKS s SUCH THAT s > 6.`},
	{`all tasks reduce 5 doublewords to task 0`, `ALL TASKS REDUCE 5 DOUBLEWORDS TO TASK 0.`},
	{`tasks rt such that 3 divides rt reduce an integer`, `TASKS rt SUCH THAT 3 DIVIDES rt REDUCE AN INTEGER.`},
	{`all tasks reduce 4 integers to 4 integers`, `ALL TASKS REDUCE 4 INTEGERS TO 4 INTEGERS.`},
	{`TASKS rsrc SUCH THAT rsrc IS EVEN REDUCE 32 64-BYTE-ALIGNED INTEGERS WITH DATA TOUCHING FROM BUFFER 2 TO TASKS rtarg SUCH THAT rtarg<num_tasks/4 \/ rtarg>(3*num_tasks)/4 WHO RECEIVE THE RESULT AS 32 UNIQUE PAGE-ALIGNED INTEGERS WITHOUT DATA TOUCHING.`,
		`TASKS rsrc SUCH THAT rsrc IS EVEN REDUCE 32 64 BYTE ALIGNED INTEGERS WITH DATA TOUCHING FROM BUFFER 2 TO TASKS rtarg SUCH THAT rtarg < num_tasks / 4 \/ rtarg > 3 * num_tasks / 4 WHO RECEIVE THE RESULT AS 32 UNIQUE PAGE ALIGNED INTEGERS WITHOUT DATA TOUCHING.`},
	{`all tasks reduce a doubleword to task 0 who receives the result with data touching`,
		`ALL TASKS REDUCE A DOUBLEWORD TO TASK 0 WHO RECEIVES THE RESULT WITH DATA TOUCHING.`},
	{`all tasks reduce 8 doublewords using operation maximum`, `ALL TASKS REDUCE 8 DOUBLEWORDS USING OPERATION MAXIMUM.`},
	{`all tasks reduce 8 doublewords to task 0 using operation product`, `ALL TASKS REDUCE 8 DOUBLEWORDS TO TASK 0 USING OPERATION PRODUCT.`},
	{`all tasks reduce 64 doublewords and scatter the result`, `ALL TASKS REDUCE 64 DOUBLEWORDS AND SCATTER THE RESULT.`},
	{`all tasks synchronize`, `ALL TASKS SYNCHRONIZE.`},
	{`task 0 synchronizes`, `TASK 0 SYNCHRONIZES.`},
	{`all tasks await completion`, `ALL TASKS AWAIT COMPLETION.`},
	{`task 3 awaits completions`, `TASK 3 AWAITS COMPLETION.`},
	// Parley's collectives.
	{`task 0 scatters a 4 kilobyte message to all tasks`, `TASK 0 SCATTERS A 4 KILOBYTE MESSAGE TO ALL TASKS.`},
	{`task 0 gathers a (t+1)*8 byte message from all tasks t`, `TASK 0 GATHERS A (t + 1) * 8 BYTE MESSAGE FROM ALL TASKS t.`},
	{`all tasks gather a 64 byte message from all tasks`, `ALL TASKS GATHER A 64 BYTE MESSAGE FROM ALL TASKS.`},
	{`all tasks exchange a 1 kilobyte message with all other tasks`, `ALL TASKS EXCHANGE A 1 KILOBYTE MESSAGE WITH ALL OTHER TASKS.`},
	{`all tasks s exchange an s+d byte message with tasks d such that d<>s`,
		`ALL TASKS s EXCHANGE AN s + d BYTE MESSAGE WITH TASKS d SUCH THAT d <> s.`},
	// Computation and memory.
	{`all tasks compute for 10 microseconds`, `ALL TASKS COMPUTE FOR 10 MICROSECONDS.`},
	{`task 0 sleeps for 1 second`, `TASK 0 SLEEPS FOR 1 SECOND.`},
	{`task 0 sleeps for 2 minutes`, `TASK 0 SLEEPS FOR 2 MINUTES.`},
	{`all tasks compute 1000 flops`, `ALL TASKS COMPUTE 1000 FLOPS.`},
	{`all tasks compute 1 flop and 1 gigabyte of memory traffic`, `ALL TASKS COMPUTE 1 FLOP AND 1 GIGABYTE OF MEMORY TRAFFIC.`},
	{`all tasks compute 8*n**3 flops and 16*n**3 bytes of memory traffic`,
		`ALL TASKS COMPUTE 8 * n ** 3 FLOPS AND 16 * n ** 3 BYTES OF MEMORY TRAFFIC.`},
	{`task 0 touches a 6 megabyte memory region 5 times`, `TASK 0 TOUCHES A 6 MEGABYTE MEMORY REGION 5 TIMES.`},
	{`task 0 touches 100 words of a 799 byte memory region`, `TASK 0 TOUCHES 100 WORDS OF A 799 BYTE MEMORY REGION.`},
	{`task 0 touches an 8 megabyte memory region 2 times with stride 8 words`,
		`TASK 0 TOUCHES AN 8 MEGABYTE MEMORY REGION 2 TIMES WITH STRIDE 8 WORDS.`},
	{`all tasks touch a page sized memory region with random stride`, `ALL TASKS TOUCH A PAGE SIZED MEMORY REGION WITH RANDOM STRIDE.`},
	{`all tasks touch all message buffers`, `ALL TASKS TOUCH ALL MESSAGE BUFFERS.`},
	{`task 0 touches the current message buffer`, `TASK 0 TOUCHES THE CURRENT MESSAGE BUFFER.`},
	{`task 0 touches message buffer 3`, `TASK 0 TOUCHES MESSAGE BUFFER 3.`},
	// Output and counters.
	{`task 0 outputs "Hello, world!"`, `TASK 0 OUTPUTS "Hello, world!".`},
	{`all tasks me output "Task " and me and " on " and the value of "Host name"`,
		`ALL TASKS me OUTPUT "Task " AND me AND " on " AND THE VALUE OF "Host name".`},
	{`task 0 logs 314/100 as "Pi" and 22/7 as "Pi"`, `TASK 0 LOGS 314 / 100 AS "Pi" AND 22 / 7 AS "Pi".`},
	{`task 0 logs the msgsize as "Bytes" and the median of elapsed_usecs/2 as "Latency"`,
		`TASK 0 LOGS THE msgsize AS "Bytes" AND THE MEDIAN OF elapsed_usecs / 2 AS "Latency".`},
	{`all tasks log the minimum and the maximum and the mean and the median of bytes_received/elapsed_usecs as "BW"`,
		`ALL TASKS LOG THE MINIMUM AND THE MAXIMUM AND THE MEAN AND THE MEDIAN OF bytes_received / elapsed_usecs AS "BW".`},
	{`task 0 logs the 95th percentile of the elapsed_usecs as "p95" and a histogram of msgs_sent as "h"`,
		`TASK 0 LOGS THE 95TH PERCENTILE OF elapsed_usecs AS "p95" AND A HISTOGRAM OF msgs_sent AS "h".`},
	{`task 0 logs the arithmetic mean and the harmonic mean and the geometric mean and the standard deviation and the variance and the median absolute deviation and the sum and the final of elapsed_usecs as the value of "key"`,
		"TASK 0 LOGS THE ARITHMETIC MEAN AND THE HARMONIC MEAN AND THE GEOMETRIC MEAN AND THE STANDARD DEVIATION AND THE VARIANCE AND THE MEDIAN ABSOLUTE DEVIATION AND THE SUM AND THE FINAL OF elapsed_usecs AS THE VALUE OF \"key\"."},
	{`all tasks log each bit_errors as "Bit errors"`, `ALL TASKS LOG bit_errors AS "Bit errors".`},
	{`task 0 computes aggregates`, `TASK 0 COMPUTES AGGREGATES.`},
	{`all tasks reset their counters`, `ALL TASKS RESET THEIR COUNTERS.`},
	{`task 0 stores its counters`, `TASK 0 STORES ITS COUNTERS.`},
	{`tasks t such that 3 divides t restore their counters`, `TASKS t SUCH THAT 3 DIVIDES t RESTORE THEIR COUNTERS.`},
	{`assert that "needs two" with num_tasks >= 2`, `ASSERT THAT "needs two" WITH num_tasks >= 2.`},
	{`all tasks t backend execute "f(" and t and ");"`, `ALL TASKS t BACKEND EXECUTE "f(" AND t AND ");".`},
	{`task n such that n<(num_tasks+1)/2 is assigned to processor n*2`,
		`TASKS n SUCH THAT n < (num_tasks + 1) / 2 ARE ASSIGNED TO PROCESSOR n * 2.`},
	{`all tasks are assigned to a random processor`, `ALL TASKS ARE ASSIGNED TO A RANDOM PROCESSOR.`},
	// Task descriptions.
	{`tasks {3, 5, 8} output 1`, `TASKS {3, 5, 8} OUTPUT 1.`},
	{`tasks {0}, {1, 2, 4, ..., 64} output 1`, `TASKS {0}, {1, 2, 4, ..., 64} OUTPUT 1.`},
	{`task (n+1) mod num_tasks receives a 1 kilobyte message from task n such that n < 4`,
		`TASK (n + 1) MOD num_tasks RECEIVES A 1 KILOBYTE MESSAGE FROM TASKS n SUCH THAT n < 4.`},
	// Complex statements.
	{`for 100 repetitions all tasks output "x"`, "FOR 100 REPETITIONS\n  ALL TASKS OUTPUT \"x\"."},
	{`for 1 repetition plus 3 warmup repetitions and a synchronization task 0 multicasts a 1 megabyte message to all other tasks`,
		"FOR 1 REPETITION PLUS 3 WARMUP REPETITIONS AND A SYNCHRONIZATION\n  TASK 0 MULTICASTS A 1 MEGABYTE MESSAGE TO ALL OTHER TASKS."},
	{`for 3 seconds plus 1 warmup millisecond and a synchronization task 0 sends a 1 megabyte message to task 1`,
		"FOR 3 SECONDS PLUS 1 WARMUP MILLISECOND AND A SYNCHRONIZATION\n  TASK 0 SENDS A 1 MEGABYTE MESSAGE TO TASK 1."},
	{`for each i in {1, ..., 5}, {8, 7} task 0 outputs i`, "FOR EACH i IN {1, ..., 5}, {8, 7}\n  TASK 0 OUTPUTS i."},
	{`let reps be 3 and src be num_tasks-1 while for reps repetitions task src outputs reps`,
		"LET reps BE 3 AND src BE num_tasks - 1 WHILE\n  FOR reps REPETITIONS\n    TASK src OUTPUTS reps."},
	{`let hot be a random task other than 3 while task hot sleeps for 1 day`,
		"LET hot BE A RANDOM TASK OTHER THAN 3 WHILE\n  TASK hot SLEEPS FOR 1 DAY."},
	{`let x be a random task in [1, num_tasks-2] but not 4 and y be a random task less than 10 but not 0 and z be a random task greater than x while task 0 outputs x and y and z`,
		"LET x BE A RANDOM TASK IN [1, num_tasks - 2] BUT NOT 4 AND y BE A RANDOM TASK LESS THAN 10 BUT NOT 0 AND z BE A RANDOM TASK GREATER THAN x WHILE\n  TASK 0 OUTPUTS x AND y AND z."},
	{`let left be tasks t such that t < num_tasks/2 while task group left sends a 1 kilobyte message to task num_tasks - left - 1`,
		"LET left BE TASKS t SUCH THAT t < num_tasks / 2 WHILE\n  TASK GROUP left SENDS A 1 KILOBYTE MESSAGE TO TASK num_tasks - left - 1."},
	{`if this>other_one then task 0 sends a 3 kilobyte message to task this otherwise task 1 sends a 4 kilobyte message to task other_one`,
		"IF this > other_one THEN\n  TASK 0 SENDS A 3 KILOBYTE MESSAGE TO TASK this\nOTHERWISE\n  TASK 1 SENDS A 4 KILOBYTE MESSAGE TO TASK other_one."},
	{`if x = 1 then task 0 outputs 1 otherwise if x = 2 then task 0 outputs 2 otherwise task 0 outputs 3`,
		"IF x = 1 THEN\n  TASK 0 OUTPUTS 1\nOTHERWISE IF x = 2 THEN\n  TASK 0 OUTPUTS 2\nOTHERWISE\n  TASK 0 OUTPUTS 3."},
	{`for 3 repetitions {task 0 outputs "a" then task 0 outputs "b"}`,
		"FOR 3 REPETITIONS {\n  TASK 0 OUTPUTS \"a\" THEN\n  TASK 0 OUTPUTS \"b\"\n}"},
	{`{}`, "{}"},
	{`if 1 = 1 then {} otherwise {task 0 outputs 1}`, "IF 1 = 1 THEN {} OTHERWISE {\n  TASK 0 OUTPUTS 1\n}"},
	{`task 0 outputs 1 then {task 0 outputs 2} then task 0 outputs 3`,
		"TASK 0 OUTPUTS 1 THEN\n{\n  TASK 0 OUTPUTS 2\n} THEN\nTASK 0 OUTPUTS 3."},
	// Expressions and relations.
	{`task 0 outputs 666 if 2+2=5 otherwise 777`, `TASK 0 OUTPUTS 666 IF 2 + 2 = 5 OTHERWISE 777.`},
	{`task 0 outputs (2 if p=0 otherwise 1) if p=1 otherwise 0`, `TASK 0 OUTPUTS (2 IF p = 0 OTHERWISE 1) IF p = 1 OTHERWISE 0.`},
	{`task 0 outputs -2**2 and (-2)**2 and 2**-1 and 4**3**2 and (4**3)**2`,
		`TASK 0 OUTPUTS -2 ** 2 AND (-2) ** 2 AND 2 ** -1 AND 4 ** 3 ** 2 AND (4 ** 3) ** 2.`},
	{`task 0 outputs 4-(3-2) and (4-3)-2 and not 3 xor 5 | 6 & 7 << 1 >> 2`,
		`TASK 0 OUTPUTS 4 - (3 - 2) AND 4 - 3 - 2 AND NOT 3 XOR 5 | 6 & 7 << 1 >> 2.`},
	{`task 0 outputs 64k and 1E6 and 95th and 2nd and 1t and 007`, `TASK 0 OUTPUTS 64K AND 1E6 AND 95TH AND 2ND AND 1T AND 7.`},
	{`task 0 outputs real(9/2) and abs(-1) and min(3,1,2) and mesh_neighbor((4*, 3), 5, (-1, +1)) and mesh_coordinate((4,3,2), 6, 1) and mesh_distance((4), 1, 2)`,
		`TASK 0 OUTPUTS REAL(9 / 2) AND ABS(-1) AND MIN(3, 1, 2) AND MESH_NEIGHBOR((4*, 3), 5, (-1, +1)) AND MESH_COORDINATE((4, 3, 2), 6, 1) AND MESH_DISTANCE((4), 1, 2).`},
	{`task 0 outputs file_data("x.dat", 3, -2) and static_file_data("y", 1, 1, ",", "\n")`,
		`TASK 0 OUTPUTS FILE_DATA("x.dat", 3, -2) AND STATIC_FILE_DATA("y", 1, 1, ",", "\n").`},
	{`if my task is even then task 0 outputs "x"`, "IF MY TASK IS EVEN THEN\n  TASK 0 OUTPUTS \"x\"."},
	{`if (v = 1 \/ w = 2) /\ x is not in [1, 3] /\ y is in {1, 2, 4, ..., 64} /\ z is not in {k FOR EACH k IN {1, ..., 4} WHERE k IS ODD} then {}`,
		`IF (v = 1 \/ w = 2) /\ x IS NOT IN [1, 3] /\ y IS IN {1, 2, 4, ..., 64} /\ z IS NOT IN {k FOR EACH k IN {1, ..., 4} WHERE k IS ODD} THEN {}`},
	{`if (v + w) * x > 2 /\ (v > 1 \/ (w < 2)) then {}`, `IF (v + w) * x > 2 /\ (v > 1 \/ w < 2) THEN {}`},
	{`task 0 outputs "quote \" backslash \\ tab\t"`, `TASK 0 OUTPUTS "quote \" backslash \\ tab\t".`},
}

func TestGoldenStatements(t *testing.T) {
	for _, tt := range goldenStatements {
		got := strings.TrimSuffix(format(t, tt.in), "\n")
		if got != tt.want {
			t.Errorf("format(%q):\n got: %s\nwant: %s", tt.in, got, tt.want)
			continue
		}
		// The canonical form is a fixed point.
		if again := strings.TrimSuffix(format(t, got), "\n"); again != got {
			t.Errorf("format is not a fixed point for %q:\n%s", got, again)
		}
	}
}

func TestGoldenHeaders(t *testing.T) {
	in := `# leading comment
require language version "1.5".
reps is "Repetitions" and comes from "--reps" or "-r" with default 25*4.  # trailing
maxbytes is "Largest size" and comes from "--maxbytes" or "-m" with default 1M and ranges over {1K, 2K, 4K, ..., 1M}.
the backend declares "
int tally = 0;
"
# before the body
task 0 outputs reps. # after a statement
for 2 repetitions {    # on the brace line
  # inside
  task 0 outputs maxbytes
}
# at the end
`
	want := `# leading comment
REQUIRE LANGUAGE VERSION "1.5".

reps IS "Repetitions" AND COMES FROM "--reps" OR "-r" WITH DEFAULT 25 * 4.  # trailing
maxbytes IS "Largest size" AND COMES FROM "--maxbytes" OR "-m" WITH DEFAULT 1M AND RANGES OVER {1K, 2K, 4K, ..., 1M}.

THE BACKEND DECLARES "
int tally = 0;
".

# before the body
TASK 0 OUTPUTS reps.  # after a statement

FOR 2 REPETITIONS {  # on the brace line
  # inside
  TASK 0 OUTPUTS maxbytes
}
# at the end
`
	if got := format(t, in); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestFormatStrict: the strict spelling writes the byte units in the
// singular and parenthesizes what follows a minus sign when it begins with a
// keyword, and nothing else changes.
func TestFormatStrict(t *testing.T) {
	for _, tt := range []struct{ in, canonical, strict string }{
		{"task 0 outputs 3 - abs(x) - not y - my task - z",
			"TASK 0 OUTPUTS 3 - ABS(x) - NOT y - MY TASK - z.",
			"TASK 0 OUTPUTS 3 - (ABS(x)) - (NOT y) - (MY TASK) - z."},
		{"task 0 outputs -abs(x) * 2 and x - real(y) * 2 and -x - -(mesh_distance((2), 0, 1)) and x - abs_val",
			"TASK 0 OUTPUTS -ABS(x) * 2 AND x - REAL(y) * 2 AND -x - -MESH_DISTANCE((2), 0, 1) AND x - abs_val.",
			"TASK 0 OUTPUTS -(ABS(x)) * 2 AND x - (REAL(y) * 2) AND -x - -(MESH_DISTANCE((2), 0, 1)) AND x - abs_val."},
		{"task 0 sends a 8 byte message from 2 kilobytes into buffer 1 to task 1",
			"TASK 0 SENDS AN 8 BYTE MESSAGE FROM 2 KILOBYTES INTO BUFFER 1 TO TASK 1.",
			"TASK 0 SENDS AN 8 BYTE MESSAGE FROM 2 KILOBYTE INTO BUFFER 1 TO TASK 1."},
		{"task 0 receives a 8 byte message into 3 megabytes into buffer 1 from task 1",
			"TASK 0 RECEIVES AN 8 BYTE MESSAGE INTO 3 MEGABYTES INTO BUFFER 1 FROM TASK 1.",
			"TASK 0 RECEIVES AN 8 BYTE MESSAGE INTO 3 MEGABYTE INTO BUFFER 1 FROM TASK 1."},
	} {
		p, diags := parser.Parse("strict", []byte(tt.in))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if got := strings.TrimSuffix(string(lang.Format(p)), "\n"); got != tt.canonical {
			t.Errorf("Format(%q):\n got: %s\nwant: %s", tt.in, got, tt.canonical)
		}
		if got := strings.TrimSuffix(string(lang.FormatStrict(p)), "\n"); got != tt.strict {
			t.Errorf("FormatStrict(%q):\n got: %s\nwant: %s", tt.in, got, tt.strict)
		}
	}
}

// TestDanglingOtherwise: an OTHERWISE belongs to the nearest IF, so a tree
// whose outer IF has the OTHERWISE is printed with braces.
func TestDanglingOtherwise(t *testing.T) {
	inner := &lang.If{Cond: rel("y = 1"), Then: &lang.Output{Tasks: &lang.TaskExpr{X: &lang.IntLit{}}, Items: []*lang.Item{{X: &lang.IntLit{Value: 1}}}}}
	outer := &lang.If{Cond: rel("x = 1"), Then: inner, Else: &lang.Output{Tasks: &lang.TaskExpr{X: &lang.IntLit{}}, Items: []*lang.Item{{X: &lang.IntLit{Value: 2}}}}}
	got := lang.FormatStmt(outer)
	want := "IF x = 1 THEN {\n  IF y = 1 THEN\n    TASK 0 OUTPUTS 1\n} OTHERWISE\n  TASK 0 OUTPUTS 2"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func rel(src string) lang.Rel {
	p, _ := parser.Parse("", []byte("IF "+src+" THEN {}"))
	return p.Body[0].Stmts[0].(*lang.If).Cond
}
