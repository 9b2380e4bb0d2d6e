package interp

// CollectivesEvaluated is how many collective calls the run evaluated
// without their events (see collfast.go).
func (s *Sim) CollectivesEvaluated() int64 {
	if s.cf == nil {
		return 0
	}
	return s.cf.evaluated
}
