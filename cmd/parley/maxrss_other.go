//go:build !unix

package main

// peakRSS is unknown on this system.
func peakRSS() int64 { return 0 }
