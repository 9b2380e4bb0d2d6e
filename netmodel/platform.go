package netmodel

// Platform files
//
// A platform file is TOML (https://toml.io). Keys are case-sensitive: o and
// O, g and G are different parameters, as in LogGOPS. Every quantity is a
// string with a unit (see units.go); sizes and flop rates may also be bare
// numbers (bytes, operations per second), and any quantity may be 0.
//
//	name = "ib-edr"                # required
//	description = "..."            # optional
//
//	[network]                      # required: between tasks on different nodes
//	model = "loggp"                # required: "loggp", "flow" or "packet"
//	L = "1.0us"                    # required: latency
//	o = "0.25us"                   # required: CPU overhead per message
//	g = "0.1us"                    # required: gap between messages
//	G = "12.5GB/s"                 # required: bandwidth, or time per byte "80ps/B"
//	O = "0ns/B"                    # CPU overhead per byte; default 0
//	S = "64KiB"                    # eager limit; default 64KiB
//
//	[[network.regime]]             # optional, any number: the parameters of
//	upto = "256B"                  # messages of at most upto bytes (and more
//	o = "0.15us"                   # than the previous regime's upto): any of
//	L = "0.05us"                   # L, o, g, G, O, the others [network]'s;
//	                               # upto increasing; larger messages: [network]
//
//	[network.intra]                # optional: between tasks on one node;
//	L = "0.2us"                    # the keys of [network], each defaulting
//	G = "16GB/s"                   # to its value there; its regimes
//	                               # ([[network.intra.regime]]) default to
//	                               # [network]'s, applied to its own values
//
//	[machine]                      # required
//	tasks_per_node = 1             # default 1
//	mapping = "block"              # "block" (default) or "cyclic"
//	int_size = "4B"                # bytes in an INTEGER; default 4
//	page_size = "4KiB"             # bytes in a PAGE; default 4096
//
//	[[machine.nodes]]              # one or more groups of identical nodes
//	name = "compute"               # required
//	count = 0                      # nodes in the group; 0 (the default) means
//	                               # all remaining nodes, last group only
//	flops = "2TF/s"                # required, per node
//	memory_bandwidth = "200GB/s"   # required, per node
//	speed = 1.0                    # COMPUTES FOR durations are divided by it; default 1
//
//	[collectives]                  # optional: algorithm per operation
//	allreduce = "ring"
//
// Under model = "flow", L and G are not allowed: [network.topology] gives
// the links (see topology.go), and the network table may also set factors
// ("simgrid" or "none"), latency_factor, bandwidth_factor, tcp_gamma and
// precision (see FlowParams). Under model = "packet" the same holds, and
// the network table may set mtu and buffer (see PacketParams) instead of
// the flow options. Their regimes may set o, g and O only.
//
// Errors name the file and the field, e.g. `ib-edr.toml: network.L: "1.5
// parsecs" is not a duration (use us, ns, ms or s)`; TOML syntax errors
// name the line instead. Unknown keys are errors. The presets are files in
// this format in stdlib/platforms.

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/parley-hpc/parley/stdlib"
)

// DefaultPlatform is the preset a run is priced on unless told otherwise.
const DefaultPlatform = "ib-edr"

// PlatformError is a problem with a platform: a TOML syntax error, a
// missing, malformed or unknown field, or a value out of range.
type PlatformError struct {
	Source string // the file name or "preset NAME"; empty from Validate
	Line   int    // the line of a TOML syntax error; 0 for other errors
	Field  string // the field as a platform file names it: "network.L", "machine.nodes[1].flops"
	Err    error
}

// Error returns "SOURCE: FIELD: problem", or "SOURCE:LINE: problem" for a
// syntax error.
func (e *PlatformError) Error() string {
	var b strings.Builder
	if e.Source != "" {
		b.WriteString(e.Source)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	// A toml.ParseError repeats the line; its Message does not.
	if pe, ok := errors.AsType[toml.ParseError](e.Err); ok {
		b.WriteString(pe.Message)
	} else {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error, a toml.ParseError for a syntax
// error.
func (e *PlatformError) Unwrap() error { return e.Err }

// fieldError is a problem with one field of a platform.
func fieldError(field string, err error) error {
	return &PlatformError{Field: field, Err: err}
}

// Parse reads a platform file, in the format described at the top of
// platform.go and in stdlib/platforms/README.md, and validates it. source
// names the file in errors and becomes Platform.Source.
func Parse(data []byte, source string) (*Platform, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		perr := &PlatformError{Source: source, Err: err}
		if pe, ok := errors.AsType[toml.ParseError](err); ok {
			perr.Line = pe.Position.Line
		}
		return nil, perr
	}
	r := &platformReader{source: source}
	p := readPlatform(r.section("", doc))
	if r.err != nil {
		return nil, r.err
	}
	if err := p.Validate(); err != nil {
		if perr, ok := errors.AsType[*PlatformError](err); ok {
			perr.Source = source
		}
		return nil, err
	}
	p.Source = source
	return p, nil
}

// Load reads and validates the platform file at path.
func Load(path string) (*Platform, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// Presets returns the names of the platform presets, sorted.
func Presets() []string {
	files, _ := fs.Glob(stdlib.Platforms, "platforms/*.toml") // the pattern is valid
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(path.Base(f), ".toml")
	}
	slices.Sort(names)
	return names
}

func presetList() string { return strings.Join(Presets(), ", ") }

// Preset returns the preset platform called name, with Source "preset
// NAME".
func Preset(name string) (*Platform, error) {
	if !slices.Contains(Presets(), name) {
		return nil, fmt.Errorf("no preset %q (presets: %s)", name, presetList())
	}
	return Resolve(name)
}

// Resolve returns the preset called nameOrPath if there is one, and
// otherwise loads the file nameOrPath.
func Resolve(nameOrPath string) (*Platform, error) {
	data, source, err := ReadPlatform(nameOrPath)
	if err != nil {
		return nil, err
	}
	return Parse(data, source)
}

// ReadPlatform returns the text of the preset called nameOrPath if there
// is one, and otherwise of the file nameOrPath, with the source name Parse
// takes: "preset NAME" or the path. Callers that change a platform's
// fields (the REPL's set) edit this text and parse it again, so that every
// field keeps one reader and one set of messages.
func ReadPlatform(nameOrPath string) (data []byte, source string, err error) {
	if slices.Contains(Presets(), nameOrPath) {
		data, err := stdlib.Platforms.ReadFile("platforms/" + nameOrPath + ".toml")
		return data, "preset " + nameOrPath, err
	}
	data, err = os.ReadFile(nameOrPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("platform %q is neither a preset (%s) nor a file: %w", nameOrPath, presetList(), err)
	}
	return data, nameOrPath, err
}

// Validate reports the first problem with the platform, naming the field
// as a platform file does.
func (p *Platform) Validate() error {
	if err := validateLink("network", &p.Network); err != nil {
		return err
	}
	if p.Intra != nil {
		if err := validateLink("network.intra", p.Intra); err != nil {
			return err
		}
	}
	if err := p.Machine.Validate(); err != nil {
		return err
	}
	if err := p.validateFlow(); err != nil {
		return err
	}
	for _, op := range slices.Sorted(maps.Keys(p.Collectives)) {
		switch {
		case op < 0 || op >= numOps:
			return fieldError("collectives", fmt.Errorf("%d is not an operation", int(op)))
		case p.Collectives[op] == "":
			return fieldError("collectives."+op.String(), errors.New("must name an algorithm"))
		case !ValidAlgorithm(op, p.Collectives[op]):
			return fieldError("collectives."+op.String(), fmt.Errorf("%q is not an algorithm of %v; use one of %s", p.Collectives[op], op, collNames(op)))
		}
	}
	return nil
}

// validateLink checks the LogGOPS parameters of the table at path and
// its regimes.
func validateLink(path string, l *LogGP) error {
	if err := validateParams(path, l); err != nil {
		return err
	}
	for i := range l.Regimes {
		r := &l.Regimes[i]
		field := fmt.Sprintf("%s.regime[%d]", path, i)
		switch {
		case r.UpTo < 0:
			return fieldError(field+".upto", errors.New("must not be negative"))
		case i > 0 && r.UpTo <= l.Regimes[i-1].UpTo:
			return fieldError(field+".upto", fmt.Errorf("%d B is not above the previous regime's upto (%d B): list the regimes by increasing size", r.UpTo, l.Regimes[i-1].UpTo))
		case r.Eager != l.Eager:
			return fieldError(field+".S", fmt.Errorf("%d B differs from %s.S (%d B); the eager limit is the link's, not a regime's", r.Eager, path, l.Eager))
		case len(r.Regimes) > 0:
			return fieldError(field, errors.New("a regime cannot have regimes of its own"))
		}
		if err := validateParams(field, &r.LogGP); err != nil {
			return err
		}
	}
	return nil
}

// validateParams checks one set of LogGOPS parameters.
func validateParams(path string, l *LogGP) error {
	for _, f := range []struct {
		key   string
		value int64
	}{
		{"L", int64(l.Latency)}, {"o", int64(l.Overhead)}, {"g", int64(l.Gap)},
		{"G", int64(l.ByteGap)}, {"O", int64(l.ByteOverhead)}, {"S", l.Eager},
	} {
		if f.value < 0 {
			return fieldError(path+"."+f.key, errors.New("must not be negative"))
		}
	}
	for _, f := range []struct {
		key   string
		value Duration
	}{{"L", l.Latency}, {"o", l.Overhead}, {"g", l.Gap}} {
		if f.value > MaxTime {
			return fieldError(path+"."+f.key, fmt.Errorf("%v is beyond the longest time a simulation can reach (%v)", f.value, MaxTime))
		}
	}
	return nil
}

// validateFlow checks the flow model's topology and options, and that a
// loggp platform has neither.
func (p *Platform) validateFlow() error {
	if p.Model == LogGPModel {
		if p.Topology != nil {
			return fieldError("network.topology", errors.New(`only the flow and packet models use a topology; set network.model = "flow" or "packet"`))
		}
		return nil
	}
	if p.Topology == nil {
		return fieldError("network.topology", fmt.Errorf("missing; the %v model needs a topology", p.Model))
	}
	if p.Network.Latency != 0 || p.Network.ByteGap != 0 {
		return fieldError("network.L", fmt.Errorf("the %v model takes latency and bandwidth from network.topology; L and G must be 0", p.Model))
	}
	for i, r := range p.Network.Regimes {
		if r.Latency != 0 || r.ByteGap != 0 {
			return fieldError(fmt.Sprintf("network.regime[%d].L", i), fmt.Errorf("the %v model takes latency and bandwidth from network.topology; L and G must be 0", p.Model))
		}
	}
	if err := p.Topology.Validate(); err != nil {
		return err
	}
	if p.Model == PacketModel {
		if err := p.Packet.validate(); err != nil {
			return err
		}
	}
	f := &p.Flow
	for _, x := range []struct {
		key string
		v   float64
	}{{"network.latency_factor", f.LatencyFactor}, {"network.bandwidth_factor", f.BandwidthFactor}} {
		if !isPositive(x.v) || x.v > 1e6 {
			return fieldError(x.key, fmt.Errorf("%g is not a positive factor", x.v))
		}
	}
	if f.TCPGamma < 0 {
		return fieldError("network.tcp_gamma", fmt.Errorf("%d is negative", f.TCPGamma))
	}
	if f.Precision < 0 || f.Precision > Second {
		return fieldError("network.precision", fmt.Errorf("%v is not between 0 and 1s", f.Precision))
	}
	return nil
}

// CheckTasks reports whether numTasks tasks fit the platform's topology:
// the nodes they occupy under the machine's tasks per node must exist.
func (p *Platform) CheckTasks(numTasks int64) error {
	if p.Topology == nil {
		return nil
	}
	need, have := p.Machine.NodeCount(numTasks), p.Topology.NodeCount()
	if need <= have {
		return nil
	}
	return &PlatformError{Source: p.Source, Field: "network.topology", Err: fmt.Errorf(
		"%d tasks at %d per node (machine.tasks_per_node) need %d nodes, but the %v has %d; run fewer tasks, raise tasks_per_node or enlarge the topology",
		numTasks, p.Machine.TasksPerNode, need, p.Topology.Kind, have)}
}

// LinkTo returns the parameters of messages between tasks a and b of
// numTasks: Intra for tasks on one node if it is set, else Network.
func (p *Platform) LinkTo(a, b, numTasks int64) *LogGP {
	if p.Intra != nil && p.Machine.SameNode(a, b, numTasks) {
		return p.Intra
	}
	return &p.Network
}

func readPlatform(top *tomlSection) *Platform {
	p := &Platform{Network: LogGP{Eager: 64 << 10}}
	top.require("name", "network", "machine")
	top.str("name", &p.Name)
	top.str("description", &p.Description)

	network, _ := top.table("network")
	network.require("model")
	model := ""
	network.str("model", &model)
	switch model {
	case "loggp", "":
		network.require("L", "o", "g", "G")
		if _, ok := network.m["topology"]; ok {
			network.r.fail(network.field("topology"), errors.New(`only the flow and packet models use a topology; set network.model = "flow" or "packet"`))
		}
	case "flow", "packet":
		p.Model = FlowModel
		p.Flow = FlowParams{LatencyFactor: 1, BandwidthFactor: 1}
		network.require("o", "g", "topology")
		// The topology's links carry the bytes: a flow has no L or G.
		for _, key := range []string{"L", "G"} {
			if _, ok := network.m[key]; ok {
				network.r.fail(network.field(key), fmt.Errorf("the %s model takes latency and bandwidth from network.topology; remove it", model))
			}
		}
		if model == "packet" {
			p.Model = PacketModel
			readPacketParams(network, &p.Packet)
		} else {
			readFlowParams(network, &p.Flow)
		}
		if topo, ok := network.table("topology"); ok {
			p.Topology = readTopology(topo)
		}
	default:
		network.r.fail(network.field("model"), fmt.Errorf("%q is not a network model (use \"loggp\", \"flow\" or \"packet\")", model))
	}
	readLink(network, &p.Network)
	regimes := network.tables("regime")
	p.Network.Regimes = readRegimes(regimes, p.Network, p.Model == LogGPModel)
	if intra, ok := network.table("intra"); ok {
		link := p.Network
		readLink(intra, &link)
		if own := intra.tables("regime"); len(own) > 0 {
			regimes = own
		}
		link.Regimes = readRegimes(regimes, link, true)
		intra.close()
		p.Intra = &link
	}
	network.close()

	machine, _ := top.table("machine")
	p.Machine = readMachine(machine)
	if collectives, ok := top.table("collectives"); ok {
		p.Collectives = readCollectives(collectives)
	}
	top.close()
	return p
}

// readFlowParams reads the flow model's options from the network table:
// factors = "simgrid" or "none", then latency_factor, bandwidth_factor and
// tcp_gamma, each overriding what factors set.
func readFlowParams(s *tomlSection, f *FlowParams) {
	factors := "none"
	s.str("factors", &factors)
	switch factors {
	case "none":
	case "simgrid":
		*f = SimGridFactors
	default:
		s.r.fail(s.field("factors"), fmt.Errorf("%q is not a set of factors (use \"simgrid\" or \"none\")", factors))
	}
	s.number("latency_factor", &f.LatencyFactor)
	s.number("bandwidth_factor", &f.BandwidthFactor)
	quantity(s, "tcp_gamma", ParseSize, &f.TCPGamma)
	quantity(s, "precision", ParseDuration, &f.Precision)
}

// SimGridFactors are the flow options of SimGrid's default network model,
// LV08 (network/latency-factor, network/bandwidth-factor and
// network/TCP-gamma in SimGrid's configuration).
var SimGridFactors = FlowParams{LatencyFactor: 13.01, BandwidthFactor: 0.97, TCPGamma: 4194304}

// readLink reads the LogGOPS parameters of a network table into l, leaving
// those the table lacks as they are. A [network.intra] table may name its
// model, which must be loggp: tasks on one node share no links.
func readLink(s *tomlSection, l *LogGP) {
	if s.path != "network" {
		model := "loggp"
		s.str("model", &model)
		if model != "loggp" {
			s.r.fail(s.field("model"), fmt.Errorf("%q: between tasks on one node the only model is \"loggp\"", model))
		}
	}
	readParams(s, l)
	quantity(s, "S", ParseSize, &l.Eager)
}

// readParams reads the LogGOPS parameters a regime may set.
func readParams(s *tomlSection, l *LogGP) {
	quantity(s, "L", ParseDuration, &l.Latency)
	quantity(s, "o", ParseDuration, &l.Overhead)
	quantity(s, "g", ParseDuration, &l.Gap)
	quantity(s, "G", ParsePerByte, &l.ByteGap)
	quantity(s, "O", ParsePerByte, &l.ByteOverhead)
}

// readRegimes reads [[regime]] tables over the parameters of base: each
// regime holds base's values for the keys it does not set. wire says
// whether they may set L and G, which the flow and packet models take
// from the topology. [network.intra] reads [network]'s tables again over
// its own values when it has none of its own.
func readRegimes(tables []*tomlSection, base LogGP, wire bool) []Regime {
	if len(tables) == 0 {
		return nil
	}
	base.Regimes = nil
	regimes := make([]Regime, len(tables))
	for i, t := range tables {
		t.require("upto")
		if !wire {
			for _, key := range []string{"L", "G"} {
				if _, ok := t.m[key]; ok {
					t.r.fail(t.field(key), errors.New("the flow and packet models take latency and bandwidth from network.topology; a regime may set o, g and O"))
				}
			}
		}
		regimes[i] = Regime{LogGP: base}
		quantity(t, "upto", ParseSize, &regimes[i].UpTo)
		readParams(t, &regimes[i].LogGP)
		t.close()
	}
	return regimes
}

func readMachine(s *tomlSection) Machine {
	m := Machine{TasksPerNode: 1, Mapping: Block, IntSize: 4, PageSize: 4096}
	s.require("nodes")
	s.integer("tasks_per_node", &m.TasksPerNode)
	mapping := m.Mapping.String()
	s.str("mapping", &mapping)
	if i := slices.IndexFunc(mappings, func(m Mapping) bool { return m.String() == mapping }); i >= 0 {
		m.Mapping = mappings[i]
	} else {
		s.r.fail(s.field("mapping"), fmt.Errorf("%q is not a mapping (use block or cyclic)", mapping))
	}
	quantity(s, "int_size", ParseSize, &m.IntSize)
	quantity(s, "page_size", ParseSize, &m.PageSize)
	for _, n := range s.tables("nodes") {
		g := NodeGroup{Speed: 1}
		n.require("name", "flops", "memory_bandwidth")
		n.str("name", &g.Name)
		n.integer("count", &g.Count)
		quantity(n, "flops", ParseFlopRate, &g.FlopRate)
		quantity(n, "memory_bandwidth", ParseBandwidth, &g.MemBandwidth)
		n.number("speed", &g.Speed)
		n.close()
		m.Nodes = append(m.Nodes, g)
	}
	s.close()
	return m
}

func readCollectives(s *tomlSection) map[Op]Algorithm {
	algs := make(map[Op]Algorithm)
	for op := range numOps {
		var alg string
		_, present := s.m[op.String()]
		s.str(op.String(), &alg)
		if present {
			algs[op] = Algorithm(alg)
		}
	}
	s.close()
	return algs
}

// platformReader reads a decoded platform file, keeping the first problem.
type platformReader struct {
	source string
	err    error
}

func (r *platformReader) fail(field string, err error) {
	if r.err == nil {
		r.err = &PlatformError{Source: r.source, Field: field, Err: err}
	}
}

func (r *platformReader) section(path string, m map[string]any) *tomlSection {
	return &tomlSection{r: r, path: path, m: m}
}

// tomlSection is one table of a platform file. Reading a key marks it
// known; close reports a key that was not.
type tomlSection struct {
	r     *platformReader
	path  string // "network", "machine.nodes[1]"; "" at the top level
	m     map[string]any
	known []string
}

func (s *tomlSection) field(key string) string {
	if s.path == "" {
		return key
	}
	return s.path + "." + key
}

// require reports the first of keys that is missing.
func (s *tomlSection) require(keys ...string) {
	for _, k := range keys {
		if _, ok := s.m[k]; !ok {
			s.r.fail(s.field(k), errors.New("missing; it is required (the format is in stdlib/platforms/README.md)"))
		}
	}
}

// get returns the value of key, nil if there is none, and marks key known.
func (s *tomlSection) get(key string) any {
	s.known = append(s.known, key)
	return s.m[key]
}

func (s *tomlSection) wrongType(key, want string, v any) {
	s.r.fail(s.field(key), fmt.Errorf("must be %s, not %s", want, tomlTypeName(v)))
}

// close reports the first key, in sorted order, that was not read.
func (s *tomlSection) close() {
	for _, k := range slices.Sorted(maps.Keys(s.m)) {
		if !slices.Contains(s.known, k) {
			s.r.fail(s.field(k), fmt.Errorf("unknown key (known keys here: %s)", strings.Join(s.known, ", ")))
			return
		}
	}
}

// The readers below leave *dst as it is if key is absent.

func (s *tomlSection) str(key string, dst *string) {
	switch v := s.get(key).(type) {
	case nil:
	case string:
		*dst = v
	default:
		s.wrongType(key, "a string", v)
	}
}

func (s *tomlSection) integer(key string, dst *int) {
	switch v := s.get(key).(type) {
	case nil:
	case int64:
		*dst = int(v)
	default:
		s.wrongType(key, "an integer", v)
	}
}

func (s *tomlSection) number(key string, dst *float64) {
	switch v := s.get(key).(type) {
	case nil:
	case int64:
		*dst = float64(v)
	case float64:
		*dst = v
	default:
		s.wrongType(key, "a number", v)
	}
}

// quantity reads a quantity with its unit. A TOML number is read as if
// it were a string without a unit.
func quantity[T any](s *tomlSection, key string, parse func(string) (T, error), dst *T) {
	var text string
	switch v := s.get(key).(type) {
	case nil:
		return
	case string:
		text = v
	case int64:
		text = strconv.FormatInt(v, 10)
	case float64:
		text = strconv.FormatFloat(v, 'g', -1, 64)
	default:
		s.wrongType(key, "a string with a unit", v)
		return
	}
	x, err := parse(text)
	if err != nil {
		s.r.fail(s.field(key), err)
		return
	}
	*dst = x
}

// table returns the table under key and whether there is one; if there is
// none it returns an empty table.
func (s *tomlSection) table(key string) (*tomlSection, bool) {
	switch v := s.get(key).(type) {
	case nil:
	case map[string]any:
		return s.r.section(s.field(key), v), true
	default:
		s.wrongType(key, "a table", v)
	}
	return s.r.section(s.field(key), nil), false
}

// ints reads an array of integers.
func (s *tomlSection) ints(key string, dst *[]int) {
	switch v := s.get(key).(type) {
	case nil:
	case []any:
		out := make([]int, len(v))
		for i, e := range v {
			n, ok := e.(int64)
			if !ok || n < math.MinInt32 || n > math.MaxInt32 {
				s.r.fail(fmt.Sprintf("%s[%d]", s.field(key), i), fmt.Errorf("must be an integer, not %s", tomlTypeName(e)))
				return
			}
			out[i] = int(n)
		}
		*dst = out
	default:
		s.wrongType(key, "an array of integers", v)
	}
}

// tables returns the array of tables under key.
func (s *tomlSection) tables(key string) []*tomlSection {
	var ms []map[string]any
	switch v := s.get(key).(type) {
	case nil:
	case []map[string]any: // [[key]] tables
		ms = v
	case []any: // an array of inline tables
		for _, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				s.r.fail(s.field(key), fmt.Errorf("must be an array of tables, not hold %s", tomlTypeName(e)))
				return nil
			}
			ms = append(ms, m)
		}
	default:
		s.wrongType(key, "an array of tables", v)
	}
	sections := make([]*tomlSection, len(ms))
	for i, m := range ms {
		sections[i] = s.r.section(fmt.Sprintf("%s[%d]", s.field(key), i), m)
	}
	return sections
}

// tomlTypeName names the TOML type of a decoded value.
func tomlTypeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a table"
	case []map[string]any, []any:
		return "an array"
	}
	return "a date or time"
}
