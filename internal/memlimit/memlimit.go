// Package memlimit is the one place that knows how much memory Parley may
// use: the default behind the MaxMemory options of the parser, the trace
// reader and lowering, and the interpreter, and how a limit is written in
// the messages that refuse work over it.
//
// Those packages estimate what an input will cost before they allocate it
// and refuse it with the estimate and the limit, because a Go program that
// runs out of memory dies with a fatal error that cannot be recovered.
//
// memlimit imports only the standard library, so any package may use it.
package memlimit

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime/metrics"
	"strconv"
	"sync"
)

// Fallback is the default limit where the machine's memory cannot be read
// (systems other than Linux).
const Fallback = 4 << 30

// Physical returns the memory of the machine, or of the container the
// process runs in where its cgroup allows less; ok is false where neither
// can be read.
func Physical() (n int64, ok bool) { return physical() }

var physical = sync.OnceValues(func() (int64, bool) {
	best := int64(0)
	for _, f := range []func() (int64, bool){memTotal, cgroupLimit} {
		if n, ok := f(); ok && n > 0 && (best == 0 || n < best) {
			best = n
		}
	}
	return best, best > 0
})

// Default is the limit that applies when none is given: half the physical
// memory (see Physical), leaving the rest to the system and to the garbage
// collector's headroom, or Fallback where the memory is unknown.
func Default() int64 {
	if n, ok := Physical(); ok {
		return n / 2
	}
	return Fallback
}

// Or returns limit, or Default() when limit is 0 (no limit given).
func Or(limit int64) int64 {
	if limit > 0 {
		return limit
	}
	return Default()
}

// Describe writes a limit for a message: its size and where it comes from.
// given is the limit the caller was given (0 for the default).
func Describe(given int64) string {
	if given > 0 {
		return fmt.Sprintf("the memory limit of %s (--max-memory)", Format(given))
	}
	return fmt.Sprintf("the default memory limit of %s (half the physical memory; --max-memory changes it)", Format(Default()))
}

// Format writes a number of bytes for people, in decimal units to three
// significant digits: "950 B", "12.3 MB", "4.61 GB".
func Format(n int64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}
	v, u := float64(n), 0
	for v >= 999.5 && u < len(units)-1 {
		v /= 1000
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + " " + units[u]
}

// memTotal reads MemTotal from /proc/meminfo (Linux).
func memTotal() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("MemTotal:"))
		if !ok {
			continue
		}
		fields := bytes.Fields(rest)
		if len(fields) != 2 || string(fields[1]) != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseInt(string(fields[0]), 10, 64)
		return kb * 1024, err == nil && kb > 0
	}
	return 0, false
}

// cgroupLimit reads the memory limit of the process's cgroup at the usual
// mount points of cgroup v2 and v1. Unlimited groups read "max" (v2) or a
// number near 2^63 (v1), which the caller's minimum ignores.
func cgroupLimit() (int64, bool) {
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
		if err == nil && n > 0 {
			return n, true
		}
	}
	return 0, false
}

// OverError is a refusal of work whose estimated memory is over the limit;
// its message gives the estimate and the limit.
type OverError struct{ Msg string }

func (e *OverError) Error() string { return e.Msg }

// Refuse returns an *OverError saying fmt.Sprintf(format, a...).
func Refuse(format string, a ...any) error { return &OverError{Msg: fmt.Sprintf(format, a...)} }

// inUseMetrics are the runtime's counts that InUse combines: all the memory
// the runtime has mapped, less what it has returned to the system and the
// free heap it keeps for later allocations.
var inUseMetrics = []string{"/memory/classes/total:bytes", "/memory/classes/heap/released:bytes", "/memory/classes/heap/free:bytes"}

// InUse returns the memory this process's Go runtime holds for objects,
// stacks and its own bookkeeping, garbage not yet collected included. It
// costs a few microseconds and stops nothing, so a caller whose estimate
// says a limit is near can ask it before refusing.
func InUse() int64 {
	s := make([]metrics.Sample, len(inUseMetrics))
	for i, name := range inUseMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	v := func(i int) int64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(s[i].Value.Uint64())
	}
	return v(0) - v(1) - v(2)
}
