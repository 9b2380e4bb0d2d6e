package ir_test

import (
	"math"
	"testing"

	"github.com/parley-hpc/parley/ir"
	"github.com/parley-hpc/parley/lang"
)

// refCoords and refNeighbor are MESH_NEIGHBOR as coNCePTuaL defines it,
// written the plain way (four divisions, a MOD on every torus dimension):
// the fast arithmetic in ir must agree with them everywhere.
func refCoords(dims [3]int64, task int64) ([3]int64, bool) {
	if task < 0 || task >= dims[0]*dims[1]*dims[2] {
		return [3]int64{}, false
	}
	return [3]int64{task % dims[0], task % (dims[0] * dims[1]) / dims[0], task / (dims[0] * dims[1])}, true
}

func refNeighbor(dims [3]int64, torus [3]bool, task int64, offs [3]int64) int64 {
	c, ok := refCoords(dims, task)
	if !ok {
		return -1
	}
	for i := range 3 {
		c[i] += offs[i]
		if torus[i] {
			c[i] = ((c[i] % dims[i]) + dims[i]) % dims[i]
		}
		if c[i] < 0 || c[i] >= dims[i] {
			return -1
		}
	}
	return c[2]*dims[1]*dims[0] + c[1]*dims[0] + c[0]
}

func TestMeshNeighborMatchesReference(t *testing.T) {
	var sp lang.Span
	shapes := [][3]int64{{1, 1, 1}, {4, 1, 1}, {3, 5, 1}, {2, 3, 4}, {5, 4, 3}, {7, 1, 6}}
	offsets := []int64{-9, -5, -2, -1, 0, 1, 2, 5, 9}
	checked := 0
	for _, dims := range shapes {
		size := dims[0] * dims[1] * dims[2]
		for tm := range 8 {
			torus := [3]bool{tm&1 != 0, tm&2 != 0, tm&4 != 0}
			for task := int64(-2); task < size+2; task++ {
				for _, ox := range offsets {
					for _, oy := range offsets {
						for _, oz := range offsets {
							offs := [3]int64{ox, oy, oz}
							got := ir.MeshNeighbor(sp, dims, torus, task, offs)
							if want := refNeighbor(dims, torus, task, offs); got != want {
								t.Fatalf("MeshNeighbor(%v, %v, %d, %v) = %d, want %d", dims, torus, task, offs, got, want)
							}
							checked++
						}
					}
				}
				for coord := range int64(3) {
					c, ok := refCoords(dims, task)
					want := int64(-1)
					if ok {
						want = c[coord]
					}
					if got := ir.MeshCoordinate(sp, dims, task, coord); got != want {
						t.Fatalf("MeshCoordinate(%v, %d, %d) = %d, want %d", dims, task, coord, got, want)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}

// A mesh whose plane (x times y) overflows keeps the formulas it has
// always used, whatever they give: 3 * (2**64+2)/3 wraps to 2.
func TestMeshCoordinateOverflowingPlane(t *testing.T) {
	var sp lang.Span
	dims := [3]int64{3, int64((math.MaxUint64 + 3) / 3), 1 << 40}
	size := dims[0] * dims[1] * dims[2]
	if size != 1<<41 {
		t.Fatalf("size wraps to %d, want %d", size, int64(1)<<41)
	}
	for _, task := range []int64{0, 1, 2, 3, 12345, size - 1} {
		c, _ := refCoords(dims, task)
		for coord := range int64(3) {
			if got := ir.MeshCoordinate(sp, dims, task, coord); got != c[coord] {
				t.Errorf("MeshCoordinate(%v, %d, %d) = %d, want %d", dims, task, coord, got, c[coord])
			}
		}
	}
}

// Meshes and tasks beyond 32 bits take 64-bit arithmetic; it must agree
// with the reference too.
func TestMeshNeighborWide(t *testing.T) {
	var sp lang.Span
	for _, dims := range [][3]int64{{1 << 33, 3, 2}, {5, 1 << 33, 2}, {3, 5, 1 << 40}} {
		size := dims[0] * dims[1] * dims[2]
		for _, task := range []int64{0, 1, dims[0] - 1, dims[0], dims[0] * dims[1], size/2 + 7, size - 1} {
			for _, torus := range [][3]bool{{}, {true, true, true}} {
				for _, offs := range [][3]int64{{-1, 0, 0}, {1, 1, 1}, {0, -1, 0}, {0, 0, 1}, {2, -3, 5}} {
					got := ir.MeshNeighbor(sp, dims, torus, task, offs)
					if want := refNeighbor(dims, torus, task, offs); got != want {
						t.Errorf("MeshNeighbor(%v, %v, %d, %v) = %d, want %d", dims, torus, task, offs, got, want)
					}
				}
			}
		}
	}
}
