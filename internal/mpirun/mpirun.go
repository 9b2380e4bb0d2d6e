// Package mpirun finds Open MPI's mpicc and mpirun and runs MPI programs
// under mpirun with a time limit that never leaves processes behind. The
// commands that measure this machine (parley calibrate, parley validate)
// and the tests that run compiled programs (internal/mpitest) share it.
//
// mpirun imports only the standard library.
package mpirun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// ErrNoMPI is wrapped by Tools' error when mpicc or mpirun is missing.
var ErrNoMPI = errors.New("install Open MPI (on Debian: apt-get install openmpi-bin libopenmpi-dev)")

// Tools returns the paths of mpicc and mpirun.
func Tools() (mpicc, mpirun string, err error) {
	for _, t := range []struct {
		name string
		path *string
	}{{"mpicc", &mpicc}, {"mpirun", &mpirun}} {
		p, err := exec.LookPath(t.name)
		if err != nil {
			return "", "", fmt.Errorf("%s not found: %w", t.name, ErrNoMPI)
		}
		*t.path = p
	}
	return mpicc, mpirun, nil
}

// Job is one run of an MPI program.
type Job struct {
	MPIRun string   // the mpirun to use
	NP     int      // number of processes
	Exe    string   // the program
	Args   []string // its arguments
	Dir    string   // its working directory; "": the current one
	Env    []string // "KEY=value" added to the environment
	// Stdout and Stderr receive the program's output; nil discards it.
	Stdout, Stderr io.Writer
	// Timeout bounds the run; 0 means no limit.
	Timeout time.Duration
}

// args returns mpirun's arguments for the job: --oversubscribe, since a
// benchmark may well have more tasks than the machine has cores, and
// --allow-run-as-root when running as root, which Open MPI otherwise
// refuses.
func (j *Job) args() []string {
	a := []string{"--oversubscribe", "-np", strconv.Itoa(j.NP)}
	if os.Geteuid() == 0 {
		a = append([]string{"--allow-run-as-root"}, a...)
	}
	return append(append(a, j.Exe), j.Args...)
}

// stopGrace is how long mpirun has to stop its tasks after SIGTERM before
// everything left in its process group is killed.
const stopGrace = 3 * time.Second

// Run runs the job, with standard input empty. When ctx ends or the
// timeout passes it stops mpirun, which passes SIGTERM on to its tasks,
// then kills whatever is left in its process group, and returns an error
// wrapping context.DeadlineExceeded (or ctx's error).
func Run(ctx context.Context, j Job) error {
	if j.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, j.Timeout)
		defer cancel()
	}
	cmd := exec.Command(j.MPIRun, j.args()...)
	cmd.Dir = j.Dir
	if len(j.Env) > 0 {
		cmd.Env = append(os.Environ(), j.Env...)
	}
	cmd.Stdout, cmd.Stderr = j.Stdout, j.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Tasks that outlive a killed mpirun and hold its output open must not
	// hold the caller up.
	cmd.WaitDelay = stopGrace
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", j.MPIRun, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(stopGrace):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		if j.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%s did not finish within %v: %w", j.Exe, j.Timeout, ctx.Err())
		}
		return ctx.Err()
	}
}
