package parser

import (
	"strings"
	"testing"

	"github.com/parley-hpc/parley/lang"
)

// scan reads all of src's tokens into a scanResult, as Parse hands them
// to participle.
func scan(file string, src []byte, opts Options) *scanResult {
	s := newScanner(file, src, opts)
	for {
		t, err := s.Next()
		if err != nil || t.EOF() {
			return s.res
		}
		s.res.tokens = append(s.res.tokens, t)
	}
}

// tokenText renders tokens as "type:value" for comparison.
func tokenText(src string) (string, string) {
	res := scan("t", []byte(src), Options{})
	var parts []string
	for _, tok := range res.tokens {
		kind := map[int]string{int(tokKeyword): "K", int(tokIdent): "I", int(tokInt): "N", int(tokString): "S", int(tokPunct): "P"}[int(tok.Type)]
		parts = append(parts, kind+":"+tok.Value)
	}
	errText := ""
	if res.err != nil {
		errText = res.err.Error()
	}
	return strings.Join(parts, " "), errText
}

func TestLexer(t *testing.T) {
	tests := []struct{ src, want string }{
		// Case folding and singular/plural synonyms share one keyword.
		{"Task tasks TASK", "K:TASKS K:TASKS K:TASKS"},
		{"a An is ARE it them its their", "K:AN K:AN K:ARE K:ARE K:THEM K:THEM K:THEIR K:THEIR"},
		{"send sends Receive message MESSAGES compute", "K:SENDS K:SENDS K:RECEIVES K:MESSAGES K:MESSAGES K:COMPUTES"},
		{"byte bytes kilobyte kilobytes Megabytes", "K:BYTES K:BYTES K:KILOBYTE K:KILOBYTE K:MEGABYTE"},
		// Identifiers are case-insensitive too; contextual words stay names.
		{"MsgSize msgsize flops Scatter", "I:msgsize I:msgsize I:flops I:scatter"},
		// Number suffixes.
		{"64K 1m 2G 1T 8E3 1e6 95TH 1st 2nd 3rd 4th 007", "N:64K N:1m N:2G N:1T N:8E3 N:1e6 N:95TH N:1st N:2nd N:3rd N:4th N:007"},
		{"64byte 10Mbytes", "N:64 K:BYTES N:10M K:BYTES"},
		// A '-' before a keyword is white space; before a function call or
		// an expression keyword it stays a minus.
		{"64-byte page-aligned msgsize-byte", "N:64 K:BYTES K:PAGES K:ALIGNED I:msgsize K:BYTES"},
		{"x-3 3-x x-ABS(y) x - REAL(y) -NOT 1", "I:x P:- N:3 N:3 P:- I:x I:x P:- K:ABS P:( I:y P:) I:x P:- K:REAL P:( I:y P:) P:- K:NOT N:1"},
		{"64-bits x-BITS(y)", "N:64 K:BITS I:x P:- K:BITS P:( I:y P:)"},
		// Punctuation, longest match first.
		{`** <= >= <> << >> /\ \/ ... , . { } [ ] ( ) + - * / = < > & |`,
			`P:** P:<= P:>= P:<> P:<< P:>> P:/\ P:\/ P:... P:, P:. P:{ P:} P:[ P:] P:( P:) P:+ P:- P:* P:/ P:= P:< P:> P:& P:|`},
		{"{1,...,5}", "P:{ N:1 P:, P:... P:, N:5 P:}"},
		// Comments vanish; strings keep their raw text.
		{"task # a comment\n0", "K:TASKS N:0"},
		{`"a \"b\" c"`, `S:"a \"b\" c"`},
	}
	for _, tt := range tests {
		got, err := tokenText(tt.src)
		if err != "" {
			t.Errorf("%q: %s", tt.src, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestIntegerValues(t *testing.T) {
	p, diags := Parse("t", []byte("TASK 0 OUTPUTS 64K AND 1M AND 2G AND 1T AND 8E3 AND 95TH AND 3rd AND 1E18 AND 9223372036854775807."))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := []int64{65536, 1 << 20, 2 << 30, 1 << 40, 8000, 95, 3, 1e18, 9223372036854775807}
	items := p.Body[0].Stmts[0].(*lang.Output).Items
	for i := range want {
		if got := items[i].X.(*lang.IntLit).Value; got != want[i] {
			t.Errorf("literal %d = %d, want %d", i, got, want[i])
		}
	}
}

func TestStrings(t *testing.T) {
	tests := []struct{ src, want string }{
		{`"plain"`, "plain"},
		{`"tab\tnew\nline\r"`, "tab\tnew\nline\r"},
		{`"quote \" and backslash \\"`, `quote " and backslash \`},
		{"\"joined\\\nline\"", "joinedline"},
		{"\"real\nnewline\"", "real\nnewline"},
	}
	for _, tt := range tests {
		res := scan("t", []byte(tt.src), Options{})
		if res.err != nil || len(res.tokens) != 1 {
			t.Errorf("%q: %v", tt.src, res.err)
			continue
		}
		if got := unquote(res.tokens[0].Value); got != tt.want {
			t.Errorf("%q decodes to %q, want %q", tt.src, got, tt.want)
		}
	}
	// An unknown escape is dropped with a warning, as in coNCePTuaL.
	res := scan("t", []byte(`"a\qb"`), Options{})
	if res.err != nil || len(res.warnings) != 1 || unquote(res.tokens[0].Value) != "ab" {
		t.Errorf(`"a\qb": err %v, warnings %v`, res.err, res.warnings)
	}
}

func TestLexicalErrors(t *testing.T) {
	tests := []struct{ src, pos, msg string }{
		{"TASK 0 OUTPUTS \"never closed", "t:1:16", "string is never closed"},
		{"TASK 0 OUTPUTS 99999999999999999999", "t:1:16", "too large"},
		{"TASK 0 OUTPUTS 1E19", "t:1:16", "too large"},
		{"TASK 0 OUTPUTS 'x'", "t:1:16", "strings use double quotes"},
		{"TASK 0 OUTPUTS 1;", "t:1:17", "statements are joined with THEN"},
		{"IF x != 1 THEN {}", "t:1:6", `use <> for "not equal"`},
		{"TASK 0 OUTPUTS café", "t:1:19", "ASCII letters"},
	}
	for _, tt := range tests {
		_, diags := Parse("t", []byte(tt.src))
		if len(diags) == 0 {
			t.Errorf("%q: no error", tt.src)
			continue
		}
		d := diags[0]
		if d.Pos.String() != tt.pos || !strings.Contains(d.Error(), tt.msg) || d.Hint == "" {
			t.Errorf("%q: got %s, want %s ... %s", tt.src, d.Error(), tt.pos, tt.msg)
		}
	}
}
