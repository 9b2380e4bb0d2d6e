package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/parley-hpc/parley/codegen"
	"github.com/parley-hpc/parley/ir"
)

func init() {
	register(&command{
		name:    "compile",
		args:    "PROG [-o FILE.c] [--build]",
		summary: "compile a program to C+MPI, a benchmark for a real machine",
		run:     runCompile,
	})
}

// mpiccFlags are the flags --build compiles with; the tests add -Werror.
var mpiccFlags = []string{"-std=c99", "-O2", "-fwrapv", "-Wall", "-Wextra"}

func runCompile(e *env, args []string) int {
	c := find("compile")
	f := flags(e, c, `
Writes PROG as readable C99 + MPI: the same communication the interpreter
simulates, timed with MPI_Wtime, with one coNCePTuaL-format log per task
(NAME-<rank>.log). The run-time header parley_rt.h is written beside the
C file. The program's parameters become its command-line options.

With --build, also compiles it with mpicc into an executable named after
the C file. Then, for example:
  parley compile examples/ring.parley -o ring.c --build
  mpirun -np 4 ./ring --reps 100
  parley run examples/ring.parley --tasks 4 --logs pred -- --reps 100
  parley logs . pred          # measured against predicted, side by side`)
	out := f.String("o", "", "the C file to write (default: PROG's name with .c, in the current directory)")
	build := f.Bool("build", false, "compile the C file with mpicc")
	pos, rest, code := parseArgs(e, f, args)
	if code >= 0 {
		return code
	}
	if len(pos) != 1 || len(rest) > 0 {
		fmt.Fprintln(e.stderr, "parley compile: give exactly one program, e.g. parley compile ring.parley -o ring.c")
		return 2
	}
	prog := load(e, pos[0])
	if prog == nil {
		return 1
	}
	p, err := ir.Build(prog)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley compile: %v\n", err)
		return 1
	}
	path := *out
	if path == "" {
		base := filepath.Base(pos[0])
		path = strings.TrimSuffix(base, filepath.Ext(base)) + ".c"
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	src, err := codegen.C(p, codegen.Options{Name: name, Version: version})
	if err != nil {
		fmt.Fprintf(e.stderr, "parley compile: %v\n", err)
		return 1
	}
	if err := os.WriteFile(path, src, 0o644); err != nil {
		fmt.Fprintf(e.stderr, "parley compile: %v\n", err)
		return 1
	}
	rt := filepath.Join(filepath.Dir(path), codegen.RuntimeName)
	if err := os.WriteFile(rt, codegen.Runtime(), 0o644); err != nil {
		fmt.Fprintf(e.stderr, "parley compile: %v\n", err)
		return 1
	}
	if !*build {
		return 0
	}
	exe := strings.TrimSuffix(path, filepath.Ext(path))
	if err := buildC(path, exe, nil); err != nil {
		fmt.Fprintf(e.stderr, "parley compile: %v\n", err)
		return 1
	}
	return 0
}

// buildC compiles a generated C file with mpicc.
func buildC(src, exe string, extra []string) error {
	mpicc, err := exec.LookPath("mpicc")
	if err != nil {
		return errors.New("mpicc not found: install an MPI (on Debian: apt-get install openmpi-bin libopenmpi-dev), or compile the C file yourself")
	}
	args := append(append(append([]string{}, mpiccFlags...), extra...), "-o", exe, src, "-lm")
	cmd := exec.Command(mpicc, args...)
	outb, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("mpicc %s: %w\n%s", strings.Join(args, " "), err, outb)
	}
	return nil
}
