//go:build !unix

package tracer

import (
	"context"
	"io"
	"os/exec"
	"time"
)

// Run runs argv with env and waits for it; when ctx ends first it kills
// the command and returns ErrTimeout.
func Run(ctx context.Context, argv, env []string, stdout, stderr io.Writer, grace time.Duration) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = grace
	err := cmd.Run()
	if ctx.Err() != nil {
		return ErrTimeout
	}
	return err
}
