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
