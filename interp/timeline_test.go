package interp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parley-hpc/parley/interp"
)

// traceEvent is the part of a Chrome trace event the tests read.
type traceEvent struct {
	Name string         `json:"name"`
	Ph   string         `json:"ph"`
	Tid  int            `json:"tid"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur"`
	ID   int            `json:"id"`
	BP   string         `json:"bp"`
	Args map[string]any `json:"args"`
}

// timeline runs src, named file, on n tasks and returns its timeline's
// events, checking it is JSON.
func timeline(t *testing.T, file, src string, n int64) []traceEvent {
	t.Helper()
	sim, err := interp.New(build(t, file, src), interp.Options{NumTasks: n, Platform: platform(t, ""), Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	sim.Run()
	var b bytes.Buffer
	if err := sim.WriteTimeline(&b); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b.Bytes()) {
		t.Fatalf("the timeline is not JSON:\n%s", b.String())
	}
	var trace struct {
		Events []traceEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &trace); err != nil {
		t.Fatal(err)
	}
	return trace.Events
}

// TestTimelinePingPong: CPU spans and waits with their statements, and an
// arrow per message from the middle of its send span to the middle of its
// receive span, at the times the network model gives (o = 1us, L = 5us,
// 1ns per byte).
func TestTimelinePingPong(t *testing.T) {
	const (
		ping = "TASK 0 SENDS A 1000 BYTE MESSAGE TO TASK 1"
		pong = "TASK 1 SENDS A 1000 BYTE MESSAGE TO TASK 0"
	)
	events := timeline(t, "pp.parley", ping+" THEN\n  "+pong, 2)
	var spans, flows []string
	for _, e := range events {
		switch e.Ph {
		case "X":
			spans = append(spans, fmt.Sprintf("%d %s %s+%s | %v at %v peer %v", e.Tid, e.Name, formatUs(e.Ts), formatUs(e.Dur), e.Args["statement"], e.Args["at"], e.Args["peer"]))
		case "s", "f":
			flows = append(flows, fmt.Sprintf("%s%d %d@%s %s", e.Ph, e.ID, e.Tid, formatUs(e.Ts), e.BP))
		}
	}
	want := []string{
		"0 send overhead 0+1 | " + ping + " at pp.parley:1:1 peer <nil>",
		"0 wait: receive from task 1 1+14.998 | " + pong + " at pp.parley:2:3 peer 1",
		"0 receive overhead 13.999+1.999 | " + pong + " at pp.parley:2:3 peer <nil>",
		"1 wait: receive from task 0 0+7.999 | " + ping + " at pp.parley:1:1 peer 0",
		"1 receive overhead 6+1.999 | " + ping + " at pp.parley:1:1 peer <nil>",
		"1 send overhead 7.999+1 | " + pong + " at pp.parley:2:3 peer <nil>",
	}
	if diff := cmp.Diff(want, spans); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"s1 0@0.5 ", "f1 1@6.9995 e", "s2 1@8.499 ", "f2 0@14.9985 e"}, flows); diff != "" {
		t.Errorf("arrows (-want +got):\n%s", diff)
	}
}

// TestTimelineWaits: a barrier, an AWAIT COMPLETION and a deadlock show
// as waits named for what they wait for.
func TestTimelineWaits(t *testing.T) {
	events := timeline(t, "w.parley", `TASK 0 COMPUTES FOR 10 MICROSECONDS THEN
ALL TASKS SYNCHRONIZE THEN
TASK 1 ASYNCHRONOUSLY RECEIVES A 8 BYTE MESSAGE FROM TASK 0 THEN
TASK 0 COMPUTES FOR 3 MICROSECONDS THEN
TASK 0 SENDS A 8 BYTE MESSAGE TO UNSUSPECTING TASK 1 THEN
TASK 1 AWAITS COMPLETION THEN
TASK 0 RECEIVES A 8 BYTE MESSAGE FROM TASK 1`, 2)
	var waits []string
	for _, e := range events {
		if e.Ph == "X" && strings.HasPrefix(e.Name, "wait") {
			waits = append(waits, fmt.Sprintf("%d %s at %v %v", e.Tid, e.Name, e.Args["at"], e.Args["unfinished"]))
		}
	}
	want := []string{
		"0 wait: barrier step with task 1 at w.parley:2:1 <nil>",
		"0 wait: receive from task 1 at w.parley:7:1 the run ended during this wait",
		"1 wait: barrier step with task 0 at w.parley:2:1 <nil>",
		"1 wait: AWAIT COMPLETION of 1 operation(s) at w.parley:6:1 <nil>",
	}
	if diff := cmp.Diff(want, waits); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

// TestTimelineOddFileName: a file name with quotes, control characters
// and bytes that are not UTF-8 still makes JSON.
func TestTimelineOddFileName(t *testing.T) {
	name := "odd \"name\"\n\t\x01\xff\\.parley"
	events := timeline(t, name, `TASK 0 SENDS A 8 BYTE MESSAGE TO TASK 1`, 2)
	if got := events[0].Args["name"]; got != "parley: "+strings.ToValidUTF8(name, "\uFFFD") {
		t.Errorf("process name %q", got)
	}
	if at := events[3].Args["at"]; !strings.HasPrefix(fmt.Sprint(at), strings.ToValidUTF8(name, "\uFFFD")+":1:1") {
		t.Errorf("span position %q", at)
	}
}
