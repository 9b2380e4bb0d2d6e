package interp

// CollectivesEvaluated is how many collective calls the run evaluated
// without their events (see collfast.go).
func (s *Sim) CollectivesEvaluated() int64 {
	if s.cf == nil {
		return 0
	}
	return s.cf.evaluated
}

// CollectivesMirrored is how many of the calls CollectivesEvaluated
// counts were evaluated for one task standing for all (see collmirror.go).
func (s *Sim) CollectivesMirrored() int64 {
	if s.cf == nil {
		return 0
	}
	return s.cf.mirrored
}

// CollectivesTreed is how many of the calls CollectivesEvaluated counts
// were evaluated one task after another (see collshort.go).
func (s *Sim) CollectivesTreed() int64 {
	if s.cf == nil {
		return 0
	}
	return s.cf.treed
}
