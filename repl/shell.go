package repl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chzyer/readline"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/lang"
	"github.com/parley-hpc/parley/netmodel"
)

// Prompts: a new command, and a statement going on.
const (
	prompt     = "parley> "
	morePrompt = "   ...> "
)

// reader gathers lines into commands: a command is one line, Parley text
// goes on over lines while it stops in the middle of a statement.
type reader struct{ pending []string }

// feed takes a line and returns the command or text it completes, if any.
func (r *reader) feed(line string) (string, bool) {
	if len(r.pending) == 0 && (isCommand(line) || strings.TrimSpace(line) == "" || unknownCommand(line) != nil) {
		return line, true
	}
	r.pending = append(r.pending, line)
	text := strings.Join(r.pending, "\n")
	if Incomplete(text) {
		return "", false
	}
	r.pending = nil
	return text, true
}

// report prints what a failed command says, unless it printed it itself.
func (s *Session) report(err error, where string) {
	if errors.Is(err, errProblems) {
		return // the run printed its problems
	}
	if where != "" {
		fmt.Fprintf(s.errOut, "%s: %v\n", where, err)
		return
	}
	fmt.Fprintln(s.errOut, err)
}

// Script runs the commands in in, one a line (Parley text may go on over
// lines), printing no prompts. It returns the exit status: 1 if any
// command failed, else 0.
func (s *Session) Script(in io.Reader) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var r reader
	status, n, start := 0, 0, 0
	for sc.Scan() {
		n++
		if len(r.pending) == 0 {
			start = n
		}
		text, ok := r.feed(sc.Text())
		if !ok {
			continue
		}
		err := s.Exec(context.Background(), text)
		if errors.Is(err, errQuit) {
			return status
		}
		if err != nil {
			s.report(err, fmt.Sprintf("line %d", start))
			status = 1
		}
	}
	if err := sc.Err(); err != nil {
		s.report(err, "reading the script")
		return 1
	}
	if len(r.pending) > 0 {
		s.report(fmt.Errorf("the statement that starts there is unfinished at the end of the script"), fmt.Sprintf("line %d", start))
		return 1
	}
	return status
}

// Interactive runs the session at a terminal through readline: history in
// historyFile (none if empty), tab completion, multi-line statements, and
// Ctrl-C stopping a run (or clearing the line) rather than the session.
// Ctrl-D or quit ends it.
func (s *Session) Interactive(historyFile string) error {
	rl, err := readline.NewEx(&readline.Config{
		Prompt:            prompt,
		HistoryFile:       historyFile,
		HistorySearchFold: true,
		AutoComplete:      completer{s},
		InterruptPrompt:   "^C",
		EOFPrompt:         "",
	})
	if err != nil {
		return err
	}
	defer rl.Close()
	fmt.Fprintln(s.out, `Parley what-if shell: "help" lists the commands, Ctrl-D ends.`)
	var r reader
	for {
		line, err := rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			r.pending = nil
			rl.SetPrompt(prompt)
			continue
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
		text, ok := r.feed(line)
		if !ok {
			rl.SetPrompt(morePrompt)
			continue
		}
		rl.SetPrompt(prompt)
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		err = s.Exec(ctx, text)
		stop()
		if errors.Is(err, errQuit) {
			return nil
		}
		if err != nil {
			s.report(err, "")
		}
	}
}

// HistoryFile is where an interactive session keeps its history: in the
// user's cache directory, or nowhere if there is none.
func HistoryFile() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	dir = filepath.Join(dir, "parley")
	if os.MkdirAll(dir, 0o755) != nil {
		return ""
	}
	return filepath.Join(dir, "repl_history")
}

// completer completes commands, their arguments (files, examples,
// presets, parameters, platform fields) and Parley's keywords.
type completer struct{ s *Session }

// Do implements readline.AutoCompleter: the endings of the candidates
// for the word before pos, and that word's length.
func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	head := string(line[:pos])
	words := strings.Fields(head)
	word := ""
	if len(words) > 0 && !strings.HasSuffix(head, " ") {
		word, words = words[len(words)-1], words[:len(words)-1]
	}
	var cands []string
	switch {
	case len(words) == 0:
		for _, cmd := range commands {
			cands = append(cands, cmd.name)
		}
		cands = append(cands, c.keywords(word)...)
	case commandWords(words):
		cands = c.arguments(strings.ToLower(words[0]), len(words), word)
	default:
		cands = append(c.keywords(word), c.params()...)
	}
	var out [][]rune
	for _, cand := range cands {
		if !strings.HasPrefix(cand, word) || cand == word {
			continue
		}
		rest := cand[len(word):]
		if !strings.HasSuffix(cand, "/") {
			rest += " " // a directory goes on
		}
		out = append(out, []rune(rest))
	}
	return out, len([]rune(word))
}

// commandWords reports whether a line starting with words is a command
// whose arguments are being typed, rather than Parley text.
func commandWords(words []string) bool {
	first := strings.ToLower(words[0])
	if findCommand(first) == nil || first == "tasks" {
		return false // TASKS t ... is a statement; tasks N needs no completion
	}
	return len(words) < 2 || !strings.EqualFold(words[1], "is")
}

// keywords lists Parley's keywords in the case of word.
func (c completer) keywords(word string) []string {
	kws := lang.Keywords()
	if word != "" && strings.ToUpper(word) == word {
		for i, k := range kws {
			kws[i] = strings.ToUpper(k)
		}
	}
	return kws
}

func (c completer) params() []string {
	var names []string
	for _, p := range c.s.prog.ir.Params {
		names = append(names, p.Name)
	}
	return names
}

// arguments lists what may follow command cmd as its n-th argument.
func (c completer) arguments(cmd string, n int, word string) []string {
	switch {
	case cmd == "load":
		return append(files(word, ".parley", ".ncptl"), examples.Names()...)
	case cmd == "platform":
		return append(files(word, ".toml"), netmodel.Presets()...)
	case cmd == "plot":
		return files(word, ".svg", ".png")
	case cmd == "timeline":
		return files(word, ".json")
	case cmd == "scale" && n == 1:
		return []string{"compute", "network"}
	case cmd == "help":
		var names []string
		for _, cc := range commands {
			names = append(names, cc.name)
		}
		return names
	case (cmd == "set" || cmd == "unset" || cmd == "sweep") && n == 1:
		names := append(c.params(), c.s.plat.fields()...)
		switch cmd {
		case "set":
			names = append(names, setMaxEvents, setSeed, setShow)
		case "sweep":
			names = append(names, "tasks", "scale.compute", "scale.network")
		}
		return names
	}
	return nil
}

// files lists the files and directories that complete the path word,
// files only with one of exts.
func files(word string, exts ...string) []string {
	dir := filepath.Dir(word)
	prefix := ""
	if strings.Contains(word, "/") {
		prefix = dir + "/"
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := prefix + e.Name()
		switch {
		case e.IsDir():
			out = append(out, name+"/")
		case slices.Contains(exts, strings.ToLower(filepath.Ext(name))):
			out = append(out, name)
		}
	}
	return out
}
