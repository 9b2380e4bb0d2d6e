package interp

import (
	"slices"

	"github.com/parley-hpc/parley/ir"
)

// patternCache keeps who-sends-to-whom and collective groups per statement
// and per binding of the variables they read. Every task running a
// statement with the same bindings sees the same pattern, so it is
// computed once, not once per task: that is what keeps a million-task run
// from costing a million squared.
type patternCache struct {
	// slots, by statement ID and phase, lists the variables the
	// statement's pattern of that phase depends on: the same for every
	// task, worked out once.
	slots     [][maxPhases]*slotInfo
	inverses  map[patKey]*inverse
	groups    map[patKey]*group
	order     []patKey // insertion order, for eviction
	receivers map[int]bool
	// last, by statement ID, is the inverse the statement last used:
	// every task of an SPMD statement asks for the same one, and comparing
	// keys is cheaper than hashing them.
	last []lastInverse
}

// maxPatterns bounds the cache; an evicted pattern is simply rebuilt.
const maxPatterns = 256

// maxKeySlots is the most variables a cacheable pattern may depend on.
const maxKeySlots = 6

// maxPhases bounds the phase that tells apart the patterns of one
// statement (a reduction to other tasks has three).
const maxPhases = 3

// slotInfo lists the variables a statement's pattern depends on.
type slotInfo struct {
	slots     []int
	cacheable bool
}

type patKey struct {
	stmt  int32
	phase int16
	n     int8
	vals  [maxKeySlots]int64
	extra int64
}

// lastInverse is an inverse with the key it was found under.
type lastInverse struct {
	key patKey
	p   *inverse
}

// init readies the cache for a program of nstmts statements.
func (c *patternCache) init(nstmts int) {
	c.slots = make([][maxPhases]*slotInfo, nstmts)
	c.inverses = map[patKey]*inverse{}
	c.groups = map[patKey]*group{}
	c.receivers = map[int]bool{}
	c.last = make([]lastInverse, nstmts)
}

// key computes the cache key of a pattern of statement st (phase, below
// maxPhases, tells apart several patterns of one statement) built from
// sets a and b; ok is false when the pattern may differ between tasks and
// must not be shared.
func (c *patternCache) key(t *task, st ir.Stmt, phase int, a, b *ir.TaskSet, extra []int64) (patKey, bool) {
	info := c.slots[st.ID()][phase]
	if info == nil {
		info = dependsOn(a, b)
		c.slots[st.ID()][phase] = info
	}
	if !info.cacheable || len(extra) > 1 {
		return patKey{}, false
	}
	k := patKey{stmt: int32(st.ID()), phase: int16(phase), n: int8(len(info.slots)), extra: -1}
	if len(info.slots) > 0 {
		slots := t.slots()
		for i, sl := range info.slots {
			k.vals[i] = slots[sl]
		}
	}
	if len(extra) == 1 {
		k.extra = extra[0]
	}
	return k, true
}

// inverse returns the inverse cached under key k, or nil.
func (c *patternCache) inverse(k patKey) *inverse {
	last := &c.last[k.stmt]
	if last.p != nil && last.key == k {
		return last.p
	}
	p := c.inverses[k]
	if p != nil {
		*last = lastInverse{k, p}
	}
	return p
}

// fixed returns the inverse statement id last used if its pattern depends
// on no variable: that one then serves every task, and finding it needs no
// key. Otherwise it returns nil.
func (c *patternCache) fixed(id int) *inverse {
	if last := &c.last[id]; last.p != nil && last.key.n == 0 && last.key.extra == -1 {
		return last.p
	}
	return nil
}

// dependsOn finds the variables sets a and b read, leaving out the ones
// they bind themselves.
func dependsOn(a, b *ir.TaskSet) *slotInfo {
	slots, dynamic := ir.Uses(a, b)
	bound := map[int]bool{}
	for _, s := range []*ir.TaskSet{a, b} {
		for ; s != nil; s = s.Group {
			bound[s.Slot] = true
		}
	}
	slots = slices.DeleteFunc(slots, func(s int) bool { return bound[s] })
	return &slotInfo{slots: slots, cacheable: !dynamic && len(slots) <= maxKeySlots}
}

func (c *patternCache) putInverse(k patKey, p *inverse) {
	c.evict()
	c.inverses[k] = p
	c.last[k.stmt] = lastInverse{k, p}
	c.order = append(c.order, k)
}

func (c *patternCache) putGroup(k patKey, g *group) {
	c.evict()
	c.groups[k] = g
	c.order = append(c.order, k)
}

func (c *patternCache) evict() {
	for len(c.order) >= maxPatterns {
		k := c.order[0]
		c.order = c.order[1:]
		delete(c.inverses, k)
		delete(c.groups, k)
	}
}

// receiverFirst reports whether a RECEIVE's senders are described in terms
// of the receivers' variable (ALL TASKS dst RECEIVE ... FROM TASK dst+1),
// so that each receiver finds its senders directly.
func (c *patternCache) receiverFirst(st *ir.Receive) bool {
	if v, ok := c.receivers[st.ID()]; ok {
		return v
	}
	v := false
	if st.Receivers.Slot >= 0 {
		slots, _ := ir.Uses(st.Senders)
		v = slices.Contains(slots, st.Receivers.Slot)
	}
	c.receivers[st.ID()] = v
	return v
}
