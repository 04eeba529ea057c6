package e2e

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Process is a cfzt-runner started in the background by StartPlaybook: a
// worker that a test can kill at any moment (SIGKILL, as an OOM kill or an
// eviction past the grace period would), or stop and wait for.
type Process struct {
	cmd  *exec.Cmd
	out  *SyncBuffer
	done chan struct{}
	err  error
}

// StartPlaybook starts cfzt-runner with args on playbook, with the same
// environment rules as RunPlaybook, and returns at once. The process is
// killed when ctx ends.
func (h *Harness) StartPlaybook(ctx context.Context, playbook string, env map[string]string, args ...string) (*Process, error) {
	if !filepath.IsAbs(playbook) {
		playbook = filepath.Join(h.Root, playbook)
	}
	cmd := exec.CommandContext(ctx, h.Runner, append(append([]string{}, args...), playbook)...)
	cmd.Dir = h.Root
	cmd.Env = h.commandEnv(env)
	cmd.WaitDelay = 5 * time.Second
	p := &Process{cmd: cmd, out: &SyncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Output is everything the process wrote so far (stdout and stderr).
func (p *Process) Output() string { return p.out.String() }

// Kill sends SIGKILL and waits for the process to be gone.
func (p *Process) Kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Running reports whether the process has not exited yet.
func (p *Process) Running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Wait waits up to timeout for the process to exit and returns its exit
// code (-1 if it was killed by a signal, or is still running at the
// timeout, in which case it is killed).
func (p *Process) Wait(timeout time.Duration) int {
	select {
	case <-p.done:
	case <-time.After(timeout):
		p.Kill()
		return -1
	}
	var exit *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &exit):
		return exit.ExitCode()
	default:
		return -1
	}
}
