//go:build unix

package tracer

import (
	"context"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// Run runs argv with env in its own process group and waits for it; when
// ctx ends first it sends the group SIGTERM (mpirun passes it on to its
// ranks, whose tracer then writes what it has), then SIGKILL after grace,
// and returns ErrTimeout.
func Run(ctx context.Context, argv, env []string, stdout, stderr io.Writer, grace time.Duration) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Ranks that outlive a killed launcher must not hold the caller up.
	cmd.WaitDelay = grace
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(grace):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		return ErrTimeout
	}
}
