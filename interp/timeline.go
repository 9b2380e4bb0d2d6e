package interp

import (
	"bufio"
	"fmt"
	"io"
)

type spanKind uint8

const (
	spanCompute spanKind = iota
	spanSend
	spanRecv
)

var spanNames = [...]string{spanCompute: "compute", spanSend: "send overhead", spanRecv: "receive overhead"}

// span is a stretch of one task's time spent on one thing.
type span struct {
	task       int32
	kind       spanKind
	start, end Time
}

func (s *Sim) record(t *task, k spanKind, start, end Time) {
	if s.opts.Timeline && end > start {
		s.timeline = append(s.timeline, span{t.id, k, start, end})
	}
}

// WriteTimeline writes what each task did when as Chrome trace JSON, which
// Perfetto (ui.perfetto.dev) and chrome://tracing open: one track per
// task, times in microseconds. Gaps between spans are waits.
func (s *Sim) WriteTimeline(w io.Writer) error {
	b := bufio.NewWriter(w)
	b.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`)
	fmt.Fprintf(b, "\n"+`{"name":"process_name","ph":"M","pid":0,"args":{"name":%q}}`, "parley: "+s.prog.Lang.File)
	for i := range s.tasks {
		fmt.Fprintf(b, ",\n"+`{"name":"thread_name","ph":"M","pid":0,"tid":%d,"args":{"name":"task %d"}}`, i, i)
	}
	for _, sp := range s.timeline {
		fmt.Fprintf(b, ",\n"+`{"name":%q,"cat":%q,"ph":"X","pid":0,"tid":%d,"ts":%.6f,"dur":%.6f}`,
			spanNames[sp.kind], spanNames[sp.kind], sp.task, sp.start.Micros(), (sp.end - sp.start).Micros())
	}
	for i := range s.tasks {
		t := &s.tasks[i]
		if t.status == done {
			fmt.Fprintf(b, ",\n"+`{"name":"finish","ph":"i","s":"t","pid":0,"tid":%d,"ts":%.6f}`, i, t.finish.Micros())
		}
	}
	b.WriteString("\n]}\n")
	return b.Flush()
}
