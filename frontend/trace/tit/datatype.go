package tit

// datatypeSizes maps SimGrid's datatype ids (simgrid::smpi::Datatype::
// encode and decode, src/smpi/mpi/smpi_datatype.cpp) to their sizes in
// bytes on LP64, for the current form. Ids 0-50 are the same since SimGrid
// 3.20; 51-59 are those of 3.22 and later. MPI_DATATYPE_NULL (-1), MPI_UB
// (55) and MPI_LB (56) have no size and are refused.
var datatypeSizes = map[int]int64{
	0:  8,  // MPI_DOUBLE
	1:  4,  // MPI_INT
	2:  1,  // MPI_CHAR
	3:  2,  // MPI_SHORT
	4:  8,  // MPI_LONG
	5:  4,  // MPI_FLOAT
	6:  1,  // MPI_BYTE
	7:  8,  // MPI_LONG_LONG
	8:  1,  // MPI_SIGNED_CHAR
	9:  1,  // MPI_UNSIGNED_CHAR
	10: 2,  // MPI_UNSIGNED_SHORT
	11: 4,  // MPI_UNSIGNED
	12: 8,  // MPI_UNSIGNED_LONG
	13: 8,  // MPI_UNSIGNED_LONG_LONG
	14: 16, // MPI_LONG_DOUBLE
	15: 4,  // MPI_WCHAR
	16: 1,  // MPI_C_BOOL
	17: 1,  // MPI_INT8_T
	18: 2,  // MPI_INT16_T
	19: 4,  // MPI_INT32_T
	20: 8,  // MPI_INT64_T
	21: 1,  // MPI_UINT8_T
	22: 2,  // MPI_UINT16_T
	23: 4,  // MPI_UINT32_T
	24: 8,  // MPI_UINT64_T
	25: 8,  // MPI_C_FLOAT_COMPLEX
	26: 16, // MPI_C_DOUBLE_COMPLEX
	27: 32, // MPI_C_LONG_DOUBLE_COMPLEX
	28: 8,  // MPI_AINT
	29: 8,  // MPI_OFFSET
	30: 8,  // MPI_FLOAT_INT
	31: 16, // MPI_LONG_INT
	32: 16, // MPI_DOUBLE_INT
	33: 8,  // MPI_SHORT_INT
	34: 8,  // MPI_2INT
	35: 8,  // MPI_2FLOAT
	36: 16, // MPI_2DOUBLE
	37: 16, // MPI_2LONG
	38: 4,  // MPI_REAL
	39: 4,  // MPI_REAL4
	40: 8,  // MPI_REAL8
	41: 16, // MPI_REAL16
	42: 8,  // MPI_COMPLEX8
	43: 16, // MPI_COMPLEX16
	44: 16, // MPI_COMPLEX32 (SimGrid gives it two doubles)
	45: 4,  // MPI_INTEGER1 (SimGrid gives it a C int)
	46: 2,  // MPI_INTEGER2
	47: 4,  // MPI_INTEGER4
	48: 8,  // MPI_INTEGER8
	49: 16, // MPI_INTEGER16
	50: 32, // MPI_LONG_DOUBLE_INT
	51: 1,  // MPI_CXX_BOOL
	52: 8,  // MPI_CXX_FLOAT_COMPLEX
	53: 16, // MPI_CXX_DOUBLE_COMPLEX
	54: 32, // MPI_CXX_LONG_DOUBLE_COMPLEX
	57: 1,  // MPI_PACKED
	58: 8,  // MPI_PTR
	59: 8,  // MPI_COUNT
}

// oldDatatypeSizes are the ids SimGrid's replay decoded before 3.20
// (decode_datatype in smpi_replay.cpp): any other number meant the
// default datatype.
var oldDatatypeSizes = map[int]int64{
	0: 8, // MPI_DOUBLE
	1: 4, // MPI_INT
	2: 1, // MPI_CHAR
	3: 2, // MPI_SHORT
	4: 8, // MPI_LONG
	5: 4, // MPI_FLOAT
	6: 1, // MPI_BYTE
}

// Default datatypes: an "init" line without argument leaves MPI_BYTE
// (TAU's traces), one with an argument, whatever it is, selects MPI_DOUBLE
// (MPE's traces), as InitAction does.
const (
	byteSize   = 1
	doubleSize = 8
)

// datatypeSize returns the size of the datatype written as f, in the
// given form, or an error naming what was expected.
func (p *parser) datatypeSize(l line, i int, usage string) (int64, error) {
	f := l.Fields[i]
	id, ok := parseInt32(f.Text)
	if !ok {
		return 0, p.errorf(l, i, "%s is not a datatype id; expected %s with DATATYPE a number (0 MPI_DOUBLE, 1 MPI_INT, 2 MPI_CHAR, 3 MPI_SHORT, 4 MPI_LONG, 5 MPI_FLOAT, 6 MPI_BYTE, ...)", quote(f.Text), usage)
	}
	if p.form == oldForm {
		if size, ok := oldDatatypeSizes[id]; ok {
			return size, nil
		}
		return p.cur.typeSize, nil
	}
	size, ok := datatypeSizes[id]
	if !ok {
		return 0, p.errorf(l, i, "datatype id %d is not one of SimGrid's predefined datatypes (0-59 but for 55 and 56); expected %s", id, usage)
	}
	return size, nil
}
