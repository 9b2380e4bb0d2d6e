package valueflow

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/llir/ll"
	"github.com/llir/llvm/asm"
	"github.com/llir/llvm/ir"
)

// The tools that turn C and C++ into IR. clang-14 still emits typed
// pointers, the form github.com/llir/llvm v0.3.6 reads.
const (
	clangTool = "clang-14"
	linkTool  = "llvm-link-14"
)

// clangFlags compile one source file to textual IR: -O1 so that scalars
// live in registers (SSA values) rather than stack slots, as the analysis
// of seed 001 assumes, without the vectoriser (-O2) whose vector lanes
// would hide which element flows where; -g for the source positions of
// errors.
var clangFlags = []string{"-O1", "-g", "-S", "-emit-llvm", "-Wno-everything"}

// LoadError is input that cannot become a module: a source file the
// compiler rejects, IR the parser rejects, or a missing tool.
type LoadError struct {
	File string // the file at fault
	Msg  string // what is wrong, with positions where the tool gave them
}

func (e *LoadError) Error() string { return e.Msg }

// loadModule compiles the C and C++ files among files, links them with the
// .ll files and parses the result into one module.
func loadModule(files []string) (*ir.Module, error) {
	if len(files) == 0 {
		return nil, &LoadError{Msg: "no input files; give .c, .cpp or .ll files"}
	}
	tmp, err := os.MkdirTemp("", "parley-analyze-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var lls []string
	for i, f := range files {
		switch ext := strings.ToLower(filepath.Ext(f)); ext {
		case ".ll":
			if _, err := os.Stat(f); err != nil {
				return nil, &LoadError{File: f, Msg: err.Error()}
			}
			lls = append(lls, f)
		case ".c", ".cc", ".cpp", ".cxx", ".c++":
			out := filepath.Join(tmp, fmt.Sprintf("%d.ll", i))
			if err := runTool(f, clangTool, append(append([]string{}, clangFlags...), "-o", out, f)...); err != nil {
				return nil, err
			}
			lls = append(lls, out)
		default:
			return nil, &LoadError{File: f, Msg: fmt.Sprintf("%s: not a .c, .cpp or .ll file", f)}
		}
	}
	name, path := files[0], lls[0]
	if len(lls) > 1 {
		name, path = strings.Join(files, "+"), filepath.Join(tmp, "linked.ll")
		if err := runTool(name, linkTool, append([]string{"-S", "-o", path}, lls...)...); err != nil {
			return nil, err
		}
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, &LoadError{File: name, Msg: err.Error()}
	}
	if path != name {
		// Positions in generated IR are no use to the reader; name the
		// sources and let debug information point into them.
		name = strings.Join(files, "+") + " (as IR)"
	}
	return ParseIR(name, text)
}

// runTool runs tool with args; its error output is the message when it
// fails, for clang the diagnostics with their file:line:col.
func runTool(file, tool string, args ...string) error {
	if _, err := exec.LookPath(tool); err != nil {
		return &LoadError{File: file, Msg: fmt.Sprintf("%s: %s is not installed; install it (Debian and Ubuntu: apt-get install clang-14 llvm-14) or give the program as .ll files", file, tool)}
	}
	var stderr bytes.Buffer
	cmd := exec.Command(tool, args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return &LoadError{File: file, Msg: fmt.Sprintf("%s rejected %s:\n%s", tool, file, msg)}
	}
	return nil
}

// ParseIR parses textual LLVM IR (typed pointers, as clang-14 emits it)
// into a module; name is the file it came from, for messages. It never
// panics: errors from the parser carry name:line:col.
func ParseIR(name string, text []byte) (m *ir.Module, err error) {
	fixed := dropReturnAlign(text)
	defer func() {
		// The parser is a third party's; malformed input must not take
		// the process down with it.
		if r := recover(); r != nil {
			m, err = nil, &LoadError{File: name, Msg: fmt.Sprintf("%s: the IR parser failed on this input (%v); is it LLVM 14 IR?", name, r)}
		}
	}()
	m, err = asm.ParseBytes(name, fixed)
	if err == nil {
		return m, nil
	}
	var se ll.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(fixed, se.Offset)
		end := min(max(se.Endoffset, se.Offset), len(fixed))
		near := strings.TrimSpace(string(fixed[min(se.Offset, end):end]))
		if len(near) > 40 {
			near = near[:40] + "..."
		}
		msg := fmt.Sprintf("%s:%d:%d: IR syntax error", name, line, col)
		if near != "" {
			msg += fmt.Sprintf(" at %q", near)
		}
		return nil, &LoadError{File: name, Msg: msg + " (LLVM 14 textual IR expected)"}
	}
	return nil, &LoadError{File: name, Msg: fmt.Sprintf("%s: invalid IR: %v", name, unwrapAll(err))}
}

// unwrapAll drops the parser's "unable to ..." wrappers down to the cause.
func unwrapAll(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// lineCol turns a byte offset into 1-based line and column.
func lineCol(text []byte, off int) (line, col int) {
	off = min(max(off, 0), len(text))
	before := text[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = off - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

var (
	// alignAttr is a return attribute `align N`.
	alignAttr = regexp.MustCompile(`\balign [0-9]+ `)
	// callStart finds the call or invoke keyword of an instruction.
	callStart = regexp.MustCompile(`\b(call|invoke) `)
)

// dropReturnAlign removes `align N` where it is a return attribute, which
// llir/llvm v0.3.6 rejects (llir/llvm issues 40 and 198) and C++ modules
// carry on functions returning references: on define and declare lines
// before the function's name, and on calls before the callee's argument
// list. It is a hint to the optimiser only, so the meaning is unchanged;
// lines keep their numbers, so positions stay true.
func dropReturnAlign(text []byte) []byte {
	if !bytes.Contains(text, []byte("align ")) {
		return text
	}
	lines := bytes.SplitAfter(text, []byte("\n"))
	for i, l := range lines {
		t := bytes.TrimLeft(l, " \t")
		var head int // the return attributes end before this offset
		switch {
		case bytes.HasPrefix(t, []byte("define ")) || bytes.HasPrefix(t, []byte("declare ")):
			head = bytes.IndexByte(l, '@')
		case len(t) > 0 && (t[0] == '%' || t[0] == 'c' || t[0] == 't' || t[0] == 'm' || t[0] == 'n' || t[0] == 'i'):
			loc := callStart.FindIndex(l)
			if loc == nil {
				continue
			}
			paren := bytes.IndexByte(l[loc[1]:], '(')
			if paren < 0 {
				continue
			}
			head = loc[1] + paren
			// The attributes sit between the keyword and the callee.
			prefix := append([]byte{}, l[:loc[1]]...)
			lines[i] = append(append(prefix, alignAttr.ReplaceAll(l[loc[1]:head], nil)...), l[head:]...)
			continue
		default:
			continue
		}
		if head > 0 {
			lines[i] = append(alignAttr.ReplaceAll(l[:head], nil), l[head:]...)
		}
	}
	return bytes.Join(lines, nil)
}
