package logfile

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAggregate(t *testing.T) {
	data := []float64{4, 1, 10, 3, 2}
	// Worked by hand: sorted 1 2 3 4 10, mean 4, deviations from the
	// median 3 are 2 1 0 1 7, squares about the mean 9 4 1 0 36.
	for _, tc := range []struct {
		f    Func
		pct  float64
		want float64
	}{
		{Mean, 0, 4},
		{HarmonicMean, 0, 5 / (1 + 1.0/2 + 1.0/3 + 1.0/4 + 1.0/10)},
		{GeometricMean, 0, math.Pow(240, 0.2)},
		{Median, 0, 3},
		{MAD, 0, 1},
		{Variance, 0, 12.5},
		{StdDev, 0, math.Sqrt(12.5)},
		{Sum, 0, 20},
		{Minimum, 0, 1},
		{Maximum, 0, 10},
		{Final, 0, 2},
		{Percentile, 90, 7.6}, // h = 4*0.9+1 = 4.6: 4 + 0.6*(10-4)
		{Percentile, 0, 1},
		{Percentile, 100, 10},
		{Percentile, 50, 3},
	} {
		got, err := Aggregate(tc.f, data, tc.pct)
		if err != nil || math.Abs(got-tc.want) > 1e-12*math.Abs(tc.want) {
			t.Errorf("%s %v: got %v, %v; want %v", Label(tc.f, tc.pct), tc.pct, got, err, tc.want)
		}
	}
	if got, _ := Aggregate(Median, []float64{1, 2, 3, 4}, 0); got != 2.5 {
		t.Errorf("median of an even count = %v, want 2.5", got)
	}
	if got, _ := Aggregate(Variance, []float64{7}, 0); got != 0 {
		t.Errorf("variance of one value = %v, want 0", got)
	}
	if got, err := Aggregate(Only, []float64{5, 5, 5}, 0); got != 5 || err != nil {
		t.Errorf("THE of equal values = %v, %v", got, err)
	}
	if _, err := Aggregate(Only, []float64{5, 6}, 0); err == nil || !strings.Contains(err.Error(), "5 and 6") {
		t.Errorf("THE of different values: %v", err)
	}
	if _, err := Aggregate(Percentile, data, 101); err == nil {
		t.Error("101st percentile accepted")
	}
}

func TestLabel(t *testing.T) {
	for pct, want := range map[float64]string{1: "(1st percentile)", 2: "(2nd percentile)", 3: "(3rd percentile)",
		11: "(11th percentile)", 12: "(12th percentile)", 21: "(21st percentile)", 95: "(95th percentile)", 100: "(100th percentile)"} {
		if got := Label(Percentile, pct); got != want {
			t.Errorf("Label(Percentile, %v) = %q, want %q", pct, got, want)
		}
	}
	if got := Label(Median, 0); got != "(median)" {
		t.Errorf("Label(Median) = %q", got)
	}
}

func TestHist(t *testing.T) {
	v, n := Hist([]float64{3, 1, 3, 2, 3, 1})
	if !cmp.Equal(v, []float64{1, 2, 3}) || !cmp.Equal(n, []float64{2, 1, 3}) {
		t.Errorf("Hist = %v %v", v, n)
	}
}

func TestNumber(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1.5: "1.5", 1e20: "1e+20", 1.0 / 3: "0.3333333333", 123456789012: "1.23456789e+11"} {
		if got := Number(v); got != want {
			t.Errorf("Number(%v) = %q, want %q", v, got, want)
		}
	}
	// glibc's spellings, as coNCePTuaL prints and logs them.
	for _, tt := range []struct {
		v    float64
		want string
	}{
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"}, {math.Copysign(math.NaN(), -1), "-nan"},
		{math.Copysign(0, -1), "-0"},
	} {
		if got := Number(tt.v); got != tt.want {
			t.Errorf("Number(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// TestMinMaxLikeConceptual: MINIMUM and MAXIMUM run coNCePTuaL's loop from
// the largest double, so a NaN is never taken and infinities alone give
// that double (coNCePTuaL 1.5.1b logs 1.797693135e+308 for the minimum of
// 1/0, 2/0, ...).
func TestMinMaxLikeConceptual(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tt := range []struct {
		f    Func
		data []float64
		want float64
	}{
		{Minimum, []float64{nan, 2, 1}, 1},
		{Maximum, []float64{1, nan, 2}, 2},
		{Minimum, []float64{-inf, nan, inf}, -inf},
		{Minimum, []float64{inf, inf}, math.MaxFloat64},
		{Maximum, []float64{-inf}, -math.MaxFloat64},
		{Maximum, []float64{nan}, -math.MaxFloat64},
	} {
		if got, err := Aggregate(tt.f, tt.data, 0); err != nil || got != tt.want {
			t.Errorf("%s of %v = %v (%v), want %v", Label(tt.f, 0), tt.data, got, err, tt.want)
		}
	}
}

func sample() *File {
	return &File{
		Header: []KV{{"coNCePTuaL backend", "parley interpreter"}, {"Number of tasks", "2"}},
		Source: "TASK 0 LOGS 1 AS \"one\"\n",
		Tables: []Table{
			{Columns: []Column{
				{Heading: "Bytes", Label: "(only value)", Rows: []string{"8", "64"}},
				{Heading: `Time "us"`, Label: "(median)", Rows: []string{"1.25"}},
			}},
			{Columns: []Column{
				{Heading: "x", Label: Label(Histogram, 0), Hist: true, Rows: []string{"1", "2", "3", "1"}},
			}},
		},
		Footer: []KV{{"", "Program exited normally."}, {"Elapsed time", "0.5 seconds (predicted)"}},
	}
}

// The golden file was checked by hand against the layout of coNCePTuaL's
// logs (see LANGUAGE.md section 9).
func TestWriteGolden(t *testing.T) {
	var b bytes.Buffer
	if err := sample().Write(&b); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/sample.log")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("log differs from testdata/sample.log (-want +got):\n%s", diff)
	}
}

func TestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	f := sample()
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f, got); diff != "" {
		t.Errorf("read back differs (-wrote +read):\n%s", diff)
	}
}

func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	sample().Write(&b)
	f.Add(b.String())
	f.Add("###\n\"a\n")
	f.Add("#\n" + rule + "\n\"a\\012b\\\",c\",\"\\0\"\n\"(mean)\"\n1,2\n" + rule + "\n")
	f.Fuzz(func(t *testing.T, s string) {
		lf, err := Read(strings.NewReader(s))
		if err == nil && lf == nil {
			t.Fatal("nil file without an error")
		}
	})
}

// awkwardHeading holds every character the format gives a meaning to: a
// newline and other control characters, a quote, a comma, a backslash,
// and a backslash before digits as an octal escape would have them.
const awkwardHeading = "a\nb\"c,d\\e\tf\rg\x7fh\\012i\x00"

// TestHeadingRoundTrip: headings come back byte for byte, and every
// table row stays on one line.
func TestHeadingRoundTrip(t *testing.T) {
	f := sample()
	f.Tables[0].Columns[1].Heading = awkwardHeading
	f.Tables[1].Columns[0].Heading = "hist\n" + awkwardHeading
	f.Header = append(f.Header, KV{"Parameter\nwith a newline", "value\r\nover lines"})
	f.Footer[0].Value = "Program exited abnormally: deadlock\n\ttask 0 waits"
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if line != "" && line[0] != '#' && line[0] != '"' && (line[0] < '0' || line[0] > '9') {
			t.Errorf("a line neither comment nor table row: %q in\n%s", line, b.String())
		}
	}
	if !strings.Contains(b.String(), `"a\012b\"c,d\\e\011f\015g\177h\\012i\000"`) {
		t.Errorf("heading escaped wrongly:\n%s", b.String())
	}
	got, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if h := got.Tables[0].Columns[1].Heading; h != awkwardHeading {
		t.Errorf("heading read back as %q, want %q", h, awkwardHeading)
	}
	if c := got.Tables[0].Columns; len(c) != 2 || !cmp.Equal(c[1].Rows, []string{"1.25"}) || !cmp.Equal(c[0].Rows, []string{"8", "64"}) {
		t.Errorf("columns read back as %+v", c)
	}
	if h := got.Tables[1].Columns[0]; h.Heading != "hist\n"+awkwardHeading || !h.Hist || len(h.Rows) != 4 {
		t.Errorf("histogram read back as %+v", h)
	}
	if kv := got.Header[len(got.Header)-1]; kv != (KV{"Parameter with a newline", "value  over lines"}) {
		t.Errorf("header line read back as %+v", kv)
	}
	if kv := got.Footer[0]; kv != (KV{"Program exited abnormally", "deadlock  task 0 waits"}) {
		t.Errorf("footer line read back as %+v", kv)
	}
}

// TestReadConceptualQuoting: coNCePTuaL escapes only backslashes and
// quotes; its headings read as it meant them.
func TestReadConceptualQuoting(t *testing.T) {
	got := splitCSV(`"C:\\012 \"x\"","plain",3`)
	if want := []string{`C:\012 "x"`, "plain", "3"}; !cmp.Equal(got, want) {
		t.Errorf("splitCSV = %q, want %q", got, want)
	}
}

func FuzzHeadingRoundTrip(f *testing.F) {
	f.Add(awkwardHeading)
	f.Add(`\\\"\0123`)
	f.Fuzz(func(t *testing.T, h string) {
		got := splitCSV(quote(h) + "," + quote(h))
		if len(got) != 2 || got[0] != h || got[1] != h {
			t.Fatalf("quote(%q) reads back as %q", h, got)
		}
		if strings.ContainsAny(quote(h), "\n\r") {
			t.Fatalf("quote(%q) = %q spans lines", h, quote(h))
		}
	})
}
