package repl

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/parley-hpc/parley/netmodel"
)

// platform is the session's platform: a preset or file, the fields set on
// it and the compute and network scales, and the platform they make.
//
// A field is set by editing the platform's TOML and parsing it again, so
// that every field keeps the one reader netmodel has, with its units,
// checks and messages.
type platform struct {
	name   string // the preset or file, as given
	text   []byte // its TOML
	source string // its name in errors
	sets   []fieldSet
	// compute and network scale the time of computation and of
	// communication: 0.5 halves it.
	compute, network float64
	plat             *netmodel.Platform
}

// fieldSet is `set FIELD VALUE` on the platform.
type fieldSet struct{ field, value string }

// loadPlatform reads the preset or platform file nameOrPath.
func loadPlatform(nameOrPath string) (*platform, error) {
	text, source, err := netmodel.ReadPlatform(nameOrPath)
	if err != nil {
		return nil, err
	}
	p := &platform{name: nameOrPath, text: text, source: source, compute: 1, network: 1}
	return p, p.build()
}

// with returns a copy of p with field set to value, or scaled.
func (p *platform) with(change func(q *platform)) (*platform, error) {
	q := *p
	q.sets = slices.Clone(p.sets)
	change(&q)
	return &q, q.build()
}

// build makes p.plat from the text, the fields set and the scales.
func (p *platform) build() error {
	text := p.text
	if len(p.sets) > 0 {
		var doc map[string]any
		if err := toml.Unmarshal(p.text, &doc); err != nil {
			return err
		}
		for _, s := range p.sets {
			if err := setField(doc, s.field, tomlValue(s.value)); err != nil {
				return fmt.Errorf("set %s: %w", s.field, err)
			}
		}
		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(doc); err != nil {
			return err
		}
		text = buf.Bytes()
	}
	plat, err := netmodel.Parse(text, p.source)
	if err != nil {
		return err
	}
	scale(plat, p.compute, p.network)
	if err := plat.Validate(); err != nil {
		return err
	}
	plat.Name = p.describe()
	p.plat = plat
	return nil
}

// describe names the platform with what was changed on it.
func (p *platform) describe() string {
	var b strings.Builder
	b.WriteString(p.name)
	for _, s := range p.sets {
		fmt.Fprintf(&b, ", %s=%s", s.field, s.value)
	}
	if p.compute != 1 {
		fmt.Fprintf(&b, ", compute x%g", p.compute)
	}
	if p.network != 1 {
		fmt.Fprintf(&b, ", network x%g", p.network)
	}
	return b.String()
}

// scale multiplies the time computation takes by compute and the time
// messages take (every LogGOPS parameter) by network. A compute of 0
// makes computation free, as the largest rates a machine can have.
func scale(p *netmodel.Platform, compute, network float64) {
	if compute != 1 {
		for i := range p.Machine.Nodes {
			g := &p.Machine.Nodes[i]
			if compute == 0 {
				g.FlopRate, g.MemBandwidth, g.Speed = math.MaxFloat64, math.MaxFloat64, math.MaxFloat64
				continue
			}
			g.FlopRate /= compute
			g.MemBandwidth /= compute
			g.Speed /= compute
		}
	}
	if network != 1 {
		scaleLink(&p.Network, network)
		if p.Intra != nil {
			intra := *p.Intra
			scaleLink(&intra, network)
			p.Intra = &intra
		}
	}
}

// scaleLink scales l's parameters and its regimes', in a copy of the
// regimes: the platform scaled may share them with others.
func scaleLink(l *netmodel.LogGP, f float64) {
	times := func(d netmodel.Duration) netmodel.Duration { return netmodel.Duration(math.Round(float64(d) * f)) }
	perByte := func(b netmodel.PerByte) netmodel.PerByte { return netmodel.PerByte(math.Round(float64(b) * f)) }
	l.Latency, l.Overhead, l.Gap = times(l.Latency), times(l.Overhead), times(l.Gap)
	l.ByteGap, l.ByteOverhead = perByte(l.ByteGap), perByte(l.ByteOverhead)
	l.Regimes = slices.Clone(l.Regimes)
	for i := range l.Regimes {
		scaleLink(&l.Regimes[i].LogGP, f)
	}
}

// tomlValue reads a value typed after set as TOML would hold it: a
// whole number, a number, a boolean, or else a string such as "20us".
func tomlValue(s string) any {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	if b, err := strconv.ParseBool(s); err == nil && (s == "true" || s == "false") {
		return b
	}
	return strings.Trim(s, `"`)
}

// fieldStep is one step of a field's path: a key, and for an array of
// tables the element (-1: every element).
var fieldStep = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+)\])?$`)

// setField sets the field at path ("network.L", "machine.nodes[1].flops",
// "machine.nodes.flops" for every node group) in the decoded document.
// Keys the platform format does not know are left for netmodel.Parse to
// report with the keys it knows.
func setField(doc map[string]any, path string, v any) error {
	steps := strings.Split(path, ".")
	tables := []map[string]any{doc}
	for i, step := range steps {
		m := fieldStep.FindStringSubmatch(step)
		if m == nil {
			return fmt.Errorf("%q is not a field name (write it as in a platform file: network.L, machine.nodes[0].flops)", step)
		}
		key, index := m[1], -1
		if m[2] != "" {
			index, _ = strconv.Atoi(m[2])
		}
		if i == len(steps)-1 {
			if index >= 0 {
				return fmt.Errorf("%s is a value, not an array of tables", key)
			}
			for _, t := range tables {
				t[key] = v
			}
			return nil
		}
		var next []map[string]any
		for _, t := range tables {
			switch sub := t[key].(type) {
			case nil:
				if index >= 0 {
					return fmt.Errorf("there is no %s[%d]", key, index)
				}
				nt := map[string]any{}
				t[key] = nt
				next = append(next, nt)
			case map[string]any:
				if index >= 0 {
					return fmt.Errorf("%s is a table, not an array of tables", key)
				}
				next = append(next, sub)
			case []map[string]any:
				if index >= len(sub) {
					return fmt.Errorf("there is no %s[%d]: the platform has %d", key, index, len(sub))
				}
				if index >= 0 {
					next = append(next, sub[index])
				} else {
					next = append(next, sub...)
				}
			default:
				return fmt.Errorf("%s is a value, not a table", key)
			}
		}
		tables = next
	}
	return nil
}

// fields lists the platform's fields as set writes them, for completion:
// every value in its TOML, and for an array of tables each element's and
// all elements' ("machine.nodes.flops").
func (p *platform) fields() []string {
	var doc map[string]any
	if toml.Unmarshal(p.text, &doc) != nil {
		return nil
	}
	seen := map[string]bool{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			switch v := v.(type) {
			case map[string]any:
				walk(prefix+k+".", v)
			case []map[string]any:
				for i, e := range v {
					walk(fmt.Sprintf("%s%s[%d].", prefix, k, i), e)
					walk(prefix+k+".", e)
				}
			default:
				seen[prefix+k] = true
			}
		}
	}
	walk("", doc)
	return slices.Sorted(maps.Keys(seen))
}
