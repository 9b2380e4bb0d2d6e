package parser

import (
	"fmt"
	"io"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/parley-hpc/parley/lang"
)

// Token types produced by the lexer. Keywords carry their canonical upper
// case spelling as the token value ("a" -> "AN", "Task" -> "TASKS"), so the
// grammar names each keyword once. Identifiers carry their lower-case
// spelling. Strings and integers carry their raw source text; the syntax
// tree builder decodes them.
const (
	tokKeyword lexer.TokenType = -(iota + 2)
	tokIdent
	tokInt
	tokString
	tokPunct
)

var symbols = map[string]lexer.TokenType{
	"EOF":     lexer.EOF,
	"Keyword": tokKeyword,
	"Ident":   tokIdent,
	"Int":     tokInt,
	"String":  tokString,
	"Punct":   tokPunct,
}

// definition adapts scan to participle's lexer.Definition.
type definition struct{}

func (definition) Symbols() map[string]lexer.TokenType { return symbols }

func (definition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return newScanner(filename, src, Options{MaxMemory: math.MaxInt64}), nil
}

// scanResult is everything the scanner learned about a file.
type scanResult struct {
	src      []byte
	tokens   []lexer.Token // once scanning is done: participle's copy, in Parse
	ends     []int32       // ends[i] is the offset where tokens[i] ends (see end)
	comments []*lang.Comment
	warnings lang.Diagnostics
	err      *lang.Diagnostic // first lexical error, if any
	eof      lexer.Position
}

// end returns where token i ends. Ends are kept as offsets, a tenth of
// the size of a lang.Pos, and the line and column worked out from the
// token's start when asked for.
func (r *scanResult) end(i int) lang.Pos {
	p := toLangPos(r.tokens[i].Pos)
	for _, c := range string(r.src[p.Offset:r.ends[i]]) {
		if c == '\n' {
			p.Line++
			p.Col = 1
		} else {
			p.Col++
		}
	}
	p.Offset = int(r.ends[i])
	return p
}

// scanner turns source text into tokens, on demand: it is the
// lexer.Lexer participle reads, so that participle's copy of the tokens is
// the only one.
type scanner struct {
	file    string
	src     []byte
	text    string // src as a string: token values are slices of it, not copies
	off     int
	line    int
	col     int
	res     *scanResult
	pending []lexer.Token // scanned, not yet handed out, from head on
	head    int
	opts    Options
	budget  int // the tokens parsing may take within opts.MaxMemory
}

// newScanner starts scanning src. The scanner stops with an error where
// the tokens show that parsing them would pass opts.MaxMemory.
func newScanner(file string, src []byte, opts Options) *scanner {
	s := &scanner{file: file, src: src, line: 1, col: 1, res: &scanResult{src: src}, opts: opts, budget: tokenBudget(len(src), opts)}
	if s.budget < 0 {
		s.res.err = tooBig(len(src), s.position(), 0, opts)
		return s
	}
	s.text = string(src)
	return s
}

// Next implements lexer.Lexer. The last token scanned is held back until
// the next one is scanned, since a keyword drops a '-' before it. After
// the tokens comes the scan error, if any, else EOF.
func (s *scanner) Next() (lexer.Token, error) {
	if len(s.pending)-s.head < 2 {
		// Keep the one held back at the front of the buffer, and scan.
		s.pending = s.pending[:copy(s.pending, s.pending[s.head:])]
		s.head = 0
		for len(s.pending) < 2 && s.off < len(s.src) && s.res.err == nil {
			s.step()
		}
	}
	if s.head < len(s.pending) {
		s.head++
		return s.pending[s.head-1], nil
	}
	if s.res.err != nil {
		return lexer.Token{}, s.res.err
	}
	s.res.eof = s.position()
	return lexer.EOFToken(s.res.eof), nil
}

func (s *scanner) position() lexer.Position {
	return lexer.Position{Filename: s.file, Offset: s.off, Line: s.line, Column: s.col}
}

func (s *scanner) langPos() lang.Pos {
	return lang.Pos{File: s.file, Offset: s.off, Line: s.line, Col: s.col}
}

// advance moves past one rune, keeping line and column.
func (s *scanner) advance() rune {
	r, size := utf8.DecodeRune(s.src[s.off:])
	s.off += size
	if r == '\n' {
		s.line++
		s.col = 1
	} else {
		s.col++
	}
	return r
}

func (s *scanner) peekByte(ahead int) byte {
	if s.off+ahead < len(s.src) {
		return s.src[s.off+ahead]
	}
	return 0
}

func (s *scanner) fail(start lexer.Position, format string, args ...any) {
	end := s.langPos()
	d := lang.Diagnostic{
		Pos:      toLangPos(start),
		End:      end,
		Severity: lang.Error,
		Msg:      fmt.Sprintf(format, args...),
	}
	d.Text = lang.SourceText(s.src, lang.Span{Start: d.Pos, End: end})
	s.res.err = &d
}

func (s *scanner) emit(typ lexer.TokenType, value string, start lexer.Position) {
	if len(s.res.ends) == s.budget {
		s.res.err = tooBig(len(s.src), start, len(s.res.ends), s.opts)
		return
	}
	s.pending = append(s.pending, lexer.Token{Type: typ, Value: value, Pos: start})
	s.res.ends = append(s.res.ends, int32(s.off))
}

// threeChar and twoChar list the multi-character punctuation, longest first.
var (
	threeChar = []string{"..."}
	twoChar   = []string{"**", "<=", ">=", "<>", "<<", ">>", `/\`, `\/`}
)

const oneChar = ",.{}[]()+-*/=<>&|"

// step scans white space, a comment or one token.
func (s *scanner) step() {
	c := s.src[s.off]
	start := s.position()
	switch {
	case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
		s.advance()
	case c == '#':
		begin := s.off
		for s.off < len(s.src) && s.src[s.off] != '\n' {
			s.advance()
		}
		text := strings.TrimRight(s.text[begin:s.off], " \t\r")
		s.res.comments = append(s.res.comments, &lang.Comment{
			Span: lang.Span{Start: toLangPos(start), End: s.langPos()},
			Text: text,
		})
	case c == '"':
		s.scanString(start)
	case c >= '0' && c <= '9':
		s.scanInt(start)
	case isLetter(c) || c >= utf8.RuneSelf:
		s.scanWord(start)
	default:
		s.scanPunct(start)
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isWordByte(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c == '_' }

func (s *scanner) scanPunct(start lexer.Position) {
	rest := s.src[s.off:]
	for _, group := range [][]string{threeChar, twoChar} {
		for _, p := range group {
			if len(rest) >= len(p) && string(rest[:len(p)]) == p {
				for range p {
					s.advance()
				}
				s.emit(tokPunct, p, start)
				return
			}
		}
	}
	c := s.src[s.off]
	if strings.IndexByte(oneChar, c) >= 0 {
		s.advance()
		s.emit(tokPunct, string(c), start)
		return
	}
	r, _ := utf8.DecodeRune(rest)
	s.advance()
	hint := ""
	switch r {
	case '\'':
		hint = `; strings use double quotes`
	case '!':
		hint = `; use <> for "not equal"`
	case '\\':
		hint = `; "\/" means "or"`
	case ';':
		hint = `; statements are joined with THEN`
	}
	s.fail(start, "unexpected character %q%s", r, hint)
	s.res.err.Hint = "remove the character; Parley programs are words, numbers, strings and the operators + - * / ** MOD & | XOR << >> = <> < > <= >= /\\ \\/"
}

// scanWord reads an identifier or keyword.
func (s *scanner) scanWord(start lexer.Position) {
	begin := s.off
	if c := s.src[s.off]; c >= utf8.RuneSelf {
		r, _ := utf8.DecodeRune(s.src[s.off:])
		if !unicode.IsLetter(r) {
			s.advance()
			s.fail(start, "unexpected character %q", r)
			s.res.err.Hint = "remove the character; outside strings, programs are plain ASCII"
			return
		}
		s.advance()
		s.fail(start, "identifiers are made of ASCII letters, digits and underscores, not %q", r)
		s.res.err.Hint = "spell the name with ASCII letters"
		return
	}
	upper := false
	for s.off < len(s.src) && isWordByte(s.src[s.off]) {
		upper = upper || (s.src[s.off] >= 'A' && s.src[s.off] <= 'Z')
		s.off++
		s.col++
	}
	word := s.src[begin:s.off]
	var buf [40]byte
	lower := buf[:0]
	if len(word) <= len(buf) {
		for _, c := range word {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			lower = append(lower, c)
		}
		if kw, ok := lang.CanonicalKeywordLower(lower); ok {
			s.dropHyphenBefore(kw)
			s.emit(tokKeyword, kw, start)
			return
		}
	}
	if upper {
		s.emit(tokIdent, strings.ToLower(string(word)), start)
		return
	}
	s.emit(tokIdent, s.text[begin:s.off], start)
}

// expressionKeywords can begin an expression, so a '-' before them stays a
// minus sign: `x-ABS(y)` subtracts. coNCePTuaL treated every '-' before a
// keyword as white space; Parley keeps that for all other keywords
// (`64-BYTE`, `PAGE-ALIGNED`), which accepts every program coNCePTuaL does.
var expressionKeywords = map[string]bool{"REAL": true, "NOT": true, "MY": true}

func (s *scanner) dropHyphenBefore(kw string) {
	n := len(s.pending)
	if n == s.head {
		return
	}
	prev := s.pending[n-1]
	if prev.Type != tokPunct || prev.Value != "-" {
		return
	}
	if expressionKeywords[kw] || (isFunctionKeyword(kw) && s.nextNonSpace() == '(') {
		return
	}
	s.pending = s.pending[:n-1]
	s.res.ends = s.res.ends[:len(s.res.ends)-1]
}

func (s *scanner) nextNonSpace() byte {
	for i := s.off; i < len(s.src); i++ {
		switch s.src[i] {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return s.src[i]
	}
	return 0
}

func isFunctionKeyword(kw string) bool {
	_, ok := functionKeywords[kw]
	return ok
}

// scanInt reads an integer: digits, an optional multiplier (K M G T, or E
// followed by digits) and an optional ordinal suffix (ST ND RD TH).
func (s *scanner) scanInt(start lexer.Position) {
	begin := s.off
	for s.off < len(s.src) && s.src[s.off] >= '0' && s.src[s.off] <= '9' {
		s.advance()
	}
	switch c := s.peekByte(0) | 0x20; {
	case c == 'k' || c == 'm' || c == 'g':
		s.advance()
	case c == 't' && s.peekByte(1)|0x20 != 'h':
		s.advance()
	case c == 'e' && s.peekByte(1) >= '0' && s.peekByte(1) <= '9':
		s.advance()
		for s.off < len(s.src) && s.src[s.off] >= '0' && s.src[s.off] <= '9' {
			s.advance()
		}
	}
	if s.off+1 < len(s.src) {
		switch strings.ToLower(string(s.src[s.off : s.off+2])) {
		case "st", "nd", "rd", "th":
			s.advance()
			s.advance()
		}
	}
	text := s.text[begin:s.off]
	if _, err := lang.IntLiteralValue(text); err != nil {
		s.fail(start, "%v", err)
		s.res.err.Hint = "integers are 64-bit: at most 9223372036854775807 (about 8E18)"
		return
	}
	s.emit(tokInt, text, start)
}

// scanString reads a double-quoted string; the token value is the raw text.
func (s *scanner) scanString(start lexer.Position) {
	begin := s.off
	s.advance()
	for {
		if s.off >= len(s.src) {
			s.off = begin
			s.line, s.col = start.Line, start.Column
			s.fail(start, "string is never closed")
			s.res.err.Hint = `add the closing '"'; write \" for a quote inside a string`
			s.res.err.End = s.res.err.Pos
			s.res.err.Text = ""
			return
		}
		c := s.src[s.off]
		if c == '"' {
			s.advance()
			break
		}
		if c == '\\' && s.off+1 < len(s.src) {
			escStart := s.langPos()
			s.advance()
			e := s.src[s.off]
			if !strings.ContainsRune(`nrt"\`+"\n", rune(e)) {
				s.res.warnings = append(s.res.warnings, lang.Diagnostic{
					Pos: escStart, Severity: lang.Warning,
					Msg:  fmt.Sprintf(`unknown escape sequence "\%c" is discarded`, e),
					Hint: `use \n, \t, \r, \" or \\`,
				})
			}
		}
		s.advance()
	}
	s.emit(tokString, s.text[begin:s.off], start)
}

// unquote decodes a raw string token: \n \t \r \" \\ are escapes, a
// backslash before a newline removes the newline, and other escapes are
// dropped (the scanner has warned about them).
func unquote(raw string) string {
	body := raw[1 : len(raw)-1]
	if !strings.ContainsRune(body, '\\') {
		return body
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' || i+1 == len(body) {
			b.WriteByte(c)
			continue
		}
		i++
		switch body[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '"', '\\':
			b.WriteByte(body[i])
		case '\n':
		}
	}
	return b.String()
}

func toLangPos(p lexer.Position) lang.Pos {
	return lang.Pos{File: p.Filename, Offset: p.Offset, Line: p.Line, Col: p.Column}
}
