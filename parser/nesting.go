package parser

import (
	"fmt"

	"github.com/parley-hpc/parley/lang"
)

// MaxNesting bounds how deeply a program may nest. The parser, and every
// pass over the syntax tree after it, recurses once per level, and a Go
// program whose stack overflows dies with a fatal error that cannot be
// recovered: 300,000 nested parentheses or 100,000 nested loops did. Real
// programs nest fewer than 20 levels; parsing pathological nesting also
// costs time that grows with the square of the depth, so the limit stays
// well below what the stack would bear.
const MaxNesting = 256

// nestFrame is one open bracket's share of the nesting depth (the frame
// at the bottom stands for the top level): the constructs open inside it
// that the grammar or the syntax tree nest without brackets.
type nestFrame struct {
	stmts    int // FOR and LET, and IF once its THEN is seen: open until the statement chain continues
	awaiting int // IF, until its THEN (a statement) or OTHERWISE (an expression)
	exprs    int // operators, and IF ... OTHERWISE in expressions: open until the expression ends
}

func (f *nestFrame) depth() int { return f.stmts + f.awaiting + f.exprs }

// nestingOperators nest the syntax tree one level each: a chain of n binary
// operators is n levels deep (the grammar reads it flat but the tree is
// left-deep), a ** chain or a run of prefix operators likewise.
var nestingOperators = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "**": true, "&": true, "|": true,
	"<<": true, ">>": true, `/\`: true, `\/`: true, "MOD": true, "XOR": true, "NOT": true,
}

// checkNesting reports, as an error at the token where it happens, a
// program nesting deeper than MaxNesting. It works on the tokens, before
// the grammar recurses, and errs on the side of counting too much: every
// bracket, every FOR, LET and IF, and every operator counts one level
// until the bracket closes, the statement chain goes on (THEN or '.'),
// or, for operators, the expression ends at a comma.
func checkNesting(src []byte, res *scanResult) *lang.Diagnostic {
	frames := []nestFrame{{}}
	depth := 0
	for i, tok := range res.tokens {
		f := &frames[len(frames)-1]
		switch v := tok.Value; {
		case tok.Type == tokString || tok.Type == tokInt || tok.Type == tokIdent:
			continue
		case v == "(" || v == "[" || v == "{":
			frames = append(frames, nestFrame{})
			depth++
		case v == ")" || v == "]" || v == "}":
			if len(frames) > 1 {
				depth -= 1 + f.depth()
				frames = frames[:len(frames)-1]
			}
			continue
		case v == "FOR" || v == "LET":
			f.stmts++
			depth++
		case v == "IF":
			f.awaiting++
			depth++
		case v == "THEN" && f.awaiting > 0:
			// A conditional statement: its body nests inside it.
			f.awaiting--
			f.stmts++
			depth -= f.exprs
			f.exprs = 0
		case v == "OTHERWISE" && f.awaiting > 0:
			// A conditional expression: its else part nests inside it.
			f.awaiting--
			f.exprs++
		case v == "THEN" || v == ".":
			// The next statement of a chain, or of the program.
			depth -= f.depth()
			*f = nestFrame{}
		case v == "," || v == "OTHERWISE" || v == "WHILE":
			depth -= f.exprs
			f.exprs = 0
		case nestingOperators[v]:
			f.exprs++
			depth++
		}
		if depth > MaxNesting {
			sp := lang.Span{Start: toLangPos(tok.Pos), End: res.end(i)}
			return &lang.Diagnostic{
				Pos: sp.Start, End: sp.End, Severity: lang.Error,
				Text: lang.SourceText(src, sp),
				Msg:  fmt.Sprintf("the program nests more than %d levels deep here", MaxNesting),
				Hint: "every parenthesis, brace, loop, condition and operator in one expression is a level; " +
					"flatten the program: name parts of a long expression with LET, or join statements with THEN instead of nesting them",
			}
		}
	}
	return nil
}
