//go:build !unix

package interp_test

import "time"

// processCPU reports that the process's CPU time is not measured here.
func processCPU() (time.Duration, bool) { return 0, false }
