package parser

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/parley-hpc/parley/lang"
)

// grammar is built once; participle parsers are safe for concurrent use.
var grammar = participle.MustBuild[gProgram](
	participle.Lexer(definition{}),
	// The language needs unbounded lookahead in a few places (a size versus
	// an alignment in a message specification, a parenthesized relation
	// versus a parenthesized expression); the grammar is written so that
	// backtracking stays shallow.
	participle.UseLookahead(participle.MaxLookahead),
)

// Parse parses one source file with the default Options. It returns the
// syntax tree (nil if the file could not be parsed) and every diagnostic
// found: lexical and syntax errors with positions and hints, and warnings.
// Parse never panics on bad input.
func Parse(file string, src []byte) (*lang.Program, lang.Diagnostics) {
	return ParseWith(file, src, Options{})
}

// msgIncomplete is the error of a program that stops mid-statement.
const msgIncomplete = "syntax error: the program ends in the middle of a statement"

// Incomplete reports whether diags, from parsing src, say only that src
// stops in the middle of a statement, as a line typed at a prompt does
// when more lines are to follow (an open {, a trailing THEN).
func Incomplete(diags lang.Diagnostics) bool {
	errs := diags.Errors()
	return len(errs) == 1 && strings.HasPrefix(errs[0].Msg, msgIncomplete)
}

// ParseWith is Parse with options.
func ParseWith(file string, src []byte, opts Options) (prog *lang.Program, diags lang.Diagnostics) {
	defer func() {
		if r := recover(); r != nil {
			// A panic here is a bug in Parley, not in the program; report it
			// as a diagnostic rather than crash the caller.
			prog = nil
			diags = append(diags, lang.Diagnostic{
				Pos: lang.Pos{File: file}, Severity: lang.Error,
				Msg:  fmt.Sprintf("internal parser error: %v", r),
				Hint: "please report this program to the Parley developers",
			})
		}
	}()
	sc := newScanner(file, src, opts)
	res := sc.res
	peek, err := lexer.Upgrade(sc)
	diags = append(diags, res.warnings...)
	if res.err != nil {
		return nil, append(diags, *res.err)
	}
	if err != nil {
		return nil, append(diags, lang.Diagnostic{Pos: lang.Pos{File: file}, Severity: lang.Error, Msg: err.Error()})
	}
	// The scanner handed its tokens over; participle's copy is the only one.
	res.tokens = peek.Range(0, lexer.RawCursor(len(res.ends)))
	if d := checkNesting(src, res); d != nil {
		return nil, append(diags, *d)
	}
	g, err := grammar.ParseFromLexer(peek)
	if err != nil {
		return nil, append(diags, syntaxError(src, res, err))
	}
	b := newBuilder(src, res)
	prog = b.program(g, file)
	diags = append(diags, b.diags...)
	diags.Sort()
	return prog, diags
}

// ParseFile reads and parses a file with the default Options; a file too
// big to parse within them is refused before it is read.
func ParseFile(path string) (*lang.Program, lang.Diagnostics, error) {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && tokenBudget(int(fi.Size()), Options{}) < 0 {
		start := lexer.Position{Filename: path, Line: 1, Column: 1}
		return nil, lang.Diagnostics{*tooBig(int(fi.Size()), start, 0, Options{})}, nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading program: %w", err)
	}
	prog, diags := Parse(path, src)
	return prog, diags, nil
}

// syntaxError turns participle's error into a diagnostic that names the
// offending text in the user's spelling and, where it can, says what to do.
func syntaxError(src []byte, res *scanResult, err error) lang.Diagnostic {
	d := lang.Diagnostic{Severity: lang.Error, Msg: "syntax error"}
	var perr participle.Error
	if !errors.As(err, &perr) {
		d.Msg = err.Error()
		return d
	}
	pos := perr.Position()
	d.Pos = toLangPos(pos)
	var unexpected *participle.UnexpectedTokenError
	if !errors.As(err, &unexpected) {
		d.Msg = "syntax error: " + perr.Message()
		return d
	}
	tok := unexpected.Unexpected
	expect := expectation(unexpected)
	if tok.EOF() {
		d.Msg = msgIncomplete
		if expect != "" {
			d.Msg += "; expected " + expect
		}
		d.Hint = "finish the statement, or check for an unclosed { or ("
		return d
	}
	d.End = d.Pos
	index := -1
	for i, t := range res.tokens {
		if t.Pos.Offset == tok.Pos.Offset {
			d.End, index = res.end(i), i
			break
		}
	}
	d.Text = lang.SourceText(src, lang.Span{Start: d.Pos, End: d.End})
	d.Msg = fmt.Sprintf("syntax error: unexpected %s", describe(tok, d.Text))
	if expect != "" {
		d.Msg += "; expected " + expect
	}
	d.Hint = hintFor(tok, d.Text, expect)
	if d.Hint == "" {
		d.Hint = "a word is missing or out of place here; compare the statement with the grammar (docs/language.md and the coNCePTuaL manual)"
	}
	if index >= 0 {
		if name, ok := reservedName(src, res, index); ok {
			d.Hint = fmt.Sprintf("%s is a reserved word and cannot name a variable; choose another name", strings.ToUpper(name))
		}
		if missingShortOption(res.tokens, index) {
			d.Hint = `a parameter takes a long and a short option, as in COMES FROM "--reps" OR "-r"`
		}
	}
	return d
}

// missingShortOption recognizes a parameter declared with its long option
// alone: WITH right after COMES FROM "...".
func missingShortOption(toks []lexer.Token, index int) bool {
	return index >= 3 && toks[index].Value == "WITH" && toks[index-1].Type == tokString &&
		toks[index-2].Value == "FROM" && toks[index-3].Value == "COMES"
}

// reservedName recognizes a keyword written where a name is being declared
// (the usual reason a keyword is unexpected) and returns it as written.
func reservedName(src []byte, res *scanResult, index int) (string, bool) {
	toks := res.tokens
	text := func(i int) string {
		return lang.SourceText(src, lang.Span{Start: toLangPos(toks[i].Pos), End: res.end(i)})
	}
	// A parameter named by a keyword: the error comes at IS "...".
	if toks[index].Value == "ARE" && index > 0 && toks[index-1].Type == tokKeyword &&
		index+1 < len(toks) && toks[index+1].Type == tokString {
		return text(index - 1), true
	}
	if toks[index].Type == tokKeyword && meantAsName(toks, index) {
		return text(index), true
	}
	return "", false
}

// meantAsName reports whether the keyword at index stands where a name is
// being declared: after LET or FOR EACH, or before BE, SUCH, IN or IS "...".
func meantAsName(toks []lexer.Token, index int) bool {
	if index > 0 {
		switch toks[index-1].Value {
		case "LET", "EACH":
			return true
		}
	}
	if index+1 < len(toks) {
		next := toks[index+1]
		switch {
		case next.Value == "BE", next.Value == "SUCH",
			next.Value == "IN" && index > 0 && toks[index-1].Value == "EACH":
			return true
		case next.Value == "ARE" && index+2 < len(toks) && toks[index+2].Type == tokString:
			return true
		}
	}
	return false
}

func describe(tok lexer.Token, text string) string {
	switch tok.Type {
	case tokKeyword:
		return "keyword " + strings.ToUpper(text)
	case tokIdent:
		return "name " + text
	case tokInt:
		return "number " + text
	case tokString:
		return "string " + text
	}
	return fmt.Sprintf("%q", text)
}

// expectation renders what participle expected, if it is short enough to
// help; long grammar fragments only confuse.
func expectation(u *participle.UnexpectedTokenError) string {
	msg := u.Message()
	i := strings.Index(msg, "(expected ")
	if i < 0 {
		return ""
	}
	e := strings.TrimSuffix(msg[i+len("(expected "):], ")")
	if phrase, ok := grammarPhrases[e]; ok {
		return phrase
	}
	if len(e) > 48 || strings.ContainsAny(e, "()|?*") || strings.HasPrefix(e, "G") {
		return ""
	}
	e = strings.NewReplacer("<ident>", "a name", "<int>", "a number", "<string>", "a string",
		"<keyword>", "a keyword", "<punct>", "punctuation").Replace(e)
	return e
}

// grammarPhrases names the grammar's parts in the user's terms.
var grammarPhrases = map[string]string{
	"GForEach":  "a loop variable name",
	"GBinding":  "a name to bind (name BE ...)",
	"GGen":      "FOR EACH name IN ...",
	"GExpr":     "an expression",
	"GTaskDesc": "a task description (ALL TASKS, TASK n, TASKS t SUCH THAT ...)",
	"GMsgSpec":  "a message description (e.g. A 1 KILOBYTE MESSAGE)",
	"GRel":      "a condition",
	"GRange":    "a range in braces",
	"GSimple":   "a statement",
	"GChain":    "a statement",
	"GVerb":     "a verb (SENDS, RECEIVES, COMPUTES, LOGS, ...)",
	"GCount":    "a count (A, AN or a number)",
	"GItem":     "a string or an expression",
	"GDuration": "a time (e.g. 10 MICROSECONDS)",
}

func hintFor(tok lexer.Token, text, expect string) string {
	switch {
	case tok.Type == tokKeyword && strings.Contains(expect, "name"):
		return fmt.Sprintf("%s is a reserved word and cannot name a variable; choose another name", strings.ToUpper(text))
	case tok.Type == tokIdent:
		if kw := lang.Suggest(text, keywordSpellings); kw != "" {
			return fmt.Sprintf("did you mean %s?", strings.ToUpper(kw))
		}
		return "a name cannot stand here; check the spelling of the keyword before it"
	case tok.Value == ".":
		return "only a whole top-level statement ends with '.'; join statements with THEN"
	case tok.Value == "}":
		return "a { } block holds statements joined with THEN; check the statement before the }"
	case tok.Type == tokKeyword && tok.Value == "THEN":
		return "check the statement before THEN: it is incomplete"
	}
	return ""
}

// keywordSpellings are the keywords worth suggesting for a misspelling.
var keywordSpellings = strings.Fields(`a abs aggregates aligned all an and are as assert assigned
	asynchronously await awaits backend be bits buffer buffers byte bytes completion
	computes compute counters current data days default divides doubleword doublewords
	each even executes for from group halfwords histogram hours if in integer integers into is
	kilobyte let log logs maximum mean median megabyte memory message messages
	microseconds milliseconds minimum minutes misaligned multicast multicasts
	otherwise output outputs page pages percentile plus processor random receive receives
	reduce reduces region repetition repetitions require reset resets restore restores
	seconds send sends sleep sleeps store stores stride such synchronization synchronize
	synchronizes task tasks that the their then times to touch touches touching unaligned
	unique unsuspecting using verification version warmup while who with without words`)
