package netmodel

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestEventBuckets hands out events by time and then in the order they
// were pushed, and remove takes one out of its bucket, the bucket's last
// taking its place.
func TestEventBuckets(t *testing.T) {
	var q eventBuckets[int32]
	push := func(at Duration, e int32) (int32, int32) { return q.push(at, e) }
	push(30, 1)
	b, i := push(10, 2)
	push(10, 3)
	push(10, 4)
	push(20, 5)
	if moved, ok := q.remove(b, i); !ok || moved != 4 {
		t.Fatalf("remove event 2: moved %d, %v; want 4, true", moved, ok)
	}
	b5, i5 := push(40, 6)
	if moved, ok := q.remove(b5, i5); ok {
		t.Fatalf("remove the last event of a bucket moved %d", moved)
	}
	var got []int32
	var times []Duration
	for at, ok := q.first(); ok; at, ok = q.first() {
		times = append(times, at)
		got = append(got, q.front()...)
		q.discard()
	}
	if want := []int32{4, 3, 5, 1}; !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if want := []Duration{10, 20, 30, 40}; !slices.Equal(times, want) {
		t.Errorf("times %v, want %v (an emptied bucket stays until it comes first)", times, want)
	}
}

// TestFlowNextIsExact: every time Next gives, something happens at it (a
// flow starts, which refills its component, or ends), however often the
// flows' ends moved: a time whose flows all moved elsewhere is never
// given, since the simulation would wake for nothing.
func TestFlowNextIsExact(t *testing.T) {
	f := NewFlowNet(flowPlatform(starTopology(6), FlowParams{}), 1)
	rng := rand.New(rand.NewPCG(2, 3))
	sent := 0
	for {
		at, ok := f.Next()
		if !ok && sent == 200 {
			break
		}
		if sent < 200 && (!ok || rng.IntN(3) == 0) {
			src := rng.Int64N(6)
			f.Send(at, src, (src+1+rng.Int64N(5))%6, 1+rng.Int64N(1<<20), int32(sent))
			sent++
			continue
		}
		before, ended := f.Stats().Refills, 0
		f.Step(at, func(int32) { ended++ })
		if ended == 0 && f.Stats().Refills == before {
			t.Fatalf("nothing happened at %v, which Next gave", at)
		}
	}
	if st := f.Stats(); st.Messages != 200 || st.Refills < 200 {
		t.Fatalf("stats %+v: want 200 messages and a refill for each start at least", st)
	}
}

// TestEventBucketsDropEmpty: when most events have moved out of buckets of
// their own, the empty buckets are dropped and the rest still come out in
// order of time; buckets are reused.
func TestEventBucketsDropEmpty(t *testing.T) {
	var q eventBuckets[int32]
	type place struct{ b, i int32 }
	places := map[int32]place{}
	for e := range int32(200) {
		b, i := q.push(Duration(1000-e), e)
		places[e] = place{b, i}
	}
	for e := range int32(200) {
		if e%10 != 0 {
			q.remove(places[e].b, places[e].i)
		}
	}
	if len(q.heap)-q.empty != 20 || q.empty > 32 && 2*q.empty > len(q.heap) || len(q.heap) > 100 {
		t.Errorf("after 180 of 200 buckets emptied: %d in the heap, %d empty; want 20 full and the empty ones dropped", len(q.heap), q.empty)
	}
	var got []int32
	for _, ok := q.first(); ok; _, ok = q.first() {
		got = append(got, q.front()...)
		q.discard()
	}
	want := []int32{190, 180, 170, 160, 150, 140, 130, 120, 110, 100, 90, 80, 70, 60, 50, 40, 30, 20, 10, 0}
	if !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if q.empty != 0 || len(q.buckets) > 200 {
		t.Errorf("after draining: %d empty, %d buckets made", q.empty, len(q.buckets))
	}
}
