package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/parley-hpc/parley/codegen"
	"github.com/parley-hpc/parley/ir"
)

func init() {
	register(&command{
		name:    "compile",
		args:    "PROG [-o FILE.c] [--build]",
		summary: "compile a program to C+MPI, a benchmark for a real machine",
		argExts: programExts,
		details: `
Writes PROG as readable C99 + MPI: the same communication the interpreter
simulates, timed with MPI_Wtime, with one coNCePTuaL-format log per task
(NAME-<rank>.log). The run-time header parley_rt.h is written beside the
C file. The program's parameters become its command-line options.
"-o -" writes the C to standard output and parley_rt.h into the current
directory.

With --build, also compiles it with mpicc into an executable named after
the C file. Then, for example:
  parley compile examples/ring.parley -o ring.c --build
  mpirun -np 4 ./ring --reps 100
  parley run examples/ring.parley --tasks 4 --logs pred -- --reps 100
  parley logs . pred          # measured against predicted, side by side
(mpirun refuses to run as root unless given --allow-run-as-root.)`,
		flags: func(fs *pflag.FlagSet) any {
			o := &compileOptions{}
			fs.StringVarP(&o.out, "output", "o", "", "the C file to write (default: PROG's name with .c, in the current directory)")
			fs.BoolVar(&o.build, "build", false, "compile the C file with mpicc")
			return o
		},
		run: runCompile,
	})
}

type compileOptions struct {
	out   string
	build bool
}

// mpiccFlags are the flags --build compiles with; the tests add -Werror.
var mpiccFlags = []string{"-std=c99", "-O2", "-fwrapv", "-Wall", "-Wextra"}

func runCompile(e *env, inv *invocation) int {
	o := inv.opts.(*compileOptions)
	if len(inv.pos) != 1 {
		fmt.Fprintln(e.stderr, "parley compile: give exactly one program, e.g. parley compile ring.parley -o ring.c")
		return 2
	}
	src := inv.pos[0]
	path := o.out
	if path == "" {
		base := filepath.Base(src)
		if src == "-" {
			base = "stdin"
		}
		path = strings.TrimSuffix(base, filepath.Ext(base)) + ".c"
	}
	if err := checkCompileOutput(src, path, o.build); err != nil {
		fmt.Fprintf(e.stderr, "parley compile: %v\n", err)
		return 2
	}
	prog := load(e, src)
	if prog == nil {
		return 1
	}
	p, err := ir.Build(prog)
	if err != nil {
		fmt.Fprintf(e.stderr, "parley compile: %v\n", err)
		return 1
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if path == "-" {
		name = strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
	}
	c, err := codegen.C(p, codegen.Options{Name: name, Version: version})
	if err != nil {
		fmt.Fprintf(e.stderr, "parley compile: %v\n", err)
		return 1
	}
	if err := writeOutput(e, path, c); err != nil {
		fmt.Fprintf(e.stderr, "parley compile: %v\n", err)
		return 1
	}
	dir := "."
	if path != "-" {
		dir = filepath.Dir(path)
	}
	rt := filepath.Join(dir, codegen.RuntimeName)
	if err := os.WriteFile(rt, codegen.Runtime(), 0o644); err != nil {
		fmt.Fprintf(e.stderr, "parley compile: %v\n", err)
		return 1
	}
	if !o.build {
		if path == "-" {
			fmt.Fprintf(e.stderr, "parley compile: wrote the C to standard output and %s\n", rt)
		} else {
			fmt.Fprintf(e.stderr, "parley compile: wrote %s and %s\n", path, rt)
		}
		return 0
	}
	exe := strings.TrimSuffix(path, filepath.Ext(path))
	if err := buildC(path, exe, nil); err != nil {
		fmt.Fprintf(e.stderr, "parley compile: %v\n", err)
		return 1
	}
	fmt.Fprintf(e.stderr, "parley compile: wrote %s, %s and the executable %s; run it with mpirun -np N %s\n",
		path, rt, exe, runnable(exe))
	return 0
}

// checkCompileOutput refuses outputs that would destroy an input or the
// run-time header, before anything is written.
func checkCompileOutput(src, out string, build bool) error {
	if out == "-" {
		if build {
			return errors.New("--build needs a C file to compile; give -o FILE.c")
		}
		return nil
	}
	switch {
	case filepath.Base(out) == codegen.RuntimeName:
		return fmt.Errorf("-o %s: that is the name of the run-time header written beside the C file; name the C file otherwise", out)
	case sameFile(src, out):
		return fmt.Errorf("-o %s would overwrite the program with C; name a .c file", out)
	case strings.EqualFold(filepath.Ext(out), ".parley") || strings.EqualFold(filepath.Ext(out), ".ncptl"):
		return fmt.Errorf("-o %s: a program's name for C code; name a .c file", out)
	case build && filepath.Ext(out) == "":
		return fmt.Errorf("--build -o %s: the executable would be named %s too; give the C file's name, e.g. -o %s.c", out, out, out)
	case build && sameFile(src, strings.TrimSuffix(out, filepath.Ext(out))):
		return fmt.Errorf("--build would overwrite the program with the executable %s; name the C file otherwise", strings.TrimSuffix(out, filepath.Ext(out)))
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return fmt.Errorf("-o %s is a directory; name a .c file", out)
	}
	return nil
}

// runnable is how a shell runs the executable at path: "./ring" for a
// file in the current directory.
func runnable(path string) string {
	if filepath.IsAbs(path) || strings.ContainsRune(path, filepath.Separator) {
		return path
	}
	return "./" + path
}

// mpiccTimeout bounds one mpicc run: a generated program compiles in
// seconds.
const mpiccTimeout = 5 * time.Minute

// buildC compiles a generated C file with mpicc.
func buildC(src, exe string, extra []string) error {
	mpicc, err := exec.LookPath("mpicc")
	if err != nil {
		return errors.New("mpicc not found: install an MPI (on Debian: apt-get install openmpi-bin libopenmpi-dev), or compile the C file yourself")
	}
	args := append(append(append([]string{}, mpiccFlags...), extra...), "-o", exe, src, "-lm")
	ctx, cancel := context.WithTimeout(context.Background(), mpiccTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, mpicc, args...)
	outb, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("mpicc %s: %w\n%s", strings.Join(args, " "), err, outb)
	}
	return nil
}
