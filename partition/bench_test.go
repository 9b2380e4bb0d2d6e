package partition

import "testing"

// BenchmarkKWay3DGrid1M partitions the 100x100x100 grid (a million
// vertices, three million edges) into 64 parts.
func BenchmarkKWay3DGrid1M(b *testing.B) {
	g := grid3D(100, 100, 100)
	b.ReportAllocs()
	var cut int64
	for b.Loop() {
		_, c, err := KWay(g, 64, Options{})
		if err != nil {
			b.Fatal(err)
		}
		cut = c
	}
	b.ReportMetric(float64(cut), "cut")
}
