package dumpi

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/parley-hpc/parley/frontend/trace"
)

// dumpi's predefined communicator and group handles
// (dumpi_native_comms and dumpi_native_groups in dumpi/common/constants.h).
const (
	commNull   = 1
	commWorld  = 2
	commSelf   = 3
	groupNull  = 1
	groupEmpty = 2
)

// opKind is what a communicator or group call does.
type opKind uint8

const (
	// Local calls: each rank evaluates them alone.
	opCommGroup opKind = iota
	opGroupIncl
	opGroupExcl
	opGroupRangeIncl
	opGroupRangeExcl
	opGroupUnion
	opGroupIntersection
	opGroupDifference
	opCommFree
	// Calls that create a communicator; all but opOpaque are collective
	// over the parent communicator.
	opSplit
	opDup
	opCreate
	opCart
	opCartSub
	opOpaque // a creation this reader does not follow
)

// commOp is one communicator or group call of a rank.
type commOp struct {
	kind       opKind
	call       string
	line       int
	comm       int64   // the parent or input communicator handle
	group      int64   // the input group handle
	group2     int64   // the second group of a union, intersection or difference
	ranks      []int64 // Group_incl/excl ranks; range triples, flattened
	color, key int64
	dims       []int64 // Cart_create dims; Cart_sub remain_dims
	newh       int64   // the handle made (communicator or group); 0 if none
}

// commOpOf reads the communicator or group call of c; ok is false if c is
// not one.
func commOpOf(c call) (op commOp, ok bool, err error) {
	op = commOp{call: c.name, line: c.line}
	handle := func(name string) int64 {
		if err != nil {
			return 0
		}
		var v int64
		v, _, _, err = c.labelled(name)
		return v
	}
	groupRanks := func() {
		var n int64
		if n, err = c.count("count"); err == nil {
			op.ranks, _, err = c.ints("ranks", int(min(n, maxArray+1)))
		}
	}
	groupRanges := func() {
		var n int64
		var rows [][]int64
		if n, err = c.count("count"); err == nil && n > maxArray {
			p, _ := c.get("count")
			err = c.errorf(p, "count=%d is larger than %d", n, maxArray)
		}
		if err == nil {
			rows, _, err = c.ranges("ranges", int(n), 3)
			for _, r := range rows {
				op.ranks = append(op.ranks, r...)
			}
		}
	}
	switch c.name {
	case "MPI_Comm_group":
		op.kind, op.comm, op.newh = opCommGroup, handle("comm"), handle("group")
	case "MPI_Group_incl", "MPI_Group_excl":
		op.kind, op.group = opGroupIncl, handle("group")
		if c.name == "MPI_Group_excl" {
			op.kind = opGroupExcl
		}
		if err == nil {
			groupRanks()
		}
		op.newh = handle("newgroup")
	case "MPI_Group_range_incl", "MPI_Group_range_excl":
		op.kind, op.group = opGroupRangeIncl, handle("group")
		if c.name == "MPI_Group_range_excl" {
			op.kind = opGroupRangeExcl
		}
		if err == nil {
			groupRanges()
		}
		op.newh = handle("newgroup")
	case "MPI_Group_union", "MPI_Group_intersection", "MPI_Group_difference":
		op.kind = opGroupUnion
		switch c.name {
		case "MPI_Group_intersection":
			op.kind = opGroupIntersection
		case "MPI_Group_difference":
			op.kind = opGroupDifference
		}
		op.group, op.group2, op.newh = handle("group1"), handle("group2"), handle("newgroup")
	case "MPI_Comm_free", "MPI_Comm_disconnect":
		op.kind, op.comm = opCommFree, handle("comm")
	case "MPI_Comm_split":
		op.kind, op.comm, op.color, op.key, op.newh = opSplit, handle("oldcomm"), handle("color"), handle("key"), handle("newcomm")
	case "MPI_Comm_dup":
		op.kind, op.comm, op.newh = opDup, handle("oldcomm"), handle("newcomm")
	case "MPI_Comm_create":
		op.kind, op.comm, op.group, op.newh = opCreate, handle("oldcomm"), handle("group"), handle("newcomm")
	case "MPI_Cart_create":
		op.kind, op.comm = opCart, handle("oldcomm")
		var n int64
		if err == nil {
			n, err = c.count("ndim")
		}
		if err == nil {
			op.dims, _, err = c.ints("dims", int(min(n, maxArray+1)))
		}
		// dumpi does not record the order the MPI library chose when
		// reorder is set; Open MPI and MPICH keep the old order unless
		// asked to map to the topology, so the reader assumes it was kept.
		_ = handle("reorder")
		op.newh = handle("newcomm")
	case "MPI_Cart_sub":
		op.kind, op.comm = opCartSub, handle("oldcomm")
		var n int64
		if err == nil {
			n, err = c.count("ndim")
		}
		if err == nil {
			op.dims, _, err = c.ints("remain_dims", int(min(n, maxArray+1)))
		}
		op.newh = handle("newcomm")
	case "MPI_Intercomm_create", "MPI_Intercomm_merge", "MPI_Graph_create", "MPI_Comm_spawn",
		"MPI_Comm_spawn_multiple", "MPI_Comm_accept", "MPI_Comm_connect", "MPI_Comm_join", "MPI_Comm_get_parent",
		"MPI_Dist_graph_create", "MPI_Dist_graph_create_adjacent", "MPI_Comm_split_type", "MPI_Comm_create_group",
		"MPI_Comm_idup", "MPI_Comm_dup_with_info":
		op.kind = opOpaque
		for _, name := range []string{"newcomm", "newintercomm", "intercomm", "parent", "comm"} {
			if c.has(name) {
				op.newh = handle(name)
				break
			}
		}
	default:
		return op, false, nil
	}
	if err == nil {
		err = c.wellFormed()
	}
	return op, true, err
}

// commRef is what a rank's communicator handle stands for.
type commRef struct {
	gid int    // index into commTable.members; -1 for MPI_COMM_NULL
	why string // set if the communicator cannot be mapped, saying why
}

// commTable holds every communicator of the trace as world ranks.
type commTable struct {
	members [][]int
	cart    map[int][]int64     // the dimensions of cartesian communicators
	self    map[int]int         // the MPI_COMM_SELF of each rank
	ranks   map[int]map[int]int // communicator → world rank → its rank there
}

func newCommTable(numRanks int) *commTable {
	world := make([]int, numRanks)
	for i := range world {
		world[i] = i
	}
	return &commTable{members: [][]int{world}, cart: map[int][]int64{}, self: map[int]int{}, ranks: map[int]map[int]int{}}
}

// rankIn returns world rank r's rank in communicator gid, or -1.
func (t *commTable) rankIn(gid, r int) int {
	if gid == 0 {
		return r
	}
	m, ok := t.ranks[gid]
	if !ok {
		m = make(map[int]int, len(t.members[gid]))
		for i, w := range t.members[gid] {
			m[w] = i
		}
		t.ranks[gid] = m
	}
	if i, ok := m[r]; ok {
		return i
	}
	return -1
}

func (t *commTable) add(members []int) int {
	t.members = append(t.members, members)
	return len(t.members) - 1
}

func (t *commTable) selfOf(rank int) int {
	if g, ok := t.self[rank]; ok {
		return g
	}
	g := t.add([]int{rank})
	t.self[rank] = g
	return g
}

// group is what a rank's group handle stands for: world ranks in group
// order, or why they are unknown.
type group struct {
	members []int
	why     string
}

// rankComms follows one rank's communicator and group handles.
type rankComms struct {
	rank    int
	file    string
	ops     []commOp
	pos     int
	handles map[int64]commRef
	groups  map[int64]group
	results []commRef   // one per creating call, in order
	calls   map[int]int // creating calls so far, per parent communicator
}

func newRankComms(rank int, file string) *rankComms {
	return &rankComms{rank: rank, file: file, handles: map[int64]commRef{}, groups: map[int64]group{}, calls: map[int]int{}}
}

// comm returns what handle h stands for.
func (rc *rankComms) comm(t *commTable, h int64) commRef {
	switch h {
	case commNull:
		return commRef{gid: -1}
	case commWorld:
		return commRef{gid: 0}
	case commSelf:
		return commRef{gid: t.selfOf(rc.rank)}
	}
	if r, ok := rc.handles[h]; ok {
		return r
	}
	return commRef{why: "communicator handle " + strconv.FormatInt(h, 10) + " is not MPI_COMM_WORLD or MPI_COMM_SELF and no earlier call in the trace creates it"}
}

func (rc *rankComms) group(t *commTable, h int64) group {
	switch h {
	case groupNull:
		return group{why: "it is MPI_GROUP_NULL"}
	case groupEmpty:
		return group{members: []int{}}
	}
	if g, ok := rc.groups[h]; ok {
		return g
	}
	return group{why: "group handle " + strconv.FormatInt(h, 10) + " is made by no call this reader follows"}
}

func (rc *rankComms) errorf(op *commOp, format string, args ...any) error {
	return trace.Errorf(rc.file, op.line, 1, "%s: "+format, append([]any{op.call}, args...)...)
}

// local evaluates a group call or MPI_Comm_free.
func (rc *rankComms) local(t *commTable, op *commOp) error {
	if op.kind == opCommFree {
		delete(rc.handles, op.comm)
		return nil
	}
	if op.kind == opCommGroup {
		ref := rc.comm(t, op.comm)
		switch {
		case ref.why != "":
			rc.groups[op.newh] = group{why: "it is the group of a communicator this reader cannot map: " + ref.why}
		case ref.gid < 0:
			return rc.errorf(op, "the group of MPI_COMM_NULL")
		default:
			rc.groups[op.newh] = group{members: t.members[ref.gid]}
		}
		return nil
	}
	base := rc.group(t, op.group)
	if base.why != "" {
		rc.groups[op.newh] = base
		return nil
	}
	var out []int
	switch op.kind {
	case opGroupIncl, opGroupExcl, opGroupRangeIncl, opGroupRangeExcl:
		idx := op.ranks
		if op.kind == opGroupRangeIncl || op.kind == opGroupRangeExcl {
			var err error
			if idx, err = expandRanges(op.ranks, len(base.members)); err != nil {
				return rc.errorf(op, "%v", err)
			}
		}
		seen := make(map[int64]bool, len(idx))
		for _, i := range idx {
			if i < 0 || i >= int64(len(base.members)) {
				return rc.errorf(op, "rank %d is outside the group of %d", i, len(base.members))
			}
			if seen[i] {
				return rc.errorf(op, "rank %d is named twice", i)
			}
			seen[i] = true
		}
		if op.kind == opGroupIncl || op.kind == opGroupRangeIncl {
			out = make([]int, len(idx))
			for k, i := range idx {
				out[k] = base.members[i]
			}
		} else {
			for i, m := range base.members {
				if !seen[int64(i)] {
					out = append(out, m)
				}
			}
		}
	default:
		other := rc.group(t, op.group2)
		if other.why != "" {
			rc.groups[op.newh] = other
			return nil
		}
		in2 := map[int]bool{}
		for _, m := range other.members {
			in2[m] = true
		}
		for _, m := range base.members {
			if in2[m] == (op.kind == opGroupIntersection) || op.kind == opGroupUnion {
				out = append(out, m)
			}
		}
		if op.kind == opGroupUnion {
			in1 := map[int]bool{}
			for _, m := range base.members {
				in1[m] = true
			}
			for _, m := range other.members {
				if !in1[m] {
					out = append(out, m)
				}
			}
		}
	}
	if out == nil {
		out = []int{}
	}
	rc.groups[op.newh] = group{members: out}
	return nil
}

// expandRanges turns (first, last, stride) triples into group ranks; a
// group of size n has at most n of them.
func expandRanges(triples []int64, n int) ([]int64, error) {
	var out []int64
	for i := 0; i+2 < len(triples); i += 3 {
		first, last, stride := triples[i], triples[i+1], triples[i+2]
		if stride == 0 {
			return nil, fmt.Errorf("range [%d, %d, %d] has stride 0", first, last, stride)
		}
		for r := first; stride > 0 && r <= last || stride < 0 && r >= last; r += stride {
			if len(out) >= n {
				return nil, fmt.Errorf("ranges name more ranks than the group's %d", n)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// finish records the result of rc's current creating call.
func (rc *rankComms) finish(op *commOp, res commRef) {
	rc.results = append(rc.results, res)
	rc.assign(op, res)
	rc.pos++
}

// assign points the handle a creating call returned at its result.
func (rc *rankComms) assign(op *commOp, res commRef) {
	if op.newh != commNull && op.newh != 0 && (res.gid >= 0 || res.why != "") {
		rc.handles[op.newh] = res
	}
}

// resolveComms maps every communicator the ranks create to world ranks.
// A creating call is collective over its parent: the k-th creating call on
// a communicator matches the k-th one of each of its members.
func resolveComms(ranks []*rankComms, t *commTable) error {
	type key struct{ gid, k int }
	waiting := map[key][]int{}
	queue := make([]int, len(ranks))
	for i := range queue {
		queue[i] = i
	}
	for len(queue) > 0 {
		r := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		rc := ranks[r]
	run:
		for rc.pos < len(rc.ops) {
			op := &rc.ops[rc.pos]
			if op.kind < opSplit {
				if err := rc.local(t, op); err != nil {
					return err
				}
				rc.pos++
				continue
			}
			if op.kind == opOpaque {
				rc.finish(op, commRef{why: "it is made by " + op.call + ", which this reader does not follow"})
				continue
			}
			parent := rc.comm(t, op.comm)
			switch {
			case parent.why != "":
				rc.finish(op, commRef{why: "it is made by " + op.call + " from a communicator this reader cannot map: " + parent.why})
				continue
			case parent.gid < 0:
				return rc.errorf(op, "the parent communicator is MPI_COMM_NULL")
			}
			k := rc.calls[parent.gid]
			rc.calls[parent.gid] = k + 1
			kk := key{parent.gid, k}
			waiting[kk] = append(waiting[kk], r)
			if len(waiting[kk]) < len(t.members[parent.gid]) {
				break run // wait for the other members
			}
			delete(waiting, kk)
			if err := createComm(ranks, t, parent.gid); err != nil {
				return err
			}
			for _, m := range t.members[parent.gid] {
				if m != r {
					queue = append(queue, m)
				}
			}
		}
	}
	for _, rc := range ranks {
		if rc.pos < len(rc.ops) {
			return stuck(ranks, t, rc)
		}
	}
	return nil
}

// stuck explains why rc's creating call found no match.
func stuck(ranks []*rankComms, t *commTable, rc *rankComms) error {
	op := &rc.ops[rc.pos]
	parent := rc.comm(t, op.comm)
	for _, m := range t.members[parent.gid] {
		o := ranks[m]
		if o.pos >= len(o.ops) {
			return rc.errorf(op, "rank %d (%s) ends without the matching call: every member of the communicator must make the same communicator-creating calls in the same order", m, o.file)
		}
		if ref := o.comm(t, o.ops[o.pos].comm); ref.why != "" || ref.gid != parent.gid {
			p := &o.ops[o.pos]
			return rc.errorf(op, "rank %d makes %s on another communicator first (%s:%d): every member of the communicator must make the same communicator-creating calls in the same order", m, p.call, o.file, p.line)
		}
	}
	return rc.errorf(op, "no matching call on the other members of the communicator")
}

// createComm resolves the creating call that every member of parent has
// reached, and moves each member past it.
func createComm(ranks []*rankComms, t *commTable, parent int) error {
	members := t.members[parent]
	ops := make([]*commOp, len(members))
	for i, m := range members {
		ops[i] = &ranks[m].ops[ranks[m].pos]
	}
	first := ops[0]
	for i, op := range ops {
		if op.kind != first.kind {
			rc := ranks[members[i]]
			return rc.errorf(op, "matches %s of rank %d (%s:%d): every member of the communicator must make the same communicator-creating calls in the same order",
				first.call, members[0], ranks[members[0]].file, first.line)
		}
	}
	res := make([]commRef, len(members))
	switch first.kind {
	case opDup:
		g := t.add(members)
		if d, ok := t.cart[parent]; ok {
			t.cart[g] = d
		}
		for i := range res {
			res[i] = commRef{gid: g}
		}
	case opSplit:
		colors := make([]int64, len(members))
		keys := make([]int64, len(members))
		for i, op := range ops {
			colors[i], keys[i] = op.color, op.key
		}
		splitComm(t, members, colors, keys, res, nil)
	case opCreate:
		var g *group
		for i, op := range ops {
			gi := ranks[members[i]].group(t, op.group)
			if gi.why != "" {
				continue
			}
			if g == nil {
				g = &gi
			} else if !slices.Equal(g.members, gi.members) {
				return ranks[members[i]].errorf(op, "the group %v differs from rank %d's %v: every member must pass the same group", gi.members, members[0], g.members)
			}
		}
		if g == nil {
			why := "it is made by MPI_Comm_create from a group this reader cannot follow: " + ranks[members[0]].group(t, first.group).why
			for i := range res {
				res[i] = commRef{why: why}
			}
			break
		}
		pos := make(map[int]bool, len(members))
		for _, m := range members {
			pos[m] = true
		}
		in := make(map[int]bool, len(g.members))
		for _, m := range g.members {
			if !pos[m] || in[m] {
				return ranks[members[0]].errorf(first, "the group holds rank %d twice or outside the parent communicator", m)
			}
			in[m] = true
		}
		gid := -1
		if len(g.members) > 0 {
			gid = t.add(g.members)
		}
		for i, m := range members {
			res[i] = commRef{gid: -1}
			if in[m] {
				res[i] = commRef{gid: gid}
			}
		}
	case opCart:
		n := int64(1)
		for i, op := range ops {
			if !slices.Equal(op.dims, first.dims) {
				return ranks[members[i]].errorf(op, "dims %v differ from rank %d's %v", op.dims, members[0], first.dims)
			}
		}
		for _, d := range first.dims {
			if d < 1 {
				return ranks[members[0]].errorf(first, "dims %v: expected positive dimensions", first.dims)
			}
			if n *= d; n > int64(len(members)) {
				return ranks[members[0]].errorf(first, "dims %v need more than the %d ranks of the communicator", first.dims, len(members))
			}
		}
		g := t.add(members[:n])
		t.cart[g] = first.dims
		for i := range res {
			res[i] = commRef{gid: -1}
			if int64(i) < n {
				res[i] = commRef{gid: g}
			}
		}
	case opCartSub:
		dims, ok := t.cart[parent]
		if !ok {
			for i := range res {
				res[i] = commRef{why: "it is made by MPI_Cart_sub from a communicator this reader does not know to be cartesian"}
			}
			break
		}
		for i, op := range ops {
			if len(op.dims) != len(dims) || !slices.Equal(op.dims, first.dims) {
				return ranks[members[i]].errorf(op, "remain_dims %v: expected %d flags, the same on every member", op.dims, len(dims))
			}
		}
		colors := make([]int64, len(members))
		keys := make([]int64, len(members))
		var sub []int64
		for j, d := range dims {
			if first.dims[j] != 0 {
				sub = append(sub, d)
			}
		}
		for i := range members {
			// Cartesian ranks are row-major: the last dimension varies
			// fastest.
			rest := int64(i)
			var cm, km, cs, ks int64 = 0, 0, 1, 1
			for j := len(dims) - 1; j >= 0; j-- {
				c := rest % dims[j]
				rest /= dims[j]
				if first.dims[j] != 0 {
					km += c * ks
					ks *= dims[j]
				} else {
					cm += c * cs
					cs *= dims[j]
				}
			}
			colors[i], keys[i] = cm, km
		}
		splitComm(t, members, colors, keys, res, sub)
	}
	for i, m := range members {
		ranks[m].finish(ops[i], res[i])
	}
	return nil
}

// splitComm groups members by color (negative: MPI_UNDEFINED, no
// communicator), ordering each group by key, then by parent rank.
func splitComm(t *commTable, members []int, colors, keys []int64, res []commRef, cart []int64) {
	idx := make([]int, len(members))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(colors[a], colors[b]), cmp.Compare(keys[a], keys[b]))
	})
	for lo := 0; lo < len(idx); {
		hi := lo
		for hi < len(idx) && colors[idx[hi]] == colors[idx[lo]] {
			hi++
		}
		if colors[idx[lo]] < 0 {
			for _, i := range idx[lo:hi] {
				res[i] = commRef{gid: -1}
			}
		} else {
			g := make([]int, 0, hi-lo)
			for _, i := range idx[lo:hi] {
				g = append(g, members[i])
			}
			gid := t.add(g)
			if cart != nil {
				t.cart[gid] = cart
			}
			for _, i := range idx[lo:hi] {
				res[i] = commRef{gid: gid}
			}
		}
		lo = hi
	}
}
