package main

// default.pgo in this directory is a merged CPU profile of parley's
// benchmarks; `go build` and `go run` use it for profile-guided
// optimisation (inlining and devirtualisation on the hot paths), which
// took about 5% off the CPU time of the 262,144-task halo when it was
// added (docs/interpreter.md, "Profile-guided build").
// Building with `-pgo=off` gives the plain build. The profile drifts as the
// code changes; regenerate it with:
//go:generate sh default_pgo.sh
