package calibrate

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// Machine says where and when the measurements were made, for the
// platform file's comments.
type Machine struct {
	Name  string    // the platform's name
	Host  string    // the host measured
	MPI   string    // the MPI's version line
	Cores int       // the host's processors
	Date  time.Time // when
}

// WritePlatform writes the fitted parameters as a platform file that
// netmodel reads (the format of stdlib/platforms/README.md), with comments
// that say how each parameter was fitted and how well, and the ping-pong
// and train measurements beside the model's values.
func WritePlatform(w io.Writer, m Machine, f *Fit) error {
	b := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(b, format+"\n", a...) }
	p("# Written by parley calibrate on %s at %s.", m.Host, m.Date.UTC().Format("2006-01-02 15:04 UTC"))
	comment(b, "%s; %d processors; the machine model is for runs of %d tasks on this host.", m.MPI, m.Cores, f.NP)
	p("# Every task shares one node: [network] is the MPI's on-node transport.")
	p("name = %q", m.Name)
	p("description = %q", fmt.Sprintf("%s measured by parley calibrate, %d tasks", m.Host, f.NP))
	p("")
	p("[network]")
	p("model = \"loggp\"")
	last := f.Regimes[len(f.Regimes)-1]
	if len(f.Regimes) > 1 {
		comment(b, "L, o, g and G here price the largest messages, above %d B (the last regime); [[network.regime]] below prices the smaller ones. With one set of L, o, g and G for every size (the eager fit: L = %.4g us, o = %.4g us, g = %.4g us, G = %.4g ns/B) the ping-pong model would be off by %s; with the regimes: %s.",
			f.Regimes[len(f.Regimes)-2].UpTo, f.L, f.O, f.Gap, 1e3*f.G, f.Single, f.PingPong)
		regimeComment(b, f, len(f.Regimes)-1)
	} else {
		comment(b, "L and G: relative least squares of the LogGOPS eager ping-pong, o + L + o + (n-1)G up to S, with o fixed. The model (2L more above S) against the whole sweep: %s.", f.PingPong)
	}
	p("L = %q", us(last.L))
	// With regimes, o and g below are the last regime's, and the
	// overheads and trains were fitted for the eager fit.
	oIs, gIs := "o:", "g:"
	if len(f.Regimes) > 1 {
		oIs = fmt.Sprintf("The eager fit's o, %.4g us, is the", f.O)
		gIs = fmt.Sprintf("The eager fit's g, %.4g us, is the", f.Gap)
	}
	comment(b, "%s mean intercept of the send overhead (MPI_Send into an idle receiver, %d eager sizes: %s) and of the receive overhead (MPI_Recv of a message already there, %s). Send %.4g us + %.4g ns/B, receive %.4g us + %.4g ns/B.",
		oIs, f.SendUsed, f.SendLine.Quality, f.RecvLine.Quality, f.SendLine.Intercept, 1e3*f.SendLine.Slope, f.RecvLine.Intercept, 1e3*f.RecvLine.Slope)
	p("o = %q", us(last.O))
	comment(b, "%s intercept of the periods of trains of 1 to 32 back-to-back messages over the eager sizes, period = g + (n-1)G_stream: %s; G_stream = %.4g ns/B (%s).",
		gIs, f.Train.Quality, 1e3*f.Train.Slope, bandwidth(f.Train.Slope))
	p("g = %q", us(last.Gap))
	p("G = %q", perByte(last.G))
	p("# O: slope of the send overhead.")
	p("O = %q", perByte(f.ByteOverhead))
	comment(b, "S: the size after which the receive overheads leave the eager trend the most (the rendezvous waits for a round trip). The ping-pong as a free piecewise line a + (n-1)G' + [n > S] jump: a = %.4g us, G' = %.4g ns/B, jump = %.4g us; %s.",
		f.Free.A, 1e3*f.Free.G, f.Free.Jump, f.Free.Quality)
	p("S = %q", fmt.Sprintf("%dB", f.Eager))
	for _, n := range f.Notes {
		p("#")
		comment(b, "Note: %s", n)
	}
	for i, r := range f.Regimes[:len(f.Regimes)-1] {
		p("")
		p("[[network.regime]]")
		regimeComment(b, f, i)
		p("upto = %q", fmt.Sprintf("%dB", r.UpTo))
		p("L = %q", us(r.L))
		p("o = %q", us(r.O))
		p("g = %q", us(r.Gap))
		p("G = %q", perByte(r.G))
	}
	p("")
	p("[machine]")
	p("# One node with all %d tasks: each gets 1/%d of the rates below, as it did", f.NP, f.NP)
	p("# while the kernels ran on all of them at once.")
	p("tasks_per_node = %d", f.NP)
	p("mapping = \"block\"")
	p("")
	p("[[machine.nodes]]")
	p("name = %q", m.Host)
	comment(b, "flops: %d x the inverse slope of the C backend's compute kernel (pr_work) on a 64 KiB buffer against its flops: %s.", f.NP, f.FlopLine.Quality)
	p("flops = %q", fmt.Sprintf("%.6gGF/s", float64(f.NP)*f.FlopRate/1e9))
	comment(b, "memory_bandwidth: %d x the inverse slope of the same kernel without flops against the bytes it moves: %s.", f.NP, f.StreamLine.Quality)
	p("memory_bandwidth = %q", fmt.Sprintf("%.6gGB/s", float64(f.NP)*f.MemBandwidth/1e9))
	p("")
	p("# Ping-pong, half a round trip (median), measured and as this file prices it:")
	p("#   %10s %12s %12s %8s", "bytes", "measured us", "model us", "error")
	for _, pt := range f.Measured {
		model := f.HalfRTT(pt.Size)
		p("#   %10d %12.4g %12.4g %+7.1f%%", pt.Size, pt.Us, model, 100*(model-pt.Us)/pt.Us)
	}
	p("# Trains, time per message (slope over train lengths 1-32):")
	p("#   %10s %12s", "bytes", "us/message")
	for _, pt := range f.Periods {
		p("#   %10d %12.4g", pt.Size, pt.Us)
	}
	return b.Flush()
}

// regimeComment says which sizes regime i holds and how each of its
// parameters was fitted, and how well.
func regimeComment(b *bufio.Writer, f *Fit, i int) {
	r := f.Regimes[i]
	sizes := fmt.Sprintf("up to %d B", r.UpTo)
	switch {
	case i == len(f.Regimes)-1:
		sizes = fmt.Sprintf("above %d B", f.Regimes[i-1].UpTo)
	case i > 0:
		sizes = fmt.Sprintf("%d to %d B", f.Regimes[i-1].UpTo+1, r.UpTo)
	}
	kind, hops := "eager", "o + L + o + (n-1)G"
	if r.Rendezvous {
		kind, hops = "rendezvous", "o + 3L + o + (n-1)G (request, clear-to-send, data)"
	}
	oFrom := "the eager fit's (no overheads of these sizes measured without waiting)"
	switch {
	case r.OwnO:
		oFrom = "the mean intercept of these sizes' send and receive overheads"
	case r.Rendezvous && i > 0:
		oFrom = "the largest eager messages' (a rendezvous send waits for its receiver)"
	}
	if r.OFromPingPong {
		oFrom = "half the ping-pong's intercept, with L = 0 (the overheads measured exceed half the ping-pong: tasks take turns on the processors)"
	}
	gFrom := "the eager fit's (fewer than two train sizes here)"
	if r.OwnGap {
		gFrom = "the intercept of these sizes' train periods"
		if r.Rendezvous {
			gFrom += ", halved (a rendezvous holds the NIC for its request and its data)"
		}
	}
	comment(b, "Regime %d, %s messages %s: L and G by relative least squares of the ping-pong, %s, with o fixed: %s. o: %s; g: %s.",
		i+1, kind, sizes, hops, r.PingPong, oFrom, gFrom)
}

// us writes microseconds as a duration in picoseconds, which keeps what
// the parser reads exact.
func us(v float64) string { return fmt.Sprintf("%dps", int64(math.Round(v*1e6))) }

// perByte writes microseconds per byte in picoseconds per byte with three
// decimals: femtoseconds, the parser's resolution.
func perByte(v float64) string { return fmt.Sprintf("%.3fps/B", v*1e6) }

func bandwidth(usPerByte float64) string {
	if usPerByte <= 0 {
		return "no per-byte cost"
	}
	return fmt.Sprintf("%.3g GB/s", 1e-3/usPerByte)
}

// comment writes a comment wrapped at 76 columns.
func comment(b *bufio.Writer, format string, a ...any) {
	line := "#"
	for _, w := range strings.Fields(fmt.Sprintf(format, a...)) {
		if len(line)+1+len(w) > 76 && line != "#" {
			fmt.Fprintln(b, line)
			line = "#  "
		}
		line += " " + w
	}
	fmt.Fprintln(b, line)
}
