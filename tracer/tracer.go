package tracer

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

//go:embed csrc/parley_tracer.c
var source []byte

// Source is the tracer's C source.
func Source() []byte { return source }

// LibName is the file name of the built library.
const LibName = "libparleytracer.so"

// Hash identifies the source (and the flags it is built with): the cache
// keeps one library per hash.
func Hash() string {
	h := sha256.New()
	h.Write(source)
	h.Write([]byte(strings.Join(buildFlags, " ")))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

var buildFlags = []string{"-O2", "-fPIC", "-shared", "-Wall"}

// Build returns the path of the library built from Source with mpicc in
// cacheDir/tracer-HASH, building it when it is not there yet. The build
// goes to a temporary directory first, so that a build cut short or racing
// another leaves no broken library behind; ctx bounds it.
func Build(ctx context.Context, mpicc, cacheDir string) (lib string, built bool, err error) {
	dir := filepath.Join(cacheDir, "tracer-"+Hash())
	lib = filepath.Join(dir, LibName)
	if st, err := os.Stat(lib); err == nil && st.Mode().IsRegular() {
		return lib, false, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", false, fmt.Errorf("the tracer's cache: %w", err)
	}
	tmp, err := os.MkdirTemp(cacheDir, "build-")
	if err != nil {
		return "", false, fmt.Errorf("the tracer's cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "parley_tracer.c")
	if err := os.WriteFile(src, source, 0o644); err != nil {
		return "", false, err
	}
	args := append(append([]string{}, buildFlags...), "-o", filepath.Join(tmp, LibName), src)
	out, err := exec.CommandContext(ctx, mpicc, args...).CombinedOutput()
	if ctx.Err() != nil {
		return "", false, fmt.Errorf("building the tracer with %s took too long: %w", mpicc, ctx.Err())
	}
	if err != nil {
		return "", false, fmt.Errorf("building the tracer: %s %s: %w\n%s", mpicc, strings.Join(args, " "), err, out)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, err
	}
	if err := os.Rename(filepath.Join(tmp, LibName), lib); err != nil {
		return "", false, err
	}
	return lib, true, nil
}

// Launcher says how a command starts its MPI processes, which decides how
// the library and the trace directory reach them.
type Launcher int

const (
	// Direct: the command is the program itself (a singleton MPI run) or
	// a launcher that passes its environment on (MPICH's mpiexec).
	Direct Launcher = iota
	// OpenMPI: Open MPI's mpirun, which passes only the variables named
	// with -x.
	OpenMPI
)

// DetectLauncher tells Open MPI's mpirun from other commands by asking
// it for its version, within ctx.
func DetectLauncher(ctx context.Context, argv0 string) Launcher {
	switch filepath.Base(argv0) {
	case "mpirun", "mpiexec", "orterun":
	default:
		return Direct
	}
	out, _ := exec.CommandContext(ctx, argv0, "--version").CombinedOutput()
	if strings.Contains(string(out), "Open MPI") || strings.Contains(string(out), "OpenRTE") {
		return OpenMPI
	}
	return Direct
}

// Preload returns argv and the environment that run it with lib preloaded,
// the trace written to dir and, with cpu, the CPU time between calls
// recorded: the variables are set in env (for a direct run, and for
// launchers that pass the environment on) and, for Open MPI, also named
// with -x right after mpirun.
func Preload(argv, env []string, l Launcher, lib, dir string, cpu bool) ([]string, []string) {
	preload := lib
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "LD_PRELOAD="); ok && v != "" {
			preload = lib + ":" + v
		}
	}
	vars := []string{"LD_PRELOAD=" + preload, "PARLEY_TRACE_DIR=" + dir}
	if cpu {
		vars = append(vars, "PARLEY_TRACE_CPU=1")
	}
	env = append(append([]string{}, env...), vars...)
	if l != OpenMPI {
		return argv, env
	}
	out := []string{argv[0]}
	for _, v := range vars {
		out = append(out, "-x", v)
	}
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, sigkillTimeout+"=") }) {
		env = append(env, sigkillTimeout+"=10")
	}
	return append(out, argv[1:]...), env
}

// sigkillTimeout is the Open MPI setting of how long mpirun waits between
// the SIGTERM and the SIGKILL it sends the ranks left after one crashed: 1
// second by default, too short for a rank on a loaded machine to write
// what it traced. Preload makes it 10 seconds unless the user set it.
const sigkillTimeout = "OMPI_MCA_odls_base_sigkill_timeout"

// ErrTimeout is returned by Run when the command ran out of time.
var ErrTimeout = errors.New("time limit reached")
