package trace

// MatchOnce is one traversal of t into s at the default eager limit,
// wildcards matched by size, skipping repeated iterations or not.
func MatchOnce(t *Trace, s Sink, skip bool) (*Matched, error) {
	m := newMatcher(t, s)
	m.eager, m.sameSize, m.skip = DefaultEager, true, skip
	return m.run()
}
