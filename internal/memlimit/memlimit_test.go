package memlimit

import (
	"runtime"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {999, "999 B"}, {1000, "1 kB"}, {12_345_678, "12.3 MB"},
		{4_608_000_000, "4.61 GB"}, {1 << 62, "4.61 EB"},
	} {
		if got := Format(c.n); got != c.want {
			t.Errorf("Format(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestDefault(t *testing.T) {
	n, ok := Physical()
	if runtime.GOOS == "linux" && !ok {
		t.Fatal("Physical cannot read /proc/meminfo")
	}
	if ok && Default() != n/2 {
		t.Errorf("Default() = %d, want half of %d", Default(), n)
	}
	if !ok && Default() != Fallback {
		t.Errorf("Default() = %d, want Fallback", Default())
	}
	if Or(123) != 123 || Or(0) != Default() {
		t.Errorf("Or(123) = %d, Or(0) = %d", Or(123), Or(0))
	}
}

// TestInUseSeesAllocations: memory held by a live allocation shows in
// InUse, and InUse never exceeds what the runtime has mapped.
func TestInUseSeesAllocations(t *testing.T) {
	before := InUse()
	block := make([]byte, 64<<20)
	for i := range block {
		block[i] = 1
	}
	after := InUse()
	if after-before < 60<<20 {
		t.Errorf("InUse grew by %d bytes over a 64 MiB allocation; want at least 60 MiB", after-before)
	}
	runtime.KeepAlive(block)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if now := InUse(); now <= 0 || uint64(now) > ms.Sys {
		t.Errorf("InUse = %d, runtime has %d mapped; want 0 < InUse <= Sys", now, ms.Sys)
	}
}
