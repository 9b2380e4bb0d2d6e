package valueflow

// arena is an append-only sequence kept in chunks of a fixed size: growing
// it never copies what it holds, where a slice that doubles copies it and
// clears twice its size each time (most of a run's time, measured, went
// there). Indexing costs one more load.
type arena[T any] struct {
	chunks [][]T
	n      int
}

const (
	chunkBits = 16
	chunkLen  = 1 << chunkBits
	chunkMask = chunkLen - 1
)

// len is the number of elements.
func (a *arena[T]) len() int { return a.n }

// at is element i, which must be below len.
func (a *arena[T]) at(i int) *T { return &a.chunks[i>>chunkBits][i&chunkMask] }

// push appends x and returns its index.
func (a *arena[T]) push(x T) int {
	i := a.n
	c := i >> chunkBits
	if c == len(a.chunks) {
		a.chunks = append(a.chunks, make([]T, chunkLen))
	}
	a.chunks[c][i&chunkMask] = x
	a.n++
	return i
}

// truncate keeps the first n elements and frees the chunks beyond them but
// one, kept for the next pushes.
func (a *arena[T]) truncate(n int) {
	a.n = n
	keep := min(len(a.chunks), n>>chunkBits+2)
	clear(a.chunks[keep:])
	a.chunks = a.chunks[:keep]
}

// bytes is the memory the chunks take.
func (a *arena[T]) bytes(elem int64) int64 { return int64(len(a.chunks)) * chunkLen * elem }

// all calls f with each element in order.
func (a *arena[T]) all(f func(*T)) {
	for c, chunk := range a.chunks {
		if c<<chunkBits >= a.n {
			return
		}
		for i := range chunk[:min(chunkLen, a.n-c<<chunkBits)] {
			f(&chunk[i])
		}
	}
}
