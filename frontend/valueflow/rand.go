package valueflow

// glibcRand is glibc's random()/rand() with the default TYPE_3 state: an
// additive feedback generator over 31 words, r[i] = r[i-31] + r[i-3], seeded
// by the Park-Miller generator and run 310 steps before the first output,
// so that programs drawing their input from rand() see the numbers they see
// on Linux.
type glibcRand struct {
	state       [31]int32
	front, rear int
}

// seed is srandom(seed) (and srand).
func (g *glibcRand) seed(seed uint32) {
	if seed == 0 {
		seed = 1
	}
	g.state[0] = int32(seed)
	word := int32(seed)
	for i := 1; i < 31; i++ {
		// Schrage's method for 16807 * word % 2147483647 without overflow,
		// as glibc computes it, negative words included.
		hi, lo := int64(word)/127773, int64(word)%127773
		w := 16807*lo - 2836*hi
		if w < 0 {
			w += 2147483647
		}
		word = int32(w)
		g.state[i] = word
	}
	g.front, g.rear = 3, 0
	for i := 0; i < 310; i++ {
		g.next()
	}
}

// next is random(): a number in [0, 2^31).
func (g *glibcRand) next() int32 {
	v := uint32(g.state[g.front]) + uint32(g.state[g.rear])
	g.state[g.front] = int32(v)
	g.front++
	if g.front >= len(g.state) {
		g.front = 0
		g.rear++
	} else {
		g.rear++
		if g.rear >= len(g.state) {
			g.rear = 0
		}
	}
	return int32(v >> 1)
}
