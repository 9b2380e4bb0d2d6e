package interp

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Result is a predicted run.
type Result struct {
	Program   string
	Platform  string
	NumTasks  int64
	Seed      uint64
	Status    Status
	Predicted Time // when the last task finished; unless Finished, the time the run reached
	Events    int64
	Tasks     []TaskStats
	Problems  []Problem
	Network   *NetworkStats // the flow model's figures; nil under loggp
	// Collectives says which algorithm carried out each statement's
	// collective calls, in source order.
	Collectives []CollectiveUse
	// FastForward says, one line per loop, what Options.FastForward
	// skipped or why it did not apply; nil when it was off.
	FastForward []string
}

// Status says whether a run went to the end of the program.
type Status uint8

const (
	// Finished: every task ran to the end; Predicted is the prediction.
	// Problems such as unreceived messages may still be reported.
	Finished Status = iota
	// Deadlocked: tasks wait for each other forever; there is no
	// prediction, and the figures are as of the deadlock.
	Deadlocked
	// Failed: an assertion or a runtime error stopped the run; there is
	// no prediction.
	Failed
	// Stopped: Options.MaxEvents or Options.Context stopped the run; the
	// figures are partial, as of the time the run reached.
	Stopped
)

var statusNames = [...]string{Finished: "finished", Deadlocked: "deadlock", Failed: "failed", Stopped: "stopped"}

func (s Status) String() string { return statusNames[s] }

// Partial reports whether the run was stopped before it ended, so that
// its figures cover only part of it.
func (r *Result) Partial() bool { return r.Status == Stopped }

// TaskStats is one task's share of the run. Compute, Comm and Wait add up
// to Finish: time computing (COMPUTES, SLEEPS, TOUCHES, reductions), time
// the CPU spent on message overheads, and the rest, spent waiting.
type TaskStats struct {
	Finish, Compute, Comm, Wait Time
	// Program messages (SEND, RECEIVE), over the whole run.
	MsgsSent, MsgsReceived, BytesSent, BytesReceived int64
	// Messages exchanged inside collectives, not in the program's counters.
	CollMsgs, CollBytes int64
	// The program's counters as the task last saw them.
	Counters Counters
}

// Counters are the predeclared counters' final values.
type Counters struct {
	ElapsedUsecs             float64
	MsgsSent, MsgsReceived   int64
	BytesSent, BytesReceived int64
	BitErrors                int64
}

// OK reports whether the run had no problems.
func (r *Result) OK() bool { return len(r.Problems) == 0 }

// result makes the run's Result, its per-task figures in tasks (one
// element per task).
func (s *Sim) result(tasks []TaskStats) *Result {
	r := &Result{Program: s.prog.Lang.File, Platform: s.plat.Name, NumTasks: s.g.NumTasks, Seed: s.g.Seed, Events: s.nev, Problems: s.problemList(),
		Collectives: s.collectiveUses(), FastForward: s.ffNotes()}
	switch {
	case s.halted:
		r.Status = Stopped
	case s.fatal:
		r.Status = Failed
	case s.deadlocked:
		r.Status = Deadlocked
	}
	r.Tasks = tasks
	for i := range s.tasks {
		t := &s.tasks[i]
		end := t.finish
		if t.status != done {
			end = s.now
		}
		r.Predicted = max(r.Predicted, end)
		tot, cnt := t.totals(), t.counts()
		r.Tasks[i] = TaskStats{
			Finish: end, Compute: t.compute, Comm: t.comm, Wait: max(0, end-t.compute-t.comm),
			MsgsSent: tot.msgsSent, MsgsReceived: tot.msgsRecv,
			BytesSent: tot.bytesSent, BytesReceived: tot.bytesRecv,
			CollMsgs: t.total.collMsgs, CollBytes: t.total.collBytes,
			Counters: Counters{
				ElapsedUsecs: (end - t.start).Micros(),
				MsgsSent:     cnt.msgsSent, MsgsReceived: cnt.msgsRecv,
				BytesSent: cnt.bytesSent, BytesReceived: cnt.bytesRecv,
			},
		}
	}
	r.Network = s.networkStats(r.Predicted)
	return r
}

// Split sums a quantity over the tasks.
type Split struct {
	Min, Mean, Max Time
	MaxTask        int64
}

// Compute, Comm and Wait split the tasks' compute, communication and wait
// times: min, mean, max.
func (r *Result) Compute() Split { return split(r.Tasks, func(t *TaskStats) Time { return t.Compute }) }

// Comm is the split of the tasks' communication times (see Compute).
func (r *Result) Comm() Split { return split(r.Tasks, func(t *TaskStats) Time { return t.Comm }) }

// Wait is the split of the tasks' wait times (see Compute).
func (r *Result) Wait() Split { return split(r.Tasks, func(t *TaskStats) Time { return t.Wait }) }

// Messages totals the program's point-to-point messages and bytes sent.
func (r *Result) Messages() (msgs, bytes int64) {
	for i := range r.Tasks {
		msgs += r.Tasks[i].MsgsSent
		bytes += r.Tasks[i].BytesSent
	}
	return msgs, bytes
}

func split(ts []TaskStats, get func(*TaskStats) Time) Split {
	if len(ts) == 0 {
		return Split{}
	}
	sp := Split{Min: get(&ts[0]), Max: get(&ts[0])}
	sum := 0.0
	for i := range ts {
		v := get(&ts[i])
		sum += float64(v)
		if v < sp.Min {
			sp.Min = v
		}
		if v > sp.Max {
			sp.Max, sp.MaxTask = v, int64(i)
		}
	}
	sp.Mean = Time(sum / float64(len(ts)))
	return sp
}

// Headline is the summary's first line: the predicted run time, or why
// there is none.
func (r *Result) Headline() string {
	run := fmt.Sprintf("(%s on %d tasks, platform %s)", r.Program, r.NumTasks, r.Platform)
	switch r.Status {
	case Deadlocked:
		return fmt.Sprintf("Deadlock after %s: no prediction  %s", r.Predicted, run)
	case Failed:
		why := "a runtime error"
		switch {
		case slices.ContainsFunc(r.Problems, func(p Problem) bool { return p.Kind == "assertion" }):
			why = "an assertion failed"
		case slices.ContainsFunc(r.Problems, func(p Problem) bool { return p.Kind == "limit" }):
			why = "over the memory limit"
		}
		return fmt.Sprintf("Failed after %s: no prediction (%s)  %s", r.Predicted, why, run)
	case Stopped:
		return fmt.Sprintf("Stopped after %d events at simulated time %s: partial summary  %s", r.Events, r.Predicted, run)
	}
	return fmt.Sprintf("Predicted run time: %s  %s", r.Predicted, run)
}

// WriteSummary prints the prediction for people: the total (or why there
// is none), where the time goes across tasks, the busiest tasks, message
// totals and any problem.
func (r *Result) WriteSummary(w io.Writer, show int) {
	fmt.Fprintln(w, r.Headline())
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tmin\tmean\tmax\tshare of the run\t")
	for _, row := range []struct {
		name string
		get  func(*TaskStats) Time
	}{
		{"compute", func(t *TaskStats) Time { return t.Compute }},
		{"communication", func(t *TaskStats) Time { return t.Comm }},
		{"wait", func(t *TaskStats) Time { return t.Wait }},
		{"finish", func(t *TaskStats) Time { return t.Finish }},
	} {
		sp := split(r.Tasks, row.get)
		share := 0.0
		if r.Predicted > 0 {
			share = 100 * float64(sp.Mean) / float64(r.Predicted)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f%%\t\n", row.name, sp.Min, sp.Mean, sp.Max, share)
	}
	tw.Flush()
	var msgs, bytes, cmsgs, cbytes int64
	for i := range r.Tasks {
		msgs += r.Tasks[i].MsgsSent
		bytes += r.Tasks[i].BytesSent
		cmsgs += r.Tasks[i].CollMsgs
		cbytes += r.Tasks[i].CollBytes
	}
	fmt.Fprintf(w, "Messages: %d point-to-point (%d bytes); %d inside collectives (%d bytes, counted at both ends)\n", msgs, bytes, cmsgs, cbytes)
	if r.Network != nil {
		r.Network.writeSummary(w)
	}
	if show > 0 && len(r.Tasks) > 0 {
		order := make([]int, len(r.Tasks))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return int(r.Tasks[b].Finish - r.Tasks[a].Finish) })
		if show > len(order) {
			show = len(order)
		}
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "task\tfinish\tcompute\tcomm\twait\tmsgs sent\tbytes sent\tmsgs recvd\tbytes recvd\t")
		for _, i := range order[:show] {
			t := &r.Tasks[i]
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t\n", i, t.Finish, t.Compute, t.Comm, t.Wait, t.MsgsSent, t.BytesSent, t.MsgsReceived, t.BytesReceived)
		}
		tw.Flush()
	}
	for _, note := range r.FastForward {
		fmt.Fprintln(w, note)
	}
	if len(r.Problems) > 0 {
		var kinds []string
		for _, p := range r.Problems {
			if !slices.Contains(kinds, p.Kind) {
				kinds = append(kinds, p.Kind)
			}
		}
		fmt.Fprintf(w, "Problems: %s\n", strings.Join(kinds, ", "))
	}
}

// jsonTask is a task in the JSON summary; times are in microseconds.
type jsonTask struct {
	Task          int64   `json:"task"`
	Finish        float64 `json:"finish_us"`
	Compute       float64 `json:"compute_us"`
	Comm          float64 `json:"communication_us"`
	Wait          float64 `json:"wait_us"`
	MsgsSent      int64   `json:"msgs_sent"`
	MsgsReceived  int64   `json:"msgs_received"`
	BytesSent     int64   `json:"bytes_sent"`
	BytesReceived int64   `json:"bytes_received"`
	CollMsgs      int64   `json:"collective_msgs"`
	CollBytes     int64   `json:"collective_bytes"`
	Counters      struct {
		ElapsedUsecs  float64 `json:"elapsed_usecs"`
		MsgsSent      int64   `json:"msgs_sent"`
		MsgsReceived  int64   `json:"msgs_received"`
		BytesSent     int64   `json:"bytes_sent"`
		BytesReceived int64   `json:"bytes_received"`
		BitErrors     int64   `json:"bit_errors"`
	} `json:"counters"`
}

type jsonSplit struct {
	Min     float64 `json:"min_us"`
	Mean    float64 `json:"mean_us"`
	Max     float64 `json:"max_us"`
	MaxTask int64   `json:"max_task"`
}

// MaxJSONTasks is the most tasks listed one by one in the JSON summary;
// larger runs list only the splits.
const MaxJSONTasks = 4096

// WriteJSON writes the prediction as JSON: "status" is the Status
// ("finished", "deadlock", "failed" or "stopped"), "partial" says the
// figures cover part of the run, and "predicted_us" is the prediction
// only when the status is "finished" (else the time the run reached).
func (r *Result) WriteJSON(w io.Writer) error {
	js := func(sp Split) jsonSplit {
		return jsonSplit{sp.Min.Micros(), sp.Mean.Micros(), sp.Max.Micros(), sp.MaxTask}
	}
	out := struct {
		Program   string               `json:"program"`
		Platform  string               `json:"platform"`
		NumTasks  int64                `json:"tasks"`
		Seed      uint64               `json:"seed"`
		Status    string               `json:"status"`
		Partial   bool                 `json:"partial"`
		Headline  string               `json:"headline"`
		Predicted float64              `json:"predicted_us"`
		Events    int64                `json:"events"`
		Splits    map[string]jsonSplit `json:"splits"`
		Tasks     []jsonTask           `json:"per_task,omitempty"`
		Problems  []map[string]any     `json:"problems"`
		Network   any                  `json:"network"`
		FastFwd   []string             `json:"fast_forward,omitempty"`
	}{FastFwd: r.FastForward, Program: r.Program, Platform: r.Platform, NumTasks: r.NumTasks, Seed: r.Seed,
		Status: r.Status.String(), Partial: r.Partial(), Headline: r.Headline(), Predicted: r.Predicted.Micros(), Events: r.Events,
		Splits: map[string]jsonSplit{
			"compute":       js(split(r.Tasks, func(t *TaskStats) Time { return t.Compute })),
			"communication": js(split(r.Tasks, func(t *TaskStats) Time { return t.Comm })),
			"wait":          js(split(r.Tasks, func(t *TaskStats) Time { return t.Wait })),
			"finish":        js(split(r.Tasks, func(t *TaskStats) Time { return t.Finish })),
		},
		Problems: []map[string]any{},
		Network:  r.Network.json(),
	}
	if len(r.Tasks) <= MaxJSONTasks {
		for i := range r.Tasks {
			t := &r.Tasks[i]
			jt := jsonTask{Task: int64(i), Finish: t.Finish.Micros(), Compute: t.Compute.Micros(), Comm: t.Comm.Micros(), Wait: t.Wait.Micros(),
				MsgsSent: t.MsgsSent, MsgsReceived: t.MsgsReceived, BytesSent: t.BytesSent, BytesReceived: t.BytesReceived,
				CollMsgs: t.CollMsgs, CollBytes: t.CollBytes}
			jt.Counters.ElapsedUsecs = t.Counters.ElapsedUsecs
			jt.Counters.MsgsSent, jt.Counters.MsgsReceived = t.Counters.MsgsSent, t.Counters.MsgsReceived
			jt.Counters.BytesSent, jt.Counters.BytesReceived = t.Counters.BytesSent, t.Counters.BytesReceived
			jt.Counters.BitErrors = t.Counters.BitErrors
			out.Tasks = append(out.Tasks, jt)
		}
	}
	for _, p := range r.Problems {
		m := map[string]any{"kind": p.Kind, "message": p.Msg}
		if p.Task >= 0 {
			m["task"] = p.Task
		}
		if p.Span.Start.IsValid() {
			m["position"] = p.Span.Start.String()
		}
		out.Problems = append(out.Problems, m)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
