package netmodel

import (
	"math"
	"math/bits"
)

// The LogGOPS costs of one message of n bytes, following LogGOPSim: the
// sender's CPU is busy o + (n-1)O and its NIC g + (n-1)G; the first byte
// arrives L after the sender's o; the receiver's CPU is busy
// o + max((n-1)O, (n-1)G) (the message is only complete once its last byte
// is in) and its NIC g + (n-1)G. A message of n bytes costs (n-1) per-byte
// units because the first byte is covered by the per-message terms;
// empty and one-byte messages cost the same.
//
// Messages larger than Eager bytes use a rendezvous: the sender's request
// (an empty message) travels L to the receiver; once a matching receive is
// posted the receiver's clear-to-send travels L back; then the data moves
// as above. Control messages cost latency only.

func rest(n int64) int64 { return max(n-1, 0) }

// At returns the parameters that price an n-byte message: those of the
// regime n falls in, or p itself. The methods below price a message with
// the parameters At returns for its size.
func (p *LogGP) At(n int64) *LogGP {
	if len(p.Regimes) == 0 {
		return p // the common case, inlined
	}
	return p.regime(n)
}

func (p *LogGP) regime(n int64) *LogGP {
	for i := range p.Regimes {
		if n <= p.Regimes[i].UpTo {
			return &p.Regimes[i].LogGP
		}
	}
	return p
}

// SendCPU is the sender's CPU time for an n-byte message: o + (n-1)O.
func (p *LogGP) SendCPU(n int64) Duration { return p.Overhead + p.ByteOverhead.Times(rest(n)) }

// SendNIC is the time before the sender's NIC can inject another message:
// g + (n-1)G.
func (p *LogGP) SendNIC(n int64) Duration { return p.Gap + p.ByteGap.Times(rest(n)) }

// RecvCPU is the receiver's CPU time for an n-byte message:
// o + max((n-1)O, (n-1)G).
func (p *LogGP) RecvCPU(n int64) Duration {
	return p.Overhead + max(p.ByteOverhead.Times(rest(n)), p.ByteGap.Times(rest(n)))
}

// RecvNIC is the time before the receiver's NIC can take another message:
// g + (n-1)G.
func (p *LogGP) RecvNIC(n int64) Duration { return p.SendNIC(n) }

// Rendezvous reports whether an n-byte message uses the rendezvous protocol.
func (p *LogGP) Rendezvous(n int64) bool { return n > p.Eager }

// Transit is the time from the end of the sender's o to the arrival of the
// first byte: L.
func (p *LogGP) Transit() Duration { return p.Latency }

// OneWay is the closed-form time of one eager message between idle tasks,
// from the sender starting to the receiver finishing: o + L + o +
// max((n-1)O, (n-1)G). Tests use it to check the simulator.
func (p *LogGP) OneWay(n int64) Duration {
	return p.Overhead + p.Latency + p.RecvCPU(n)
}

// DataCosts are the per-byte parts of an n-byte message: the CPU's (n-1)O
// and the wire's (n-1)G. A rendezvous charges them when the data moves.
func (p *LogGP) DataCosts(n int64) (cpu, wire Duration) {
	return p.ByteOverhead.Times(rest(n)), p.ByteGap.Times(rest(n))
}

// Costs are all of one message's LogGOPS costs (see LogGP.Costs).
type Costs struct {
	SendCPU, SendNIC, RecvCPU, RecvNIC Duration
	DataCPU, DataWire                  Duration // DataCosts's
}

// Costs returns what SendCPU, SendNIC, RecvCPU, RecvNIC and DataCosts
// return for an n-byte message, from the two per-byte products they
// share: calling each works them out seven times, and the interpreter
// prices every message whose size differs from the one before.
func (p *LogGP) Costs(n int64) Costs {
	perO, perG := p.DataCosts(n)
	nic := p.Gap + perG
	return Costs{
		SendCPU: p.Overhead + perO, SendNIC: nic,
		RecvCPU: p.Overhead + max(perO, perG), RecvNIC: nic,
		DataCPU: perO, DataWire: perG,
	}
}

// MaxBytes is the size of the largest message whose per-byte costs, (n-1)G
// and (n-1)O, stay within MaxTime, under the largest per-byte cost of any
// regime.
func (p *LogGP) MaxBytes() int64 {
	per := uint64(max(p.ByteGap, p.ByteOverhead))
	for _, r := range p.Regimes {
		per = max(per, uint64(r.ByteGap), uint64(r.ByteOverhead))
	}
	hi, lo := bits.Mul64(uint64(MaxTime), 1000) // fs
	if hi >= per {
		return math.MaxInt64 // no int64 size costs that much
	}
	q, _ := bits.Div64(hi, lo, per)
	return int64(min(q, math.MaxInt64-1)) + 1
}
