package ncptl

import (
	"fmt"
	"path/filepath"
	"strings"
)

// lowering is one way of writing a Parley extension in coNCePTuaL.
type lowering int

// The lowerings, in the order the header lists them.
const (
	lowWork lowering = iota
	lowSpeed
	lowScatter
	lowScatterv
	lowGather
	lowGatherv
	lowAllgather
	lowExchange
	lowReduceScatter
	lowOp
	lowResult
	lowCollTag
	lowMcastAsync
	lowMcastAttrs
	lowTaskVars
	lowReceivers
	lowMesh
	lowRoot
	lowSweep
	lowCompVar
	numLowerings
)

// lowered says what each lowering does and why; %[1]s is the platform's
// name, %[2]s its rates (see exporter.rates).
var lowered = [numLowerings]string{
	lowWork: "COMPUTES n FLOPS [AND q OF MEMORY TRAFFIC] becomes COMPUTES FOR the time " +
		"Parley's machine model gives it on platform %[1]s: the slower of the flops at the task's " +
		"flop rate and the traffic at its memory bandwidth, a task's rates being its node's shared " +
		"by the tasks on the node (%[2]s), rounded to the nearest microsecond in integer arithmetic.",
	lowSpeed: "COMPUTES FOR is divided by the speed of the task's node, as Parley runs it on " +
		"platform %[1]s (%[2]s), rounded to the nearest microsecond.",
	lowScatter: "TASK r SCATTERS (MPI_Scatter) becomes TASK r MULTICASTS the block to the other " +
		"targets: coNCePTuaL's nearest collective delivers a block of the same size to each of them, " +
		"though the root sends along the broadcast's tree rather than one block per target. Like " +
		"Parley's collectives, it leaves the message counters alone.",
	lowScatterv: "TASK r SCATTERS a size that depends on the target (MPI_Scatterv) becomes a loop " +
		"over the targets in which TASK r MULTICASTS each its own block: one message per target, as " +
		"MPI's linear Scatterv sends them, one target after another.",
	lowGather: "TASK r GATHERS (MPI_Gather) becomes a MULTICAST from every other source to TASK r; " +
		"coNCePTuaL's c_mpi backend runs a many-to-one multicast as MPI_Alltoallv in which only r receives.",
	lowGatherv: "TASK r GATHERS a size that depends on the source (MPI_Gatherv) becomes a loop over " +
		"the sources in which each MULTICASTS its own block TO TASK r: one message per source, as " +
		"MPI's linear Gatherv receives them, one source after another.",
	lowAllgather: "ALL TASKS GATHER ... FROM ALL TASKS (MPI_Allgather) becomes ALL TASKS MULTICAST ... " +
		"TO ALL OTHER TASKS, which coNCePTuaL's c_mpi backend runs as MPI_Alltoall: every task receives " +
		"every other task's block. A size that depends on the source (MPI_Allgatherv) becomes one " +
		"MULTICAST per source.",
	lowExchange: "tasks EXCHANGE ... WITH peers (MPI_Alltoall) becomes the tasks MULTICAST ... TO " +
		"their peers among them, which coNCePTuaL's c_mpi backend runs as MPI_Alltoall(v). A size " +
		"that depends on the sender becomes one MULTICAST per sender; one that depends on the receiver " +
		"(MPI_Alltoallv), one per pair of tasks.",
	lowReduceScatter: "REDUCE n items AND SCATTER THE RESULT (MPI_Reduce_scatter) becomes, for each " +
		"task i, a REDUCE of its block TO TASK i: n / num_tasks items, one more for the first " +
		"n MOD num_tasks tasks. coNCePTuaL has no reduce-scatter; each task still receives only its block.",
	lowOp: "USING OPERATION is dropped: coNCePTuaL reduces with one operator for every REDUCE " +
		"(MPI_SUM under c_mpi; its backend option --reduce=OP chooses another), and the messages " +
		"are the same whatever the operator.",
	lowResult: "The result's own specification (TO spec, WHO RECEIVES THE RESULT ...) is dropped: " +
		"coNCePTuaL's c_mpi backend implements none, so the result is received as it was sent.",
	lowCollTag: "USING TAG on a MULTICAST, a REDUCE or a lowered collective is dropped: MPI " +
		"collectives have no tags, and coNCePTuaL's c_mpi backend stops at a nonzero one.",
	lowMcastAsync: "ASYNCHRONOUSLY MULTICASTS becomes a blocking MULTICAST, the only one " +
		"coNCePTuaL's c_mpi backend implements; a later AWAIT COMPLETION finds it done.",
	lowMcastAttrs: "The alignment, data touching or verification of a multicast (or of a lowered " +
		"collective) is dropped: coNCePTuaL's c_mpi backend implements none of them for multicasts. " +
		"They change what a task does with its buffers, not the messages.",
	lowTaskVars: "A message whose size, count, tag or buffer uses a task variable of its own " +
		"statement becomes a loop over that variable's tasks, FOR EACH v IN {0, ..., num_tasks - 1} " +
		"IF <v is one of them> THEN TASK v ...: coNCePTuaL lets a message specification see only the " +
		"variables bound outside its statement. The messages are the same, in the same order for each " +
		"pair of tasks; the tasks of the loop take turns.",
	lowReceivers: "ALL TASKS v RECEIVE ... becomes TASKS v SUCH THAT v >= 0 RECEIVE ..., the same " +
		"tasks: coNCePTuaL's checker refuses ALL TASKS as receivers.",
	lowMesh: "MESH_NEIGHBOR with fewer offsets than the mesh has dimensions gets the missing " +
		"offsets as 0, as Parley reads it: coNCePTuaL wants one per dimension.",
	lowRoot: "ROOT(-n, x), a negative degree, becomes 1 / ROOT(n, x), its meaning in Parley and in " +
		"coNCePTuaL's manual; coNCePTuaL's library computes another integer. A degree that may be " +
		"negative becomes a choice between the two.",
	lowSweep: "AND RANGES OVER is dropped from parameters: it lists the values of a parameter sweep, " +
		"which the program itself never reads.",
	lowCompVar: "A comprehension's variable that has the name of a variable its own ranges read " +
		"(LET x BE 4 WHILE ... {x * x FOR EACH x IN {1, ..., x}}) is renamed: coNCePTuaL 1.5.1b's " +
		"c_mpi backend writes C that reads the comprehension's variable, undeclared, where the " +
		"range reads the outer one. The values are the same.",
}

// header writes the comment that opens the export: where it comes from,
// how to compile it, and every lowering with the lines it was applied to.
func (x *exporter) header(b *strings.Builder, command string) {
	file := x.prog.File
	if file == "" {
		file = "the program"
	}
	name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	if name == "" || strings.ContainsAny(name, "<>") {
		name = "prog"
	}
	var intro strings.Builder
	fmt.Fprintf(&intro, "%s as strict coNCePTuaL 1.5, written by Parley's export", file)
	if command != "" {
		fmt.Fprintf(&intro, " (%s)", command)
	}
	intro.WriteString(". Compile it with coNCePTuaL's own compiler, e.g.")
	comment(b, "", intro.String())
	fmt.Fprintf(b, "#   ncptl --backend=c_mpi --output=%s %s.ncptl\n#\n", name, name)
	listed := false
	for l := range numLowerings {
		lines := x.notes[l]
		if len(lines) == 0 {
			continue
		}
		if !listed {
			comment(b, "", "Parley's extensions, lowered (lines of "+file+"):")
			listed = true
		}
		where := "line "
		if len(lines) > 1 {
			where = "lines "
		}
		for i, n := range lines {
			if i > 0 {
				where += ", "
			}
			where += fmt.Sprint(n)
		}
		text := lowered[l]
		if l == lowWork || l == lowSpeed {
			text = fmt.Sprintf(text, x.plat.Name, x.rates(l == lowWork))
		}
		comment(b, "- ", where+": "+text)
	}
	if !listed {
		comment(b, "", "The program uses none of Parley's extensions: it is written as it is.")
	}
	b.WriteString("\n")
}

// comment writes text as # comment lines of at most 78 columns, the first
// starting with lead and the others indented under it.
func comment(b *strings.Builder, lead, text string) {
	const width = 78
	line := "# " + lead
	indent := "# " + strings.Repeat(" ", len(lead))
	fresh := true
	for _, w := range strings.Fields(text) {
		if !fresh && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line, fresh = indent, true
		}
		if !fresh {
			line += " "
		}
		line += w
		fresh = false
	}
	b.WriteString(line + "\n")
}
