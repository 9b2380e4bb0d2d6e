package interp

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMatchQueueOrder checks matchQueue against the plain list it
// replaces: take returns the oldest entry with the key, whatever the
// pattern of pushes and takes.
func TestMatchQueueOrder(t *testing.T) {
	type entry struct{ src, tag int32 }
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var q matchQueue
		var keys []entry // by id
		var ref []int32  // live ids, in order
		key := func(id int32) (int32, int32) { return keys[id].src, keys[id].tag }
		n := int32(1 + round%5) // few sources: long runs of one key; many: takes from the middle
		for range 2000 {
			e := entry{rng.Int32N(n), rng.Int32N(2)}
			if rng.IntN(3) > 0 {
				id := int32(len(keys))
				keys = append(keys, e)
				q.push(id)
				ref = append(ref, id)
				continue
			}
			want := int32(-1)
			if i := slices.IndexFunc(ref, func(id int32) bool { return keys[id] == e }); i >= 0 {
				want = ref[i]
				ref = slices.Delete(ref, i, i+1)
			}
			if got := q.take(e.src, e.tag, key); got != want {
				t.Fatalf("round %d: take(%d, %d) = %d, want %d", round, e.src, e.tag, got, want)
			}
			if q.len() != len(ref) {
				t.Fatalf("round %d: len %d, want %d", round, q.len(), len(ref))
			}
		}
		var ids []int32
		q.each(func(id int32) { ids = append(ids, id) })
		if !slices.Equal(ids, ref) {
			t.Fatalf("round %d: queue holds %v, want %v", round, ids, ref)
		}
	}
}
