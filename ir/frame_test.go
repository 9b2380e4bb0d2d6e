package ir_test

import (
	"testing"

	"github.com/parley-hpc/parley/ir"
)

// TestFrameClone: a clone has slots of its own, continues the streams its
// frame has drawn from (the same stream, not a copy), and starts the others
// afresh without moving the frame's.
func TestFrameClone(t *testing.T) {
	fresh := func() *ir.Frame { return &ir.Frame{G: &ir.Globals{Seed: 5}, Slots: []int64{1, 2}, Task: 3} }
	f := fresh()
	f.Rand().Uint64()
	c := f.Clone()
	c.Slots[0] = 9
	if f.Slots[0] != 1 {
		t.Errorf("the clone's slots are the frame's")
	}
	// Drawn from: shared.
	ref := fresh()
	ref.Rand().Uint64()
	ref.Rand().Uint64()
	want := ref.Rand().Uint64()
	c.Rand().Uint64()
	if got := f.Rand().Uint64(); got != want {
		t.Errorf("after a draw from the clone the frame drew %d, want %d: the stream is not shared", got, want)
	}
	// Not drawn from yet: the clone's first draw is a fresh stream's, and
	// the frame's own stream stays where it was.
	first := fresh().SyncRand().Uint64()
	if got := c.SyncRand().Uint64(); got != first {
		t.Errorf("the clone's first shared-stream draw is %d, want %d", got, first)
	}
	if got := f.SyncRand().Uint64(); got != first {
		t.Errorf("the frame's first shared-stream draw is %d, want %d: the clone moved it", got, first)
	}
}
