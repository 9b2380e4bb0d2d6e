package valueflow

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
)

// Constants: in registers as lanes of bits, in memory as the bytes of a
// global's initial value.

// putUint writes the low n bytes of v at off, little endian.
func putUint(b []byte, off, n int64, v uint64) {
	switch n {
	case 1:
		b[off] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b[off:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b[off:], uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(b[off:], v)
	default:
		for i := int64(0); i < n; i++ {
			b[off+i] = byte(v >> (8 * i))
		}
	}
}

// getUint reads n bytes at off, little endian.
func getUint(b []byte, off, n uint64) uint64 {
	switch n {
	case 1:
		return uint64(b[off])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b[off:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b[off:]))
	case 8:
		return binary.LittleEndian.Uint64(b[off:])
	}
	var v uint64
	for i := uint64(0); i < n; i++ {
		v |= uint64(b[off+i]) << (8 * i)
	}
	return v
}

// bigBits is the two's complement of x in 64 bits.
func bigBits(x *big.Int) uint64 {
	if x.Sign() >= 0 {
		return new(big.Int).And(x, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	}
	return uint64(x.Int64())
}

// floatBits is the bit pattern of a floating-point constant in its lane.
func floatBits(f *constant.Float) (uint64, error) {
	x := math.NaN()
	if !f.NaN {
		x, _ = f.X.Float64()
	}
	switch f.Typ.Kind {
	case types.FloatKindDouble:
		return math.Float64bits(x), nil
	case types.FloatKindFloat:
		return uint64(math.Float32bits(float32(x))), nil
	}
	return 0, unsupported("the floating-point type %s", f.Typ.Kind)
}

// constLanes evaluates a constant into its register lanes.
func (c *compiler) constLanes(k constant.Constant) ([]uint64, error) {
	switch k := k.(type) {
	case *constant.Null, *constant.ZeroInitializer, *constant.Undef, *constant.Poison:
		n := laneCount(k.Type())
		if n == 0 {
			if _, err := lanesOf(k.Type()); err != nil {
				return nil, err
			}
		}
		return make([]uint64, n), nil
	case *constant.Vector:
		return c.constElems(k.Elems)
	case *constant.Array:
		return c.constElems(k.Elems)
	case *constant.Struct:
		return c.constElems(k.Fields)
	case *constant.CharArray:
		out := make([]uint64, len(k.X))
		for i, b := range k.X {
			out[i] = uint64(b)
		}
		return out, nil
	}
	v, err := c.constScalar(k)
	if err != nil {
		return nil, err
	}
	return []uint64{v}, nil
}

func (c *compiler) constElems(elems []constant.Constant) ([]uint64, error) {
	var out []uint64
	for _, e := range elems {
		ls, err := c.constLanes(e)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
		if len(out) > maxLanes {
			return nil, unsupported("a constant of more than %d scalars in registers", maxLanes)
		}
	}
	return out, nil
}

// constScalar evaluates a scalar constant: a number, an address, or a
// constant expression over them.
func (c *compiler) constScalar(k constant.Constant) (uint64, error) {
	switch k := k.(type) {
	case *constant.Int:
		return bigBits(k.X) & uint64(mask(uint8(min(k.Typ.BitSize, 64)))), nil
	case *constant.Float:
		return floatBits(k)
	case *constant.Null, *constant.ZeroInitializer, *constant.Undef, *constant.Poison:
		return 0, nil
	case *constant.Index:
		return c.constScalar(k.Constant)
	case *ir.Global, *ir.Func, *ir.Alias:
		return c.addr[k], nil
	case *constant.ExprGetElementPtr:
		base, err := c.constScalar(k.Src)
		if err != nil {
			return 0, err
		}
		var sum int64
		off, err := gepOffset(k.ElemType, k.Indices, func(idx constant.Constant, scale int64) error {
			v, err := c.constScalar(idx)
			if err != nil {
				return err
			}
			bits, err := intBits(unwrapIndex(idx).Type())
			if err != nil {
				return err
			}
			sum += signExtend(v, 64-bits) * scale
			return nil
		})
		if err != nil {
			return 0, err
		}
		return base + uint64(off+sum), nil
	case *constant.ExprBitCast:
		return c.constScalar(k.From)
	case *constant.ExprAddrSpaceCast:
		return c.constScalar(k.From)
	case *constant.ExprIntToPtr:
		return c.constScalar(k.From)
	case *constant.ExprPtrToInt:
		return c.constCast(k.From, k.To, false)
	case *constant.ExprTrunc:
		return c.constCast(k.From, k.To, false)
	case *constant.ExprZExt:
		return c.constCast(k.From, k.To, false)
	case *constant.ExprSExt:
		return c.constCast(k.From, k.To, true)
	case *constant.ExprAdd:
		return c.constArith(k.X, k.Y, k.Type(), func(a, b uint64) uint64 { return a + b })
	case *constant.ExprSub:
		return c.constArith(k.X, k.Y, k.Type(), func(a, b uint64) uint64 { return a - b })
	case *constant.ExprMul:
		return c.constArith(k.X, k.Y, k.Type(), func(a, b uint64) uint64 { return a * b })
	case *constant.ExprAnd:
		return c.constArith(k.X, k.Y, k.Type(), func(a, b uint64) uint64 { return a & b })
	case *constant.ExprOr:
		return c.constArith(k.X, k.Y, k.Type(), func(a, b uint64) uint64 { return a | b })
	case *constant.ExprXor:
		return c.constArith(k.X, k.Y, k.Type(), func(a, b uint64) uint64 { return a ^ b })
	case *constant.ExprICmp:
		x, err := c.constScalar(k.X)
		if err != nil {
			return 0, err
		}
		y, err := c.constScalar(k.Y)
		if err != nil {
			return 0, err
		}
		switch k.Pred {
		case enum.IPredEQ:
			return b2u(x == y), nil
		case enum.IPredNE:
			return b2u(x != y), nil
		}
	case *constant.ExprSelect:
		cond, err := c.constScalar(k.Cond)
		if err != nil {
			return 0, err
		}
		return c.constScalar(pick(cond&1 != 0, k.X, k.Y))
	}
	return 0, unsupported("the constant %s", k.Ident())
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (c *compiler) constCast(from constant.Constant, to types.Type, signed bool) (uint64, error) {
	v, err := c.constScalar(from)
	if err != nil {
		return 0, err
	}
	if signed {
		if bits, err := intBits(from.Type()); err == nil {
			v = uint64(signExtend(v, 64-bits))
		}
	}
	if it, ok := to.(*types.IntType); ok {
		v &= uint64(mask(uint8(min(it.BitSize, 64))))
	}
	return v, nil
}

func (c *compiler) constArith(x, y constant.Constant, t types.Type, f func(a, b uint64) uint64) (uint64, error) {
	a, err := c.constScalar(x)
	if err != nil {
		return 0, err
	}
	b, err := c.constScalar(y)
	if err != nil {
		return 0, err
	}
	v := f(a, b)
	if it, ok := t.(*types.IntType); ok {
		v &= uint64(mask(uint8(min(it.BitSize, 64))))
	}
	return v, nil
}

// writeConst writes a constant's memory image at the start of b. An
// image that does not fit b, in IR whose types disagree (which LLVM's
// verifier rejects and llir lets through), is an error.
func (c *compiler) writeConst(b []byte, k constant.Constant) error {
	if n := sizeOf(k.Type()); n > int64(len(b)) {
		return fmt.Errorf("the constant %s of type %s takes %d bytes where the type it initialises has %d: the IR's types disagree", k.Ident(), k.Type(), n, len(b))
	}
	switch k := k.(type) {
	case *constant.Null, *constant.ZeroInitializer, *constant.Undef, *constant.Poison:
		return nil // b is zeroed
	case *constant.CharArray:
		copy(b, k.X)
		return nil
	case *constant.Array:
		return c.writeElems(b, k, k.Elems, uint64(k.Typ.Len), sizeOf(k.Typ.ElemType))
	case *constant.Vector:
		return c.writeElems(b, k, k.Elems, uint64(k.Typ.Len), sizeOf(k.Typ.ElemType))
	case *constant.Struct:
		offs := fieldOffsets(k.Type().(*types.StructType))
		if len(k.Fields) != len(offs) {
			return fmt.Errorf("the constant %s has %d fields where its type has %d: the IR's types disagree", k.Ident(), len(k.Fields), len(offs))
		}
		for i, f := range k.Fields {
			if err := c.writeConst(b[offs[i]:], f); err != nil {
				return err
			}
		}
		return nil
	}
	ls, err := lanesOf(k.Type())
	if err != nil {
		return err
	}
	if len(ls) != 1 {
		return unsupported("the constant %s", k.Ident())
	}
	v, err := c.constScalar(k)
	if err != nil {
		return err
	}
	if ls[0].bytes() > int64(len(b)) {
		return fmt.Errorf("the constant %s takes %d bytes where its type leaves %d: the IR's types disagree", k.Ident(), ls[0].bytes(), len(b))
	}
	putUint(b, 0, ls[0].bytes(), v)
	return nil
}

// writeElems writes the elements of array or vector constant k, n of es
// bytes each by its type, at the start of b.
func (c *compiler) writeElems(b []byte, k constant.Constant, elems []constant.Constant, n uint64, es int64) error {
	if uint64(len(elems)) != n {
		return fmt.Errorf("the constant %s has %d elements where its type has %d: the IR's types disagree", k.Ident(), len(elems), n)
	}
	for i, e := range elems {
		if err := c.writeConst(b[int64(i)*es:], e); err != nil {
			return err
		}
	}
	return nil
}
