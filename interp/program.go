package interp

import "github.com/parley-hpc/parley/ir"

// opcode is an instruction of the flat code every task walks.
type opcode uint8

const (
	opSimple     opcode = iota // execute stmt, a simple statement
	opTable                    // a new top-level statement: a new log table
	opRepeat                   // push a FOR n REPETITIONS frame
	opRepeatNext               // next repetition (warmup, the synchronization, then the counted ones) or leave
	opTimed                    // push a FOR n TIME frame
	opTimedNext                // next timed iteration, after agreeing on the count, or leave
	opEach                     // push a FOR EACH frame
	opEachNext                 // bind the next value or leave
	opLet                      // bind LET values
	opIf                       // evaluate the condition; jump to target if false
	opJump                     // jump to target
	opEnd                      // the program is done
)

// instr is one instruction. Loops push a frame on entry and their Next
// instruction pops it on exit and jumps past the loop.
type instr struct {
	op     opcode
	ff     bool // a loop fast-forward may skip: tasks park at its Next (see fastforward.go)
	target int32
	stmt   ir.Stmt
	table  int32 // the log table of the top-level statement the instruction is in
}

// compile flattens a resolved program into instructions, and indexes its
// statements by ID.
func compile(p *ir.Program) ([]instr, []ir.Stmt) {
	c := &compiler{stmts: make([]ir.Stmt, p.NumStmts)}
	for _, top := range p.Body {
		start := len(c.code)
		c.emit(instr{op: opTable})
		for _, s := range top.Stmts {
			c.stmt(s)
		}
		for i := start; i < len(c.code); i++ {
			c.code[i].table = int32(top.Index)
		}
	}
	c.emit(instr{op: opEnd})
	return c.code, c.stmts
}

type compiler struct {
	code  []instr
	stmts []ir.Stmt
}

func (c *compiler) emit(in instr) int32 {
	c.code = append(c.code, in)
	return int32(len(c.code) - 1)
}

// loop emits head (a push), then next, the body and a jump back to next;
// next's target is the instruction after the loop.
func (c *compiler) loop(head, next opcode, s ir.Stmt, body ir.Stmt) {
	c.emit(instr{op: head, stmt: s})
	top := c.emit(instr{op: next, stmt: s})
	c.stmt(body)
	c.emit(instr{op: opJump, target: top})
	c.code[top].target = int32(len(c.code))
}

func (c *compiler) stmt(s ir.Stmt) {
	if id := s.ID(); id >= 0 && id < len(c.stmts) {
		c.stmts[id] = s
	}
	switch s := s.(type) {
	case *ir.Block:
		for _, x := range s.Stmts {
			c.stmt(x)
		}
	case *ir.Repeat:
		c.loop(opRepeat, opRepeatNext, s, s.Body)
	case *ir.Timed:
		c.loop(opTimed, opTimedNext, s, s.Body)
	case *ir.ForEach:
		c.loop(opEach, opEachNext, s, s.Body)
	case *ir.Let:
		c.emit(instr{op: opLet, stmt: s})
		c.stmt(s.Body)
	case *ir.If:
		test := c.emit(instr{op: opIf, stmt: s})
		c.stmt(s.Then)
		if s.Else == nil {
			c.code[test].target = int32(len(c.code))
			return
		}
		skip := c.emit(instr{op: opJump})
		c.code[test].target = int32(len(c.code))
		c.stmt(s.Else)
		c.code[skip].target = int32(len(c.code))
	default:
		c.emit(instr{op: opSimple, stmt: s})
	}
}
