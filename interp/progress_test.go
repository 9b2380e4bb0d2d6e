package interp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/parley-hpc/parley/interp"
)

// endless runs for as long as anyone lets it.
const endless = `FOR 1000000000 REPETITIONS {TASK 0 SENDS A 8 BYTE MESSAGE TO TASK 1 THEN TASK 1 SENDS A 8 BYTE MESSAGE TO TASK 0}`

// TestProgress: the callback sees the run advance, and is not called
// more often than the interval lets it (here, at every look).
func TestProgress(t *testing.T) {
	var seen []interp.Progress
	res, err := interp.Run(build(t, "ring.parley", strings.Replace(endless, "1000000000", "20000", 1)),
		interp.Options{NumTasks: 4, Platform: platform(t, ""), ProgressInterval: time.Nanosecond,
			Progress: func(p interp.Progress) { seen = append(seen, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != interp.Finished || res.Partial() {
		t.Fatalf("status %v, problems %v", res.Status, res.Problems)
	}
	if len(seen) < 2 {
		t.Fatalf("progress called %d times in %d events", len(seen), res.Events)
	}
	for i, p := range seen {
		if p.Events <= 0 || p.Events >= res.Events || p.Now > res.Predicted || i > 0 && (p.Events <= seen[i-1].Events || p.Now < seen[i-1].Now) {
			t.Errorf("progress %d: %+v after %+v; the run ends with %d events at %v", i, p, seen[max(0, i-1)], res.Events, res.Predicted)
		}
	}
	// With the default interval, a run this short reports at most once.
	seen = nil
	interp.Run(build(t, "ring.parley", strings.Replace(endless, "1000000000", "10", 1)),
		interp.Options{NumTasks: 4, Platform: platform(t, ""), Progress: func(p interp.Progress) { seen = append(seen, p) }})
	if len(seen) > 1 {
		t.Errorf("progress called %d times in a short run", len(seen))
	}
}

// TestStop: cancelling the context from another goroutine stops an
// endless run, which returns a partial result that says when it stopped.
func TestStop(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	started := make(chan struct{})
	go func() {
		<-started
		cancel(errors.New("interrupt"))
	}()
	var once bool
	res, err := interp.Run(build(t, "ring.parley", endless), interp.Options{NumTasks: 2, Platform: platform(t, ""), Context: ctx,
		ProgressInterval: time.Nanosecond, Progress: func(interp.Progress) {
			if !once {
				once = true
				close(started)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != interp.Stopped || !res.Partial() || res.Events == 0 || res.Predicted == 0 {
		t.Fatalf("status %v after %d events at %v", res.Status, res.Events, res.Predicted)
	}
	p := res.Problems[len(res.Problems)-1]
	if want := "interrupted after " + itoa(res.Events) + " events at predicted time " + res.Predicted.String() + ": interrupt"; p.Kind != "interrupted" || p.Msg != want {
		t.Errorf("problem %+v, want %q", p, want)
	}
	var b bytes.Buffer
	res.WriteSummary(&b, 0)
	if want := "Stopped after " + itoa(res.Events) + " events at simulated time " + res.Predicted.String() + ": partial summary  (ring.parley on 2 tasks"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("summary %q, want it to start %q", b.String(), want)
	}

	// A context done before the run starts stops it at once.
	done, stop := context.WithCancel(context.Background())
	stop()
	res, _ = interp.Run(build(t, "ring.parley", endless), interp.Options{NumTasks: 4, Platform: platform(t, ""), Context: done})
	if res.Status != interp.Stopped || res.Events != 0 {
		t.Errorf("status %v after %d events", res.Status, res.Events)
	}
}

// TestHeadline: a run that has no prediction says why in its summary and
// its JSON, instead of predicting the time it stopped at.
func TestHeadline(t *testing.T) {
	for _, tc := range []struct {
		src     string
		opts    interp.Options
		status  interp.Status
		partial bool
		want    string
	}{
		{"TASK 0 SENDS A 8 BYTE MESSAGE TO TASK 1", interp.Options{}, interp.Finished, false, "Predicted run time: 7.007us  (h.parley on 2 tasks, platform test)"},
		{"TASK 0 COMPUTES FOR 5 MICROSECONDS THEN TASK 0 RECEIVES A 8 BYTE MESSAGE FROM TASK 1", interp.Options{}, interp.Deadlocked, false,
			"Deadlock after 5us: no prediction  (h.parley on 2 tasks, platform test)"},
		{`ALL TASKS COMPUTE FOR 2 MICROSECONDS THEN ASSERT THAT "one task" WITH num_tasks = 1`, interp.Options{}, interp.Failed, false,
			"Failed after 2us: no prediction (an assertion failed)  (h.parley on 2 tasks, platform test)"},
		{endless, interp.Options{MaxEvents: 1000}, interp.Stopped, true, "Stopped after 1000 events at simulated time "},
	} {
		opts := tc.opts
		opts.NumTasks, opts.Platform = 2, platform(t, "")
		res, err := interp.Run(build(t, "h.parley", tc.src), opts)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		res.WriteSummary(&b, 0)
		if res.Status != tc.status || res.Partial() != tc.partial || !strings.HasPrefix(b.String(), tc.want) {
			t.Errorf("%s: status %v, summary %q; want %v, %q", tc.src, res.Status, b.String(), tc.status, tc.want)
		}
		b.Reset()
		res.WriteJSON(&b)
		var js struct {
			Status   string `json:"status"`
			Partial  bool   `json:"partial"`
			Headline string `json:"headline"`
		}
		if err := json.Unmarshal(b.Bytes(), &js); err != nil || js.Status != tc.status.String() || js.Partial != tc.partial || !strings.HasPrefix(js.Headline, tc.want) {
			t.Errorf("%s: JSON %+v, %v", tc.src, js, err)
		}
	}
}
