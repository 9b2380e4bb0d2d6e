package lower

import (
	"fmt"
	"slices"
	"strings"
)

// tasks renders a rank set as the simplest task description that fits and
// returns the variable it binds ("" when it binds none). ALL TASKS binds
// one only if the statement uses it (use).
func (l *lowerer) tasks(rs []int, use bool) (string, string) {
	n := l.t.NumRanks
	switch {
	case len(rs) == n && use:
		return "ALL TASKS t", "t"
	case len(rs) == n:
		return "ALL TASKS", ""
	case len(rs) == 1:
		return fmt.Sprintf("TASK %d", rs[0]), ""
	}
	return "TASKS t SUCH THAT " + setRelation(rs, n), "t"
}

// setRelation is the shortest relation on t that holds exactly for the
// ranks rs among 0..n-1.
func setRelation(rs []int, n int) string {
	var cands []string
	first, last := rs[0], rs[len(rs)-1]
	if len(rs) == 1 {
		cands = append(cands, fmt.Sprintf("t = %d", first))
	}
	if step, ok := progression(rs); ok {
		switch {
		case step == 1 && first == 0:
			cands = append(cands, fmt.Sprintf("t < %d", last+1))
		case step == 1 && last == n-1:
			cands = append(cands, fmt.Sprintf("t > %d", first-1))
		case step == 1:
			cands = append(cands, fmt.Sprintf("t IS IN [%d, %d]", first, last))
		case step == 2 && first <= 1 && last >= n-2:
			if first == 0 {
				cands = append(cands, "t IS EVEN")
			} else {
				cands = append(cands, "t IS ODD")
			}
		default:
			if first < step && last+step > n-1 {
				cands = append(cands, fmt.Sprintf("t MOD %d = %d", step, first))
			}
			cands = append(cands, fmt.Sprintf("t IS IN {%d, %d, ..., %d}", first, first+step, last))
		}
	}
	if missing := complement(rs, n); len(missing) == 1 {
		cands = append(cands, fmt.Sprintf("t <> %d", missing[0]))
	} else if len(missing) > 1 {
		cands = append(cands, "t IS NOT IN {"+joinInts(missing)+"}")
	}
	if m := meshBlock(rs, n); m != "" {
		cands = append(cands, m)
	}
	cands = append(cands, "t IS IN {"+joinInts(rs)+"}")
	best := cands[0]
	for _, c := range cands[1:] {
		if relationCost(c) < relationCost(best) {
			best = c
		}
	}
	return best
}

// relationCost ranks relations for setRelation: by length, except that a
// list, which says least about the pattern, wins only when much shorter
// than a rule.
func relationCost(c string) int {
	if strings.Contains(c, "IS IN {") && !strings.Contains(c, "...") && strings.Count(c, ",") > 1 {
		return 2 * len(c)
	}
	return len(c)
}

// relationFor is the shortest relation on t that holds for every rank of
// in and for none of out, among 0..n-1; ranks in neither may go either
// way. Besides in itself it tries the range and, for each mesh width, the
// block that in spans, widened to whole rows or columns, whenever they
// leave out every rank of out: an edge rank's message size, for instance,
// is 80 on the rows inside the mesh, whatever ranks that send nothing
// there would have.
func relationFor(in, out []int, n int) string {
	best := setRelation(in, n)
	excluded := map[int]bool{}
	for _, r := range out {
		excluded[r] = true
	}
	try := func(set []int) {
		for _, r := range set {
			if excluded[r] {
				return
			}
		}
		if c := setRelation(set, n); relationCost(c) < relationCost(best) {
			best = c
		}
	}
	lo, hi := slices.Min(in), slices.Max(in)
	try(rankRange(lo, hi))
	for w := 2; w < n; w++ {
		if n%w != 0 {
			continue
		}
		c0, c1, r0, r1 := w, -1, n, -1
		for _, r := range in {
			c0, c1 = min(c0, r%w), max(c1, r%w)
			r0, r1 = min(r0, r/w), max(r1, r/w)
		}
		rows := n/w - 1
		for _, box := range [][4]int{{c0, c1, r0, r1}, {0, w - 1, r0, r1}, {c0, c1, 0, rows}} {
			var set []int
			for y := box[2]; y <= box[3]; y++ {
				for x := box[0]; x <= box[1]; x++ {
					set = append(set, y*w+x)
				}
			}
			try(set)
		}
	}
	return best
}

func rankRange(lo, hi int) []int {
	out := make([]int, 0, hi-lo+1)
	for r := lo; r <= hi; r++ {
		out = append(out, r)
	}
	return out
}

// complement lists the ranks of 0..n-1 not in the ascending list rs, or
// nil if there are more than three.
func complement(rs []int, n int) []int {
	if len(rs) < n-3 {
		return nil
	}
	var out []int
	k := 0
	for r := range n {
		if k < len(rs) && rs[k] == r {
			k++
			continue
		}
		out = append(out, r)
	}
	return out
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// progression reports whether rs is arithmetic and its step.
func progression(rs []int) (int, bool) {
	if len(rs) < 2 {
		return 1, true
	}
	step := rs[1] - rs[0]
	for i := 2; i < len(rs); i++ {
		if rs[i]-rs[i-1] != step {
			return 0, false
		}
	}
	return step, true
}

// meshBlock describes rs as a block of a row-major mesh of width w: the
// ranks whose column t MOD w and row t / w lie in contiguous ranges.
func meshBlock(rs []int, n int) string {
	best := ""
	for w := 2; w < n; w++ {
		if n%w != 0 {
			continue
		}
		in := map[int]bool{}
		c0, c1, r0, r1 := w, -1, n, -1
		for _, r := range rs {
			in[r] = true
			c0, c1 = min(c0, r%w), max(c1, r%w)
			r0, r1 = min(r0, r/w), max(r1, r/w)
		}
		if (c1-c0+1)*(r1-r0+1) != len(rs) {
			continue
		}
		ok := true
		for r := r0; r <= r1 && ok; r++ {
			for c := c0; c <= c1; c++ {
				if !in[r*w+c] {
					ok = false
					break
				}
			}
		}
		if !ok {
			continue
		}
		var parts []string
		if c0 > 0 || c1 < w-1 {
			parts = append(parts, span(fmt.Sprintf("t MOD %d", w), c0, c1, w-1))
		}
		switch rows := n/w - 1; {
		case r0 > 0 && r1 == rows:
			parts = append(parts, fmt.Sprintf("t > %d", r0*w-1)) // rows r0.. are ranks r0*w..
		case r0 == 0 && r1 < rows:
			parts = append(parts, fmt.Sprintf("t < %d", (r1+1)*w))
		case r0 > 0:
			parts = append(parts, span(fmt.Sprintf("t / %d", w), r0, r1, rows))
		}
		if len(parts) == 0 {
			continue
		}
		d := strings.Join(parts, " /\\ ")
		if best == "" || len(d) < len(best) {
			best = d
		}
	}
	return best
}

// span says that e, which ranges over 0..top, lies in lo..hi.
func span(e string, lo, hi, top int) string {
	switch {
	case lo == hi:
		return fmt.Sprintf("%s = %d", e, lo)
	case lo == 0:
		return fmt.Sprintf("%s < %d", e, hi+1)
	case hi == top:
		return fmt.Sprintf("%s > %d", e, lo-1)
	}
	return fmt.Sprintf("%s IS IN [%d, %d]", e, lo, hi)
}

// peer renders the target of offset off from the ranks rs bound to v.
func (l *lowerer) peer(rs []int, v string, off int) string {
	n := l.t.NumRanks
	if v == "" {
		return fmt.Sprintf("TASK %d", (rs[0]+off)%n)
	}
	fits := func(d int) bool {
		for _, r := range rs {
			if r+d < 0 || r+d >= n {
				return false
			}
		}
		return true
	}
	for _, d := range []int{off, off - n} {
		if fits(d) {
			switch {
			case d == 0:
				return "TASK " + v
			case d > 0:
				return fmt.Sprintf("TASK %s + %d", v, d)
			default:
				return fmt.Sprintf("TASK %s - %d", v, -d)
			}
		}
	}
	if off > n/2 {
		return fmt.Sprintf("TASK (%s + num_tasks - %d) MOD num_tasks", v, n-off)
	}
	return fmt.Sprintf("TASK (%s + %d) MOD num_tasks", v, off)
}

// meshPeer describes the peers of ranks rs as an affine function of each
// rank's column t MOD w and row t / w on a row-major mesh of width w, as in
// a transpose, 4 * (t MOD 4) + t / 4. It reports false when no width fits.
func meshPeer(rs, peers []int, n int, v string) (string, bool) {
	for w := 2; w < n; w++ {
		if n%w != 0 {
			continue
		}
		// Two ranks in one row fix the column's factor, two in one
		// column the row's; a factor no pair fixes is left at 0.
		a, b, ok := 0, 0, true
		rowOf, colOf := map[int]int{}, map[int]int{}
		for i, r := range rs {
			if j, seen := rowOf[r/w]; seen && a == 0 {
				dc, dp := r%w-rs[j]%w, peers[i]-peers[j]
				a, ok = dp/dc, ok && dp%dc == 0
			}
			if j, seen := colOf[r%w]; seen && b == 0 {
				dq, dp := r/w-rs[j]/w, peers[i]-peers[j]
				b, ok = dp/dq, ok && dp%dq == 0
			}
			rowOf[r/w], colOf[r%w] = i, i
		}
		if !ok || a == 0 || b == 0 || a == 1 && b == w {
			continue
		}
		c := peers[0] - a*(rs[0]%w) - b*(rs[0]/w)
		fits := true
		for i, r := range rs {
			fits = fits && peers[i] == a*(r%w)+b*(r/w)+c
		}
		if !fits {
			continue
		}
		// Factor first, so that canonical formatting keeps the
		// parentheses that make the mesh visible.
		e := fmt.Sprintf("%d * (%s MOD %d) + %s / %d", a, v, w, v, w)
		if b != 1 {
			e = fmt.Sprintf("%d * (%s MOD %d) + %d * (%s / %d)", a, v, w, b, v, w)
		}
		switch {
		case c > 0:
			e += fmt.Sprintf(" + %d", c)
		case c < 0:
			e += fmt.Sprintf(" - %d", -c)
		}
		return e, true
	}
	return "", false
}

// meshNeighbor describes the peers of ranks rs as one MESH_NEIGHBOR of a
// 2-D or 3-D row-major mesh on which some of them wrap around, as on a
// torus: the same step in every dimension for every rank, a dimension
// marked * where a step crosses its edge. It reports false when no mesh
// fits, or when no step wraps, which a plain t + d says more simply.
func meshNeighbor(rs, peers []int, n int, v string) (string, bool) {
	for _, dims := range meshShapes(n) {
		steps := make([]int, len(dims))
		wrap := make([]bool, len(dims))
		ok := true
		for k, size := range dims {
			// The step along dimension k: one raw difference, or two that
			// differ by the dimension's size where it wraps.
			seen := map[int]int{}
			for i, r := range rs {
				seen[coord(peers[i], dims, k)-coord(r, dims, k)]++
			}
			switch len(seen) {
			case 1:
				for d := range seen {
					steps[k] = d
				}
			case 2:
				var ds []int
				for d := range seen {
					ds = append(ds, d)
				}
				if ds[0]-ds[1] != size && ds[1]-ds[0] != size {
					ok = false
				}
				steps[k], wrap[k] = ds[0], true
				if abs(ds[1]) < abs(ds[0]) || abs(ds[1]) == abs(ds[0]) && seen[ds[1]] > seen[ds[0]] {
					steps[k] = ds[1]
				}
			default:
				ok = false
			}
		}
		if !ok || !slices.Contains(wrap, true) {
			continue
		}
		fits := true
		for i, r := range rs {
			fits = fits && neighbor(r, dims, steps, wrap) == peers[i]
		}
		if !fits {
			continue
		}
		return meshNeighborCall(dims, steps, wrap, v), true
	}
	return "", false
}

// meshNeighborCall writes MESH_NEIGHBOR of v on the mesh dims, a
// dimension marked * where it wraps.
func meshNeighborCall(dims, steps []int, wrap []bool, v string) string {
	shape, offs := make([]string, len(dims)), make([]string, len(dims))
	for k, size := range dims {
		shape[k] = fmt.Sprint(size)
		if wrap[k] {
			shape[k] += "*"
		}
		offs[k] = fmt.Sprint(steps[k])
	}
	return fmt.Sprintf("MESH_NEIGHBOR((%s), %s, (%s))", strings.Join(shape, ", "), v, strings.Join(offs, ", "))
}

// stencilPeer writes the peers of ranks rs, each at offset off, as one
// neighbour on the trace's stencil mesh (lowerer.mesh), for ALL TASKS t,
// when rs are exactly the ranks that have that neighbour: the others'
// MESH_NEIGHBOR is off the mesh, and a message to or from a task off the
// mesh is no message. It reports false otherwise.
func (l *lowerer) stencilPeer(rs []int, off int) (string, string, bool) {
	dims, n := l.mesh, l.t.NumRanks
	if dims == nil {
		return "", "", false
	}
	steps := make([]int, len(dims))
	for k := range dims {
		steps[k] = coord((rs[0]+off)%n, dims, k) - coord(rs[0], dims, k)
	}
	wrap := make([]bool, len(dims))
	j := 0
	for r := range n {
		peer := neighbor(r, dims, steps, wrap)
		if j < len(rs) && rs[j] == r {
			j++
			if peer != (r+off)%n {
				return "", "", false
			}
		} else if peer >= 0 {
			return "", "", false
		}
	}
	return "ALL TASKS t", "TASK " + meshNeighborCall(dims, steps, wrap, "t"), true
}

// meshShapes lists the 2-D and then 3-D meshes of n ranks with every
// dimension at least 2, narrowest first.
func meshShapes(n int) [][]int {
	var two, three [][]int
	for w := 2; w <= n/2; w++ {
		if n%w != 0 {
			continue
		}
		two = append(two, []int{w, n / w})
		for h := 2; h <= n/w/2; h++ {
			if (n/w)%h == 0 {
				three = append(three, []int{w, h, n / w / h})
			}
		}
	}
	return append(two, three...)
}

// coord is rank r's coordinate along dimension k of a row-major mesh.
func coord(r int, dims []int, k int) int {
	for _, size := range dims[:k] {
		r /= size
	}
	return r % dims[k]
}

// neighbor is MESH_NEIGHBOR's value: the rank steps away from r, wrapping
// where wrap says, or -1 off the mesh.
func neighbor(r int, dims, steps []int, wrap []bool) int {
	out, scale := 0, 1
	for k, size := range dims {
		c := coord(r, dims, k) + steps[k]
		switch {
		case wrap[k]:
			c = (c%size + size) % size
		case c < 0 || c >= size:
			return -1
		}
		out += c * scale
		scale *= size
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// stencilMesh returns the first 2-D or 3-D row-major mesh (meshShapes'
// order) on which every (rank, peer) pair is one step along one dimension
// without wrapping, with steps along every dimension: a stencil's halo
// exchange. It returns nil when no mesh fits.
func stencilMesh(pairs map[[2]int]bool, n int) []int {
	if len(pairs) == 0 {
		return nil
	}
	for _, dims := range meshShapes(n) {
		used := make([]bool, len(dims))
		fits := true
		for p := range pairs {
			k, ok := unitStep(p[0], p[1], dims)
			if !ok {
				fits = false
				break
			}
			used[k] = true
		}
		if fits && !slices.Contains(used, false) {
			return dims
		}
	}
	return nil
}

// unitStep reports whether b is one step from a along a single dimension
// of the mesh dims, without wrapping, and along which.
func unitStep(a, b int, dims []int) (int, bool) {
	dim, steps := 0, 0
	for k := range dims {
		switch abs(coord(b, dims, k) - coord(a, dims, k)) {
		case 0:
		case 1:
			dim, steps = k, steps+1
		default:
			return 0, false
		}
	}
	return dim, steps == 1
}
