package parser

import (
	"strings"
	"testing"
)

// TestSyntaxErrors: malformed programs get file:line:col, the offending
// text and a hint, never a panic.
func TestSyntaxErrors(t *testing.T) {
	tests := []struct{ src, pos, msg, hint string }{
		{"TASK 0 SENDS A MESSAGE TO", "bad.parley:1:26", "ends in the middle of a statement", "finish the statement"},
		{"FOR 3 REPETITIONS {\n  TASK 0 OUTPUTS 1\n", "bad.parley:3:1", "ends in the middle of a statement", "unclosed {"},
		{"TASK 0 SNEDS A MESSAGE TO TASK 1.", "bad.parley:1:8", "unexpected name SNEDS", "did you mean SENDS?"},
		{"LET task BE 3 WHILE TASK 0 OUTPUTS 1.", "bad.parley:1:5", "unexpected keyword TASK", "TASK is a reserved word"},
		{"FOR EACH group IN {1} TASK 0 OUTPUTS 1.", "bad.parley:1:10", "unexpected keyword GROUP", "GROUP is a reserved word"},
		{"FOR 3 REPETITIONS {TASK 0 OUTPUTS 1.}", "bad.parley:1:36", `unexpected "."`, "only a whole top-level statement ends with '.'"},
		{"IF x > 1 TASK 0 OUTPUTS 1.", "bad.parley:1:10", "unexpected keyword TASK", ""},
		{"TASK 0 OUTPUTS 1 THEN THEN TASK 0 OUTPUTS 2.", "bad.parley:1:23", "unexpected keyword THEN", ""},
		{"ALL TASKS COMPUTE FOR 10 PARSECS.", "bad.parley:1:26", "unexpected name PARSECS", ""},
		{"TASK 0 SENDS A 1 KILOBYTE MESSAGE\n  TO TASK 1 WHO RECEIVES IT.", "bad.parley:2:28", "WHO RECEIVES IT must be followed by", "ASYNCHRONOUSLY"},
		{"tasks IS \"Tasks\" AND COMES FROM \"--tasks\" OR \"-t\" WITH DEFAULT 1.", "bad.parley:1:7", "unexpected keyword IS", "TASKS is a reserved word"},
		{"TASKS other SUCH THAT other > 0 SYNCHRONIZE.", "bad.parley:1:7", "unexpected keyword OTHER", "OTHER is a reserved word"},
		{"REQUIRE LANGUAGE VERSION 1.5.", "bad.parley:1:26", "unexpected number 1", ""},
		{"reps IS \"Reps\" AND COMES FROM \"--reps\" WITH DEFAULT 1.", "bad.parley:1:40", "unexpected keyword WITH", `a parameter takes a long and a short option, as in COMES FROM "--reps" OR "-r"`},
	}
	for _, tt := range tests {
		_, diags := Parse("bad.parley", []byte(tt.src))
		if !diags.HasErrors() {
			t.Errorf("%q: accepted", tt.src)
			continue
		}
		d := diags.Errors()[0]
		if d.Pos.String() != tt.pos {
			t.Errorf("%q: at %s, want %s (%s)", tt.src, d.Pos, tt.pos, d.Msg)
		}
		if !strings.Contains(d.Msg, tt.msg) {
			t.Errorf("%q: message %q, want %q", tt.src, d.Msg, tt.msg)
		}
		if d.Hint == "" || !strings.Contains(d.Hint, tt.hint) {
			t.Errorf("%q: hint %q, want %q", tt.src, d.Hint, tt.hint)
		}
	}
}

// TestIncomplete: what a prompt continues on the next line.
func TestIncomplete(t *testing.T) {
	for src, want := range map[string]bool{
		"FOR 3 REPETITIONS {":                       true,
		"TASK 0 OUTPUTS 1 THEN":                     true,
		"TASK 0 SENDS A 8 BYTE MESSAGE TO":          true,
		"TASK 0 OUTPUTS 1":                          false,
		"TASK 0 SNEDS A MESSAGE TO TASK 1":          false,
		"FOR 3 REPETITIONS {\n TASK 0 OUTPUTS 1\n}": false,
	} {
		if _, diags := Parse("<input>", []byte(src)); Incomplete(diags) != want {
			t.Errorf("Incomplete(%q) = %v, want %v (%v)", src, !want, want, diags)
		}
	}
}
