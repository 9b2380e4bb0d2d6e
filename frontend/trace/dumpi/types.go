package dumpi

import (
	"fmt"
	"strconv"
)

// predefined is dumpi's numbering of the predefined datatypes
// (dumpi_native_datatypes in dumpi/common/constants.h, named by
// dumpi_get_datatype_name in dumpi/common/constants.c) with the sizes
// MPI_Type_size reports for them on LP64 Linux. A trace's own size table
// (dumpi2ascii -X) overrides these sizes.
var predefined = [...]struct {
	name string
	size int64
}{
	{"MPI_DATATYPE_ERROR", 0},
	{"MPI_DATATYPE_NULL", 0},
	{"MPI_CHAR", 1},
	{"MPI_SIGNED_CHAR", 1},
	{"MPI_UNSIGNED_CHAR", 1},
	{"MPI_BYTE", 1},
	{"MPI_WCHAR", 4},
	{"MPI_SHORT", 2},
	{"MPI_UNSIGNED_SHORT", 2},
	{"MPI_INT", 4},
	{"MPI_UNSIGNED", 4},
	{"MPI_LONG", 8},
	{"MPI_UNSIGNED_LONG", 8},
	{"MPI_FLOAT", 4},
	{"MPI_DOUBLE", 8},
	{"MPI_LONG_DOUBLE", 16},
	{"MPI_LONG_LONG_INT", 8},
	{"MPI_UNSIGNED_LONG_LONG", 8},
	{"MPI_LONG_LONG", 8},
	{"MPI_PACKED", 1},
	{"MPI_LB", 0},
	{"MPI_UB", 0},
	{"MPI_FLOAT_INT", 8},
	{"MPI_DOUBLE_INT", 12},
	{"MPI_LONG_INT", 12},
	{"MPI_SHORT_INT", 6},
	{"MPI_2INT", 8},
	{"MPI_LONG_DOUBLE_INT", 20},
}

// firstUserType is DUMPI_FIRST_USER_DATATYPE: user datatypes are numbered
// from here, and dumpi2ascii names them "user-defined-datatype".
const firstUserType = len(predefined)

const userTypeName = "user-defined-datatype"

// maxTypeSize bounds a derived datatype's size (1 TiB).
const maxTypeSize = 1 << 40

// typeSize is what a rank knows of one user datatype: its size, or why
// it is unknown.
type typeSize struct {
	size int64
	why  string // set when the size is unknown
}

// types tracks one rank's datatypes.
type types struct {
	user  map[int64]typeSize   // user datatypes by dumpi number
	table map[int]sizeEntry    // the trace's size table, by number
	named map[string]sizeEntry // the same, predefined types by name
}

func newTypes(table map[int]sizeEntry) *types {
	t := &types{user: map[int64]typeSize{}, table: table, named: map[string]sizeEntry{}}
	for _, e := range table {
		if e.name != userTypeName {
			t.named[e.name] = e
		}
	}
	return t
}

// size returns the size of the datatype printed as "num (label)"; label
// is empty in arrays of datatypes, which print numbers only.
func (t *types) size(num int64, label string) (int64, error) {
	if label == "" {
		if num >= 0 && num < int64(firstUserType) {
			label = predefined[num].name
		} else {
			label = userTypeName
		}
	}
	if label != userTypeName {
		if e, ok := t.named[label]; ok && e.size > 0 {
			return e.size, nil
		}
		for _, p := range predefined {
			if p.name == label {
				return p.size, nil
			}
		}
		if e, ok := t.table[int(num)]; ok && num < maxArray && e.name == label {
			return e.size, nil
		}
		return 0, fmt.Errorf("datatype %d (%s) is not one of dumpi's predefined datatypes and the trace has no size for it", num, label)
	}
	if s, ok := t.user[num]; ok {
		if s.why != "" {
			return 0, fmt.Errorf("datatype %d (%s) has no known size: %s", num, label, s.why)
		}
		return s.size, nil
	}
	if e, ok := t.table[int(num)]; ok && num < maxArray && e.size > 0 {
		return e.size, nil
	}
	return 0, fmt.Errorf("datatype %d (%s) has no known size: no MPI_Type_contiguous, MPI_Type_vector or other constructor in the trace creates it, and the trace has no size table (dumpi2ascii -X)", num, label)
}

// define records the size of user datatype num: the sum of its parts.
func (t *types) define(num int64, parts []typePart) {
	var total int64
	for _, p := range parts {
		s, err := t.size(p.num, p.label)
		if err != nil {
			t.user[num] = typeSize{why: "it is built from another: " + err.Error()}
			return
		}
		if p.factor < 0 || s > 0 && p.factor > maxTypeSize/s {
			t.user[num] = typeSize{why: "its size exceeds " + strconv.Itoa(maxTypeSize) + " bytes"}
			return
		}
		total += p.factor * s
		if total > maxTypeSize {
			t.user[num] = typeSize{why: "its size exceeds " + strconv.Itoa(maxTypeSize) + " bytes"}
			return
		}
	}
	t.user[num] = typeSize{size: total}
}

// typePart is factor elements of the datatype num (label).
type typePart struct {
	factor int64
	num    int64
	label  string
}

// record follows a datatype call; it reports whether c is one.
func (t *types) record(c call) (bool, error) {
	var (
		parts []typePart
		err   error
	)
	switch c.name {
	case "MPI_Type_contiguous":
		parts, err = oneOld(c, "count")
	case "MPI_Type_vector", "MPI_Type_hvector", "MPI_Type_create_hvector", "MPI_Type_create_indexed_block":
		parts, err = oneOld(c, "count", "blocklength")
	case "MPI_Type_indexed", "MPI_Type_hindexed":
		parts, err = summedOld(c, "lengths")
	case "MPI_Type_create_hindexed":
		parts, err = summedOld(c, "blocklengths")
	case "MPI_Type_struct":
		parts, err = structParts(c, "lengths")
	case "MPI_Type_create_struct":
		parts, err = structParts(c, "blocklengths")
	case "MPI_Type_dup", "MPI_Type_create_resized":
		parts, err = oneOld(c)
	case "MPI_Type_create_subarray":
		parts, err = subarray(c)
	case "MPI_Type_size":
		num, label, _, err := c.labelled("datatype")
		if err != nil {
			return true, err
		}
		size, err := c.count("size")
		if err != nil {
			return true, err
		}
		if label == userTypeName || label == "" && num >= int64(firstUserType) {
			t.user[num] = typeSize{size: size}
		}
		return true, nil
	case "MPI_Type_create_darray", "MPI_Type_create_f90_real", "MPI_Type_create_f90_complex", "MPI_Type_create_f90_integer":
		if !c.has("newtype") {
			return true, nil
		}
		num, _, _, err := c.labelled("newtype")
		if err != nil {
			return true, err
		}
		t.user[num] = typeSize{why: "it is made by " + c.name + ", whose size this reader does not compute (an MPI_Type_size call on it would give it)"}
		return true, nil
	default:
		return false, nil
	}
	if err == nil {
		err = c.wellFormed()
	}
	if err != nil {
		return true, err
	}
	num, _, _, err := c.labelled("newtype")
	if err != nil {
		return true, err
	}
	t.define(num, parts)
	return true, nil
}

// oneOld reads the product of the count parameters times oldtype.
func oneOld(c call, factors ...string) ([]typePart, error) {
	f := int64(1)
	for _, name := range factors {
		v, err := c.count(name)
		if err != nil {
			return nil, err
		}
		f = satMul(f, v)
	}
	num, label, _, err := c.labelled("oldtype")
	if err != nil {
		return nil, err
	}
	return []typePart{{f, num, label}}, nil
}

// summedOld reads count block lengths of oldtype.
func summedOld(c call, lengths string) ([]typePart, error) {
	n, err := c.count("count")
	if err != nil {
		return nil, err
	}
	ls, p, err := c.ints(lengths, int(min(n, maxArray+1)))
	if err != nil {
		return nil, err
	}
	var f int64
	for _, l := range ls {
		if l < 0 {
			return nil, c.errorf(p, "%s holds the negative block length %d", lengths, l)
		}
		f = satAdd(f, l)
	}
	num, label, _, err := c.labelled("oldtype")
	if err != nil {
		return nil, err
	}
	return []typePart{{f, num, label}}, nil
}

// structParts reads count blocks of oldtypes[i].
func structParts(c call, lengths string) ([]typePart, error) {
	n, err := c.count("count")
	if err != nil {
		return nil, err
	}
	want := int(min(n, maxArray+1))
	ls, p, err := c.ints(lengths, want)
	if err != nil {
		return nil, err
	}
	olds, _, err := c.ints("oldtypes", want)
	if err != nil {
		return nil, err
	}
	if ls == nil || olds == nil {
		return nil, c.errorf(p, "%s with count %d prints no block lengths or types: expected arrays of %d", c.name, n, n)
	}
	parts := make([]typePart, len(ls))
	for i, l := range ls {
		if l < 0 {
			return nil, c.errorf(p, "%s holds the negative block length %d", lengths, l)
		}
		parts[i] = typePart{l, olds[i], ""}
	}
	return parts, nil
}

// subarray reads the product of subsizes times oldtype.
func subarray(c call) ([]typePart, error) {
	n, err := c.count("ndims")
	if err != nil {
		return nil, err
	}
	sub, p, err := c.ints("subsizes", int(min(n, maxArray+1)))
	if err != nil {
		return nil, err
	}
	f := int64(1)
	for _, s := range sub {
		if s < 0 {
			return nil, c.errorf(p, "subsizes holds the negative size %d", s)
		}
		f = satMul(f, s)
	}
	num, label, _, err := c.labelled("oldtype")
	if err != nil {
		return nil, err
	}
	return []typePart{{f, num, label}}, nil
}

// satMul and satAdd saturate at maxTypeSize+1 so that sizes never wrap.
func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > (maxTypeSize+1)/b {
		return maxTypeSize + 1
	}
	return min(a*b, maxTypeSize+1)
}

func satAdd(a, b int64) int64 { return min(a+b, maxTypeSize+1) }
