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

// TestTakePosted checks takePosted, which tries the oldest posted receive
// before searching, against take: the same receive, the same queue after,
// whether the one wanted is first, further back, or absent.
func TestTakePosted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var s Sim
	var p, ref p2pState
	for round := range 3000 {
		if rng.IntN(2) == 0 {
			id, _ := s.reqs.alloc()
			r := s.reqs.at(id)
			r.src, r.tag = rng.Int32N(3), rng.Int32N(2)
			p.posted.push(id)
			ref.posted.push(id)
			continue
		}
		src, tag := rng.Int32N(3), rng.Int32N(2)
		want := ref.posted.take(src, tag, s.reqKey)
		if got := s.takePosted(&p, src, tag); got != want {
			t.Fatalf("round %d: takePosted(%d, %d) = %d, want %d", round, src, tag, got, want)
		}
		if !slices.Equal(p.posted, ref.posted) {
			t.Fatalf("round %d: posted %v, want %v", round, p.posted, ref.posted)
		}
	}
}

// TestSlabChunks: items stay where they are and keep what they hold as the
// slab grows past its first chunks, and a released item comes back zeroed.
func TestSlabChunks(t *testing.T) {
	var sl slab[message]
	const n = 3*slabChunk + 5
	var first *message
	for i := range n {
		id, ok := sl.alloc()
		if !ok || id != int32(i) {
			t.Fatalf("alloc %d = %d, %v", i, id, ok)
		}
		sl.at(id).bytes = int64(i)
		if i == 0 {
			first = sl.at(0)
		}
	}
	for i := range n {
		if got := sl.at(int32(i)).bytes; got != int64(i) {
			t.Fatalf("item %d holds %d", i, got)
		}
	}
	if sl.at(0) != first {
		t.Fatal("item 0 moved as the slab grew")
	}
	sl.release(slabChunk + 1)
	if id, _ := sl.alloc(); id != slabChunk+1 || sl.at(id).bytes != 0 {
		t.Fatalf("realloc gave %d holding %d, want %d zeroed", id, sl.at(id).bytes, slabChunk+1)
	}
}
