package valueflow

import (
	"fmt"

	"github.com/llir/llvm/ir/types"
)

// Types. The machine keeps every first-class value as a row of scalar
// lanes, one register slot each: an integer, a float, a double or a
// pointer. Vectors and aggregates in registers are flattened into their
// lanes when the module is compiled, so the interpreter only ever moves
// scalars. Memory follows the x86-64 data layout clang-14 targets.

// kind is the kind of a scalar lane.
type kind uint8

const (
	kInt kind = iota
	kF32
	kF64
	kPtr
)

// lane is one scalar of a flattened value: its kind, its integer width in
// bits, and its byte offset when the value is in memory.
type lane struct {
	k    kind
	bits uint8
	off  int64
}

// bytes is the lane's store size in memory.
func (l lane) bytes() int64 {
	switch l.k {
	case kF32:
		return 4
	case kF64, kPtr:
		return 8
	}
	return (int64(l.bits) + 7) / 8
}

// maxLanes bounds the lanes of one value: an aggregate this large in
// registers is not what compiled C produces.
const maxLanes = 4096

// unsupportedError is a construct the machine does not model; it becomes
// an error when the code that uses it runs.
type unsupportedError struct{ what string }

func (e *unsupportedError) Error() string { return e.what + " is not supported by the analysis" }

func unsupported(format string, a ...any) error {
	return &unsupportedError{fmt.Sprintf(format, a...)}
}

// lanesOf flattens a first-class type into its lanes.
func lanesOf(t types.Type) ([]lane, error) {
	var out []lane
	err := appendLanes(&out, t, 0)
	return out, err
}

func appendLanes(out *[]lane, t types.Type, off int64) error {
	if len(*out) > maxLanes {
		return unsupported("a value of more than %d scalars in registers", maxLanes)
	}
	switch t := t.(type) {
	case *types.IntType:
		if t.BitSize < 1 || t.BitSize > 64 {
			return unsupported("the %d-bit integer type i%d", t.BitSize, t.BitSize)
		}
		*out = append(*out, lane{k: kInt, bits: uint8(t.BitSize), off: off})
	case *types.FloatType:
		switch t.Kind {
		case types.FloatKindFloat:
			*out = append(*out, lane{k: kF32, bits: 32, off: off})
		case types.FloatKindDouble:
			*out = append(*out, lane{k: kF64, bits: 64, off: off})
		default:
			return unsupported("the floating-point type %s (long double and half precision)", t.Kind)
		}
	case *types.PointerType:
		*out = append(*out, lane{k: kPtr, bits: 64, off: off})
	case *types.VectorType:
		if it, ok := t.ElemType.(*types.IntType); ok && it.BitSize%8 != 0 {
			return unsupported("the vector type %s in memory", t)
		}
		es := sizeOf(t.ElemType)
		for i := uint64(0); i < t.Len; i++ {
			if err := appendLanes(out, t.ElemType, off+int64(i)*es); err != nil {
				return err
			}
		}
	case *types.ArrayType:
		es := sizeOf(t.ElemType)
		for i := uint64(0); i < t.Len; i++ {
			if err := appendLanes(out, t.ElemType, off+int64(i)*es); err != nil {
				return err
			}
		}
	case *types.StructType:
		offs := fieldOffsets(t)
		for i, f := range t.Fields {
			if err := appendLanes(out, f, off+offs[i]); err != nil {
				return err
			}
		}
	default:
		return unsupported("the type %s", t)
	}
	return nil
}

// laneCount is the number of lanes of t (0 if it has none we model).
func laneCount(t types.Type) int {
	ls, err := lanesOf(t)
	if err != nil {
		return 0
	}
	return len(ls)
}

// sizeOf is t's allocation size in bytes (the stride of an array of t).
func sizeOf(t types.Type) int64 {
	switch t := t.(type) {
	case *types.IntType:
		return roundUp((int64(t.BitSize)+7)/8, alignOf(t))
	case *types.FloatType:
		return floatBytes(t)
	case *types.PointerType:
		return 8
	case *types.VectorType:
		return roundUp(int64(t.Len)*sizeOf(t.ElemType), alignOf(t))
	case *types.ArrayType:
		return int64(t.Len) * sizeOf(t.ElemType)
	case *types.StructType:
		if len(t.Fields) == 0 {
			return 0
		}
		offs := fieldOffsets(t)
		last := len(t.Fields) - 1
		return roundUp(offs[last]+sizeOf(t.Fields[last]), alignOf(t))
	}
	return 0
}

// floatBytes is a floating-point type's size, which is also its
// alignment: 16 for x86_fp80 and the 128-bit kinds.
func floatBytes(t *types.FloatType) int64 {
	switch t.Kind {
	case types.FloatKindHalf:
		return 2
	case types.FloatKindFloat:
		return 4
	case types.FloatKindDouble:
		return 8
	}
	return 16
}

// alignOf is t's ABI alignment on x86-64 (LLVM 14's data layout: i128
// aligns to 8 there).
func alignOf(t types.Type) int64 {
	switch t := t.(type) {
	case *types.IntType:
		switch {
		case t.BitSize <= 8:
			return 1
		case t.BitSize <= 16:
			return 2
		case t.BitSize <= 32:
			return 4
		}
		return 8
	case *types.FloatType:
		return floatBytes(t)
	case *types.PointerType:
		return 8
	case *types.VectorType:
		n := int64(1)
		for n < int64(t.Len)*sizeOf(t.ElemType) {
			n *= 2
		}
		return n
	case *types.ArrayType:
		return alignOf(t.ElemType)
	case *types.StructType:
		if t.Packed {
			return 1
		}
		a := int64(1)
		for _, f := range t.Fields {
			a = max(a, alignOf(f))
		}
		return a
	}
	return 1
}

// fieldOffsets are the byte offsets of a struct's fields.
func fieldOffsets(t *types.StructType) []int64 {
	offs := make([]int64, len(t.Fields))
	var off int64
	for i, f := range t.Fields {
		if !t.Packed {
			off = roundUp(off, alignOf(f))
		}
		offs[i] = off
		off += sizeOf(f)
	}
	return offs
}

func roundUp(n, a int64) int64 {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}

// subLanes returns the first lane index and the lane count of the element
// at the index path idx inside an aggregate of type t (extractvalue and
// insertvalue).
func subLanes(t types.Type, idx []uint64) (first, n int, elem types.Type, err error) {
	for _, i := range idx {
		switch at := t.(type) {
		case *types.StructType:
			if i >= uint64(len(at.Fields)) {
				return 0, 0, nil, unsupported("index %d into %s", i, t)
			}
			for _, f := range at.Fields[:i] {
				first += laneCount(f)
			}
			t = at.Fields[i]
		case *types.ArrayType:
			if i >= at.Len {
				return 0, 0, nil, unsupported("index %d into %s", i, t)
			}
			first += int(i) * laneCount(at.ElemType)
			t = at.ElemType
		default:
			return 0, 0, nil, unsupported("an aggregate index into %s", t)
		}
	}
	return first, laneCount(t), t, nil
}
