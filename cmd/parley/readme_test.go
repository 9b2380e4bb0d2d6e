package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeTour runs every `go run ./cmd/parley run ...` command of the
// README's tour and checks that each output line the README shows (except
// "...") appears in what the command prints, so the tour stays true.
func TestReadmeTour(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	dir := t.TempDir()
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
		check := func() {
			if cmd == nil {
				return
			}
			_, out, errOut := parley(t, "", cmd...)
			for _, w := range want {
				if !strings.Contains(out+errOut, w) {
					t.Errorf("parley %s: output lacks %q:\n%s%s", strings.Join(cmd, " "), w, out, errOut)
				}
			}
			ran++
			cmd, want = nil, nil
		}
		for _, line := range strings.Split(blocks[i], "\n") {
			if rest, ok := strings.CutPrefix(line, "$ "); ok {
				check()
				if args, ok := strings.CutPrefix(rest, "go run ./cmd/parley run"); ok {
					cmd = []string{"run"}
					for _, a := range strings.Fields(args) {
						switch a {
						case "pingpong.parley":
							a = pingpong
						case "out":
							a = filepath.Join(dir, "out")
						}
						cmd = append(cmd, a)
					}
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
