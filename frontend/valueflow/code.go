package valueflow

import (
	"fmt"
	"path/filepath"
)

// The compiled form of a module: per function a flat array of scalar
// instructions over numbered register slots, with every operand resolved
// to a slot (constants sit in slots filled when a frame is pushed), phi
// nodes turned into moves on the edges that reach them, and side tables
// for what does not fit an instruction.

// op is an instruction's operation.
type op uint8

const (
	opFail op = iota // error msgs[aux]
	opMov            // dst = a

	// Integer arithmetic; results are masked by imm (zero-extended form),
	// sh is 64 minus the width for sign extension.
	opAdd
	opSub
	opMul
	opUDiv
	opSDiv
	opURem
	opSRem
	opShl
	opLShr
	opAShr
	opAnd
	opOr
	opXor

	// Floating point, double and float.
	opFAdd
	opFSub
	opFMul
	opFDiv
	opFRem
	opFNeg
	opFAdd32
	opFSub32
	opFMul32
	opFDiv32
	opFRem32
	opFNeg32

	// Comparisons; results are i1.
	opIEq
	opINe
	opIUgt
	opIUge
	opIUlt
	opIUle
	opISgt
	opISge
	opISlt
	opISle
	opFCmp   // predicate in imm
	opFCmp32 // predicate in imm

	// Conversions.
	opTrunc // dst = a & imm
	opSExt  // sign-extend from sh, mask imm
	opFPTrunc
	opFPExt
	opFPToSI   // from double; mask imm
	opFPToSI32 // from float
	opFPToUI
	opFPToUI32
	opSIToFP // int (sh) to double
	opSIToFP32
	opUIToFP
	opUIToFP32

	opSelect // dst = c ? a : b

	// Memory; addresses are regs[a] + imm.
	opLoad8
	opLoad16
	opLoad32
	opLoad64
	opLoadN // w bytes
	opStore8
	opStore16
	opStore32
	opStore64
	opStoreN
	opAlloca // dst = new object of imm * (b < 0 ? 1 : regs[b]) bytes
	opGEP0   // dst = regs[a] + imm; like every address, untainted
	opGEP1   // dst = regs[a] + imm + sext(regs[b], sh) * c
	opGEP    // dst = regs[a] + imm + the terms geps[aux]

	// Control.
	opBr     // edge aux
	opCondBr // regs[a] ? edge aux : edge imm
	opSwitch // switches[aux]
	opRet    // return slots a..a+imm-1
	opCall   // calls[aux]
	opUnreachable
)

// inst is one scalar instruction.
type inst struct {
	op        op
	sh, w     uint8
	dst, a, b int32
	c         int32
	aux       int32
	loc       int32 // index into program.locs
	imm       int64
}

// move copies one slot along an edge (a phi).
type move struct{ dst, src int32 }

// edge is a branch to a block: where it starts, how many IR instructions
// it has, and the phi moves that entering it from this edge performs.
type edge struct {
	pc    int32
	count int32
	moves []move
	// parallel: some move reads a slot another move writes, so all are
	// read before any is written.
	parallel bool
}

// switchTable maps case values to edges.
type switchTable struct {
	def   int32
	cases map[uint64]int32
}

// gepTerm is index * scale, the index sign-extended from 64-sh bits.
type gepTerm struct {
	slot  int32
	sh    uint8
	scale int64
}

// callSite is one call: the callee (nil: through the pointer in fnSlot),
// the argument slots with their lanes, and where results go.
type callSite struct {
	callee   *function
	fnSlot   int32
	args     []int32
	argLanes []lane
	dst      int32 // first result slot; -1: none
	rets     []lane
	loc      int32
}

// function is a compiled function, or an external the machine provides.
type function struct {
	name    string
	addr    uint64 // its address, for function pointers
	code    []inst
	nregs   int32
	params  []lane // parameter lanes, in slots 0..len-1
	rets    []lane
	consts  []constSlot
	entry   int32 // IR instructions in the entry block
	ext     external
	defined bool
	// broken, if set, is why the function could not be compiled; calling
	// it reports this.
	broken error
	loc    int32
}

// constSlot is a constant operand's slot and bits.
type constSlot struct {
	slot int32
	v    uint64
}

// srcPos is a source position from debug information, or the function
// and block when the IR has none.
type srcPos struct {
	file      string
	line, col int
	fn        string
}

func (p srcPos) String() string {
	if p.line == 0 {
		if p.file == "" {
			return "function " + p.fn
		}
		return fmt.Sprintf("%s (function %s)", p.file, p.fn)
	}
	if p.col == 0 {
		return fmt.Sprintf("%s:%d", p.file, p.line)
	}
	return fmt.Sprintf("%s:%d:%d", p.file, p.line, p.col)
}

// base is the position with the file's directory dropped.
func (p srcPos) base() srcPos {
	p.file = filepath.Base(p.file)
	return p
}

// program is a compiled module.
type program struct {
	funcs    []*function
	main     *function
	objects  []objectInit // objects 1..len: globals and functions
	locs     []srcPos     // locs[0] is unknown
	msgs     []string
	edges    []edge
	calls    []callSite
	switches []switchTable
	geps     [][]gepTerm
	// std are the addresses of the external globals stdin, stdout and
	// stderr (0 when the module does not use them).
	stdout, stderr uint64
}

// objectInit is a global's or function's object as the program starts.
type objectInit struct {
	name string
	data []byte
	fn   *function
}
