// Package sgplatform writes a Parley flow platform as a SimGrid platform
// file (XML), so that a run exported as time-independent traces (package
// tit) replays under smpirun on the same machine: the same hosts, links,
// bandwidths, latencies and shape. It handles the star and the fat tree,
// the shapes SimGrid's <cluster> can say.
//
// sgplatform imports netmodel and the standard library; cmd/parley's
// export command imports it.
package sgplatform
