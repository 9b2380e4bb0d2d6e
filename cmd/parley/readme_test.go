package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadmeTour runs every `go run ./cmd/parley ...` command of the
// README's tour (and its mpirun, where Open MPI is installed) and checks
// that each output line the README shows (except "..." and measured
// numbers) appears in what the command prints, so the tour stays true.
func TestReadmeTour(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// The tour runs in a directory of its own, where it writes its files.
	dir := t.TempDir()
	t.Chdir(dir)
	// The tour's own program, as the README shows it.
	_, after, ok := strings.Cut(readme, "Save this as `pingpong.parley`:\n\n```\n")
	if !ok {
		t.Fatal("README has no pingpong.parley")
	}
	prog, _, _ := strings.Cut(after, "```")
	pingpong := filepath.Join(dir, "pingpong.parley")
	if err := os.WriteFile(pingpong, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	ran := 0
	blocks := strings.Split(readme, "```")
	for i := 1; i < len(blocks); i += 2 {
		var cmd []string
		var want []string
		var stdin []string // a here-document's lines, then nil after its end
		inHeredoc := false
		check := func() {
			if cmd == nil {
				return
			}
			var out, errOut string
			if cmd[0] == "mpirun" {
				out = mpirunTour(t, dir, cmd[1:])
			} else {
				in := ""
				if stdin != nil {
					in = strings.Join(stdin, "\n") + "\n"
				}
				_, out, errOut = parley(t, in, cmd...)
			}
			for _, w := range want {
				if cmd[0] == "logs" {
					if w[0] >= '0' && w[0] <= '9' {
						continue // measured times differ from run to run
					}
					// Column widths follow the measured values.
					if strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(w), " ")) {
						continue
					}
				}
				if !strings.Contains(out+errOut, w) {
					t.Errorf("parley %s: output lacks %q:\n%s%s", strings.Join(cmd, " "), w, out, errOut)
				}
			}
			ran++
			cmd, want, stdin = nil, nil, nil
		}
		for _, line := range strings.Split(blocks[i], "\n") {
			if inHeredoc {
				if line == "EOF" {
					inHeredoc = false
				} else {
					stdin = append(stdin, line)
				}
				continue
			}
			if rest, ok := strings.CutPrefix(line, "$ "); ok {
				check()
				if r, ok := strings.CutSuffix(rest, " <<'EOF'"); ok {
					rest, inHeredoc, stdin = r, true, []string{}
				}
				fields := strings.Fields(rest)
				switch {
				case len(fields) >= 4 && strings.Join(fields[:3], " ") == "go run ./cmd/parley":
					cmd = fields[3:]
				case fields[0] == "mpirun":
					cmd = fields
				}
				if len(cmd) > 0 && slices.Contains([]string{"compile", "mpirun", "logs"}, cmd[0]) && !haveMPI() {
					t.Logf("skipping %q: mpicc or mpirun not found", rest)
					cmd = nil
				}
				for j, a := range cmd {
					switch {
					case a == "pingpong.parley":
						cmd[j] = pingpong
					case a == "out":
						cmd[j] = filepath.Join(dir, "out")
					case a == ".":
						cmd[j] = dir
					case strings.HasPrefix(a, "frontend/"):
						cmd[j] = filepath.Join(root, a)
					}
				}
				if len(cmd) > 0 && cmd[0] == "check" {
					// The README checks the program with size misspelled.
					bad := filepath.Join(dir, "misspelled", "pingpong.parley")
					os.MkdirAll(filepath.Dir(bad), 0o755)
					os.WriteFile(bad, []byte(strings.Replace(prog, "SENDS A size", "SENDS A sise", 1)), 0o644)
					cmd[len(cmd)-1] = bad
				}
				if len(cmd) > 0 && cmd[0] == "compile" {
					cmd = append(cmd, "-o", filepath.Join(dir, "pingpong.c"))
				}
				continue
			}
			if cmd != nil && strings.TrimSpace(line) != "" && strings.TrimSpace(line) != "..." {
				want = append(want, strings.TrimSpace(line))
			}
		}
		check()
	}
	if ran < 5 {
		t.Errorf("ran %d commands of the README, want the whole tour", ran)
	}
	logText, err := os.ReadFile(filepath.Join(dir, "out", "pingpong-0.log"))
	if err != nil || !strings.Contains(string(logText), "\"Bytes\",\"Latency (us)\"\n\"(only value)\",\"(median)\"\n0,1.3\n1,1.3\n2,1.300083\n") {
		t.Errorf("the tour's log is not as the README shows: %v\n%s", err, logText)
	}
}

func haveMPI() bool {
	_, err1 := exec.LookPath("mpicc")
	_, err2 := exec.LookPath("mpirun")
	return err1 == nil && err2 == nil
}

// mpirunTour runs the tour's mpirun command in dir, oversubscribed so that
// it runs on any machine, and as root where CI runs it.
func mpirunTour(t *testing.T, dir string, args []string) string {
	t.Helper()
	full := []string{"--oversubscribe"}
	if os.Geteuid() == 0 {
		full = append(full, "--allow-run-as-root")
	}
	cmd := exec.Command("mpirun", append(full, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mpirun %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestTraceDocExample runs the commands of docs/trace.md's first example
// from the repository root, so that its paths exist and its steps work.
func TestTraceDocExample(t *testing.T) {
	data, err := os.ReadFile("../../docs/trace.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(data), "```\n")
	block, _, _ = strings.Cut(block, "```")
	dir := t.TempDir()
	ran := 0
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		args := strings.Fields(line)
		if len(args) < 2 || args[0] != "parley" {
			t.Fatalf("docs/trace.md: %q is not a parley command", line)
		}
		args = args[1:]
		if args[0] == "compile" && !haveMPI() {
			t.Logf("skipping %q: mpicc or mpirun not found", line)
			continue
		}
		for i, a := range args {
			switch {
			case strings.HasPrefix(a, "frontend/"):
				args[i] = filepath.Join("../..", a)
			case strings.HasSuffix(a, ".parley"):
				args[i] = filepath.Join(dir, a)
			}
		}
		if args[0] == "compile" {
			args = append(args, "-o", filepath.Join(dir, "cg.c"))
		}
		code, out, errOut := parley(t, "", args...)
		if code != 0 {
			t.Errorf("%s: exit %d\n%s%s", line, code, out, errOut)
		}
		if args[0] == "run" && !strings.Contains(out, "on 4 tasks") {
			t.Errorf("%s: not on the trace's 4 ranks:\n%s", line, out)
		}
		ran++
	}
	if ran < 2 {
		t.Errorf("ran %d of docs/trace.md's first example's commands", ran)
	}
}
