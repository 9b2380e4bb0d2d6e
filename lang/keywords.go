package lang

import (
	"slices"
	"strings"
)

// coreKeywords lists every reserved word of coNCePTuaL 1.5, lower case.
// Keywords may not be used as identifiers.
var coreKeywords = strings.Fields(`
a abs absolute aggregates aligned all an and are arithmetic as assert assigned
asynchronously await awaits backend be bit bits buffer buffers but byte bytes
cbrt ceiling comes completion completions compute computes counters current
data day days declares default deviation divides doubleword doublewords each
even execute executes factor10 file_data final floor for from geometric
gigabyte greater group halfword halfwords harmonic histogram hour hours if in
integer integers into is it its kilobyte knomial_child knomial_children
knomial_parent language less let log log10 logs max maximum mean median
megabyte memory mesh_coordinate mesh_distance mesh_neighbor message messages
microsecond microseconds millisecond milliseconds min minimum minute minutes
misaligned mod multicast multicasts my nonunique not odd of or other otherwise
output outputs page pages percentile plus processor processor_of processors
quadword quadwords random random_gaussian random_pareto random_poisson
random_uniform real receive receives reduce reduces region repetition
repetitions require reset resets restore restores result results root round
second seconds send sends sized sleep sleeps sqrt standard static_file_data
store stores stride such sum synchronization synchronize synchronizes
synchronously tag task task_of tasks than that the their them then time times
to touch touches touching tree_child tree_parent unaligned unique unsuspecting
using value variance verification version warmup where while who with without
word words xor`)

// parleyKeywords are reserved words Parley adds to the core: the plural
// forms of the byte units, which LANGUAGE.md lists as synonyms.
var parleyKeywords = []string{"kilobytes", "megabytes", "gigabytes"}

// synonyms maps a singular (or otherwise alternative) spelling to the
// canonical keyword the grammar uses, following coNCePTuaL's lexer.
var synonyms = map[string]string{
	"a": "AN", "await": "AWAITS", "bit": "BITS", "buffer": "BUFFERS",
	"byte": "BYTES", "completion": "COMPLETIONS", "compute": "COMPUTES",
	"day": "DAYS", "doubleword": "DOUBLEWORDS", "execute": "EXECUTES",
	"halfword": "HALFWORDS", "hour": "HOURS", "integer": "INTEGERS",
	"is": "ARE", "it": "THEM", "its": "THEIR", "log": "LOGS",
	"message": "MESSAGES", "microsecond": "MICROSECONDS",
	"millisecond": "MILLISECONDS", "minute": "MINUTES",
	"multicast": "MULTICASTS", "output": "OUTPUTS", "page": "PAGES",
	"processor": "PROCESSORS", "quadword": "QUADWORDS", "receive": "RECEIVES",
	"repetition": "REPETITIONS", "reduce": "REDUCES", "reset": "RESETS",
	"restore": "RESTORES", "result": "RESULTS", "second": "SECONDS",
	"send": "SENDS", "sleep": "SLEEPS", "store": "STORES",
	"synchronize": "SYNCHRONIZES", "task": "TASKS", "time": "TIMES",
	"touch": "TOUCHES", "word": "WORDS",
	"kilobytes": "KILOBYTE", "megabytes": "MEGABYTE", "gigabytes": "GIGABYTE",
}

var canonical = func() map[string]string {
	m := make(map[string]string, len(coreKeywords)+len(parleyKeywords))
	for _, kw := range append(append([]string{}, coreKeywords...), parleyKeywords...) {
		if c, ok := synonyms[kw]; ok {
			m[kw] = c
		} else {
			m[kw] = strings.ToUpper(kw)
		}
	}
	return m
}()

// CanonicalKeyword returns the canonical upper-case form of word if word
// (in any case) is a reserved keyword, e.g. "Task" -> "TASKS", "is" -> "ARE".
func CanonicalKeyword(word string) (string, bool) {
	c, ok := canonical[strings.ToLower(word)]
	return c, ok
}

// CanonicalKeywordLower is CanonicalKeyword for a word already in lower
// case, given as bytes; the lexer calls it for every word without
// allocating.
func CanonicalKeywordLower(lower []byte) (string, bool) {
	c, ok := canonical[string(lower)]
	return c, ok
}

// IsKeyword reports whether name, in any case, is reserved and so cannot
// name a variable. Frontends that invent identifiers must avoid these.
func IsKeyword(name string) bool {
	_, ok := canonical[strings.ToLower(name)]
	return ok
}

// Predeclared variables: maintained by the run time, visible everywhere,
// never redeclarable.
const (
	VarNumTasks      = "num_tasks"
	VarElapsedUsecs  = "elapsed_usecs"
	VarBytesSent     = "bytes_sent"
	VarBytesReceived = "bytes_received"
	VarTotalBytes    = "total_bytes"
	VarMsgsSent      = "msgs_sent"
	VarMsgsReceived  = "msgs_received"
	VarTotalMsgs     = "total_msgs"
	VarBitErrors     = "bit_errors"
)

// Predeclared lists the predeclared variables with their descriptions.
var Predeclared = map[string]string{
	VarNumTasks:      "Number of tasks running the program",
	VarElapsedUsecs:  "Elapsed time in microseconds",
	VarBytesSent:     "Total number of bytes sent",
	VarBytesReceived: "Total number of bytes received",
	VarTotalBytes:    "Sum of bytes sent and bytes received",
	VarMsgsSent:      "Total number of messages sent",
	VarMsgsReceived:  "Total number of messages received",
	VarTotalMsgs:     "Sum of messages sent and messages received",
	VarBitErrors:     "Total number of bit errors observed",
}

// IsPredeclared reports whether name is a predeclared variable.
func IsPredeclared(name string) bool {
	_, ok := Predeclared[name]
	return ok
}

// Keywords returns every reserved word, lower case, sorted: for completion
// at a prompt.
func Keywords() []string {
	words := append(slices.Clone(coreKeywords), parleyKeywords...)
	slices.Sort(words)
	return words
}
