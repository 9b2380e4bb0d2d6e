package ir

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/parley-hpc/parley/lang"
)

// Globals holds what every task of a run shares: the number of tasks, the
// parameter values and the machine's data sizes.
type Globals struct {
	NumTasks int64
	Params   []int64 // values, indexed like Program.Params
	IntSize  int64   // bytes in an INTEGER (the C backend's sizeof(int))
	PageSize int64   // bytes in a PAGE
	Seed     uint64  // seeds the random functions
	Files    *FileCache
}

// Counter names a predeclared per-task counter.
type Counter int

// The predeclared counters. num_tasks is not one: it is a global.
const (
	ElapsedUsecs Counter = iota
	BytesSent
	BytesReceived
	TotalBytes
	MsgsSent
	MsgsReceived
	TotalMsgs
	BitErrors
	numCounters
)

var counterNames = [...]string{
	ElapsedUsecs: lang.VarElapsedUsecs, BytesSent: lang.VarBytesSent,
	BytesReceived: lang.VarBytesReceived, TotalBytes: lang.VarTotalBytes,
	MsgsSent: lang.VarMsgsSent, MsgsReceived: lang.VarMsgsReceived,
	TotalMsgs: lang.VarTotalMsgs, BitErrors: lang.VarBitErrors,
}

func (c Counter) String() string { return counterNames[c] }

// CounterSource supplies a task's counter values. Elapsed time may have a
// fraction (predicted time is not whole microseconds); integer contexts
// truncate it.
type CounterSource interface {
	Counter(c Counter) float64
}

// ProcMap is the task-to-processor mapping that ARE ASSIGNED TO changes.
type ProcMap interface {
	ProcessorOf(task int64) int64
	TaskOf(proc int64) int64
}

// Frame is one task's state as seen by expressions: its variable slots, its
// own task number, its counters and its random-number streams. A frame need
// not live as long as its task: an owner that fills a frame afresh for each
// evaluation (the interpreter does, so that a million tasks hold none) keeps
// Streams and hands the same pointer back each time.
type Frame struct {
	G        *Globals
	Slots    []int64
	Task     int64         // this task's number (MY TASK)
	Counters CounterSource // nil: all zero
	Procs    ProcMap       // nil: the identity mapping
	Streams  *Streams      // nil until the first draw makes it
}

// Streams are a task's random-number streams, each made on its first draw.
type Streams struct {
	rng, sync *rand.Rand
}

// NewFrame returns a frame for task with the program's slots.
func NewFrame(g *Globals, p *Program, task int64) *Frame {
	return &Frame{G: g, Slots: make([]int64, p.NumSlots), Task: task}
}

// Clone returns a copy of f with slots of its own, for evaluating with other
// bindings. It shares the streams f has drawn from, and a stream f has not
// drawn from yet starts afresh in the copy without affecting f's.
func (f *Frame) Clone() *Frame {
	c := *f
	c.Slots = slices.Clone(f.Slots)
	if f.Streams != nil {
		st := *f.Streams
		c.Streams = &st
	}
	return &c
}

func (f *Frame) streams() *Streams {
	if f.Streams == nil {
		f.Streams = &Streams{}
	}
	return f.Streams
}

// Rand is the task's own random stream (RANDOM_UNIFORM and its kin): it
// differs between tasks, as coNCePTuaL's unsynchronized generator does.
func (f *Frame) Rand() *rand.Rand {
	st := f.streams()
	if st.rng == nil {
		st.rng = rand.New(rand.NewPCG(f.G.Seed, uint64(f.Task)*0x9e3779b97f4a7c15+1))
	}
	return st.rng
}

// SyncRand is the stream behind A RANDOM TASK. Every task starts it from the
// same seed and draws from it in the same order, so all tasks agree.
func (f *Frame) SyncRand() *rand.Rand {
	st := f.streams()
	if st.sync == nil {
		st.sync = rand.New(rand.NewPCG(f.G.Seed, 0x5eed))
	}
	return st.sync
}

// RuntimeError is an error found while evaluating: a division by zero, a
// function outside its domain, a failed progression. It carries the source
// position of the expression at fault.
type RuntimeError struct {
	Span lang.Span
	Msg  string
}

func (e *RuntimeError) Error() string {
	return fmt.Sprintf("%s: runtime error: %s", e.Span.Start, e.Msg)
}

// fail aborts evaluation; Catch turns the panic back into an error.
func fail(sp lang.Span, format string, args ...any) {
	panic(&RuntimeError{Span: sp, Msg: fmt.Sprintf(format, args...)})
}

// Catch runs f and returns the RuntimeError it raised, if any. Evaluation
// reports errors by panicking with *RuntimeError so that hot paths need not
// thread errors through every node; Catch is where they become values.
func Catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			var re *RuntimeError
			if e, ok := r.(error); ok && errors.As(e, &re) {
				err = re
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}

// EvalInt evaluates e in integer context, returning runtime errors.
func EvalInt(e Expr, f *Frame) (v int64, err error) {
	err = Catch(func() { v = e.Int(f) })
	return v, err
}

// EvalFloat evaluates e in floating-point context, returning runtime errors.
func EvalFloat(e Expr, f *Frame) (v float64, err error) {
	err = Catch(func() { v = e.Float(f) })
	return v, err
}
