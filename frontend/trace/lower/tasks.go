package lower

import (
	"encoding/binary"
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
	return "TASKS t SUCH THAT " + l.rel.set(rs), "t"
}

// relations finds relations on t for rank sets among 0..n-1, each set's
// once: the candidates relationFor tries come back from statement to
// statement, and each costs a pass over the set for every mesh width.
type relations struct {
	n    int
	memo map[string]string
}

func newRelations(n int) *relations { return &relations{n: n, memo: map[string]string{}} }

// set is setRelation(rs, n), remembered.
func (c *relations) set(rs []int) string {
	key := make([]byte, 0, 2*len(rs))
	for _, r := range rs {
		key = binary.AppendUvarint(key, uint64(r))
	}
	if rel, ok := c.memo[string(key)]; ok {
		return rel
	}
	rel := setRelation(rs, c.n)
	c.memo[string(key)] = rel
	return rel
}

// setRelation is the shortest relation on t that holds exactly for the
// ranks rs among 0..n-1.
func setRelation(rs []int, n int) string {
	best := simpleRelation(rs, n)
	for _, c := range meshUnions(rs, n) {
		if relationCost(c) < relationCost(best) {
			best = c
		}
	}
	return best
}

// meshUnions describes rs, for each mesh width, as the whole columns (or
// rows) it holds joined by \/ to the rest, as in t MOD 4 IS IN [1, 2] \/
// t = 3: the ranks inside a mesh and one edge rank.
func meshUnions(rs []int, n int) []string {
	var out []string
	for w := 2; w < n; w++ {
		if n%w != 0 {
			continue
		}
		h := n / w
		colN, rowN := make([]int, w), make([]int, h)
		for _, r := range rs {
			colN[r%w]++
			rowN[r/w]++
		}
		var byCols, notCols, byRows, notRows []int
		for _, r := range rs {
			if colN[r%w] == h {
				byCols = append(byCols, r)
			} else {
				notCols = append(notCols, r)
			}
			if rowN[r/w] == w {
				byRows = append(byRows, r)
			} else {
				notRows = append(notRows, r)
			}
		}
		for _, split := range [][2][]int{{byCols, notCols}, {byRows, notRows}} {
			whole, rest := split[0], split[1]
			if len(whole) == 0 || len(rest) == 0 {
				continue
			}
			if b := meshBlock(whole, n); b != "" {
				out = append(out, b+` \/ `+simpleRelation(rest, n))
			}
		}
	}
	return out
}

// simpleRelation is setRelation without unions.
func simpleRelation(rs []int, n int) string {
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
// than a rule, and a pair such as {0, 3} only when shorter than a range.
func relationCost(c string) int {
	if strings.Contains(c, "IN {") && !strings.Contains(c, "...") {
		if strings.Count(c, ",") > 1 {
			return 2 * len(c)
		}
		return len(c) + 4
	}
	return len(c)
}

// relationFor is the shortest relation on t that holds for every rank of
// in and for none of out, among 0..c.n-1; ranks in neither may go either
// way. Besides in itself it tries the range, alone or stretched to the
// first or last rank, and, for each mesh width, the rows and columns in
// spans or touches, widened to whole rows or columns, whenever they leave
// out every rank of out: an edge rank's message size, for instance, is 80
// on the rows inside the mesh, whatever ranks that send nothing there
// would have.
func (c *relations) relationFor(in, out []int) string {
	n := c.n
	best := c.set(in)
	excluded := make([]bool, n)
	for _, r := range out {
		excluded[r] = true
	}
	try := func(set []int) {
		for _, r := range set {
			if excluded[r] {
				return
			}
		}
		if rel := c.set(set); relationCost(rel) < relationCost(best) {
			best = rel
		}
	}
	lo, hi := slices.Min(in), slices.Max(in)
	try(rankRange(lo, hi))
	try(rankRange(0, hi))
	try(rankRange(lo, n-1))
	for w := 2; w < n; w++ {
		if n%w != 0 {
			continue
		}
		rows, cols := axes(in, w, n)
		rowSpan := rankRange(rows[0], rows[len(rows)-1])
		colSpan := rankRange(cols[0], cols[len(cols)-1])
		allRows, allCols := rankRange(0, n/w-1), rankRange(0, w-1)
		for _, box := range [][2][]int{
			{colSpan, rowSpan}, {allCols, rowSpan}, {colSpan, allRows},
			{cols, rows}, {allCols, rows}, {cols, allRows},
		} {
			var set []int
			for _, y := range box[1] {
				for _, x := range box[0] {
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

// meshBlock describes rs as a product of rows and columns of a row-major
// mesh of width w: the ranks whose column t MOD w and row t / w each lie
// in a range or in a short list, as the first and last rows are. Such a
// rule keeps its length on a larger mesh, where a rank list grows.
func meshBlock(rs []int, n int) string {
	best := ""
	for w := 2; w < n; w++ {
		if n%w != 0 {
			continue
		}
		rowIdx, colIdx := axes(rs, w, n)
		if len(rowIdx)*len(colIdx) != len(rs) {
			continue // rs, a subset of rows x cols, is not all of it
		}
		var parts []string
		colPart, ok := axisRelation(fmt.Sprintf("t MOD %d", w), colIdx, w-1)
		if !ok {
			continue
		}
		if colPart != "" {
			parts = append(parts, colPart)
		}
		r0, r1, top := rowIdx[0], rowIdx[len(rowIdx)-1], n/w-1
		switch contiguous := r1-r0+1 == len(rowIdx); {
		case contiguous && r0 > 0 && r1 == top:
			parts = append(parts, fmt.Sprintf("t > %d", r0*w-1)) // rows r0.. are ranks r0*w..
		case contiguous && r0 == 0 && r1 < top:
			parts = append(parts, fmt.Sprintf("t < %d", (r1+1)*w))
		default:
			rowPart, ok := axisRelation(fmt.Sprintf("t / %d", w), rowIdx, top)
			if !ok {
				continue
			}
			if rowPart != "" {
				parts = append(parts, rowPart)
			}
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

// maxAxisList is the most rows or columns an axis of a mesh product may
// list; more would grow with the mesh like a rank list.
const maxAxisList = 2

// axisRelation says that e, which ranges over 0..top, is one of the
// ascending idx: "" when idx is all of them, a span when they are
// contiguous, else a list of at most maxAxisList. It reports false when
// none fits.
func axisRelation(e string, idx []int, top int) (string, bool) {
	lo, hi := idx[0], idx[len(idx)-1]
	switch {
	case len(idx) == top+1:
		return "", true
	case hi-lo+1 == len(idx):
		return span(e, lo, hi, top), true
	case len(idx) <= maxAxisList:
		return fmt.Sprintf("%s IS IN {%s}", e, joinInts(idx)), true
	}
	return "", false
}

// axes lists, ascending, the rows and the columns of a row-major mesh of
// width w that the ranks rs lie in.
func axes(rs []int, w, n int) (rows, cols []int) {
	rowSeen, colSeen := make([]bool, n/w), make([]bool, w)
	for _, r := range rs {
		rowSeen[r/w], colSeen[r%w] = true, true
	}
	for y, ok := range rowSeen {
		if ok {
			rows = append(rows, y)
		}
	}
	for x, ok := range colSeen {
		if ok {
			cols = append(cols, x)
		}
	}
	return rows, cols
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
// neighbour on the trace's stencil mesh (lowerer.mesh). When rs are
// exactly the ranks that have that neighbour the statement is for ALL
// TASKS t: the others' MESH_NEIGHBOR is off the mesh, and a message to or
// from a task off the mesh is no message. When rs are some of them, such
// as the first and last rows, the rule naming them need not exclude the
// ranks without the neighbour, and it is used if that makes it cheaper
// than the plain rank set's. It reports false otherwise.
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
	var idle []int // ranks with the neighbour that send or receive nothing here
	j := 0
	for r := range n {
		peer := neighbor(r, dims, steps, wrap)
		if j < len(rs) && rs[j] == r {
			j++
			if peer != (r+off)%n {
				return "", "", false
			}
		} else if peer >= 0 {
			idle = append(idle, r)
		}
	}
	call := "TASK " + meshNeighborCall(dims, steps, wrap, "t")
	if len(idle) == 0 {
		return "ALL TASKS t", call, true
	}
	if len(rs) == 1 {
		return "", "", false // TASK 2 ... TASK 0 says it best
	}
	rel := l.rel.relationFor(rs, idle)
	if relationCost(rel) >= relationCost(l.rel.set(rs)) {
		return "", "", false
	}
	return "TASKS t SUCH THAT " + rel, call, true
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
