package command

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// pipeGrace is how long a finished command's output pipes may stay open.
// A background child (`server &`) inherits them; ansible-core stops
// reading once the command has exited and the pipes have been idle for a
// second, and so does this, without waiting for the child.
const pipeGrace = time.Second

// process is one child process to run to completion.
type process struct {
	// argv[0] is the program as written: a name looked up on PATH, or a
	// path (relative to dir) when it contains a slash.
	argv []string
	// dir is the working directory; env the whole environment, whose PATH
	// is the one searched.
	dir string
	env []string
	// stdin is written to the process and closed; nil gives /dev/null.
	stdin []byte
}

// outcome is what a finished process left.
type outcome struct {
	rc             int
	stdout, stderr []byte
}

// run starts the process in a process group of its own and waits for it.
// Cancelling ctx kills the whole group, so that nothing the command
// started outlives the runner.
func run(ctx context.Context, p process) (outcome, error) {
	if err := ctx.Err(); err != nil {
		return outcome{}, err
	}
	path, err := findProgram(p.argv[0], p.dir, p.env)
	if err != nil {
		return outcome{}, err
	}
	var stdout, stderr bytes.Buffer
	cmd := &exec.Cmd{Path: path, Args: p.argv, Dir: p.dir, Env: p.env, Stdout: &stdout, Stderr: &stderr,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true}, WaitDelay: pipeGrace}
	if p.stdin != nil {
		cmd.Stdin = bytes.NewReader(p.stdin)
	}
	if err := cmd.Start(); err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return outcome{}, &osError{errno: errno, file: p.argv[0]}
		}
		return outcome{}, err
	}
	stop := context.AfterFunc(ctx, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	err = cmd.Wait()
	stop()
	if ctx.Err() != nil {
		return outcome{}, ctx.Err()
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		return outcome{}, err
	}
	return outcome{rc: returnCode(cmd.ProcessState), stdout: stdout.Bytes(), stderr: stderr.Bytes()}, nil
}

// returnCode is Python's Popen.returncode: the exit status, or minus the
// signal that killed the process.
func returnCode(st *os.ProcessState) int {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -int(ws.Signal())
	}
	return st.ExitCode()
}

// findProgram resolves argv[0] as Python's subprocess does: a name with a
// slash is a path relative to dir; any other name is tried in each PATH
// directory of env, and when none can be run the error is the first
// candidate's other than "not found" (typically permission denied).
func findProgram(name, dir string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) && dir != "" {
			return filepath.Join(dir, name), nil
		}
		return name, nil
	}
	pathList, ok := lookupIn(env, "PATH")
	if !ok {
		pathList = "/bin:/usr/bin"
	}
	var firstOther syscall.Errno
	for _, d := range strings.Split(pathList, ":") {
		candidate := filepath.Join(d, name)
		if d == "" {
			candidate = filepath.Join(dir, name)
		}
		errno := executable(candidate)
		if errno == 0 {
			return candidate, nil
		}
		if errno != syscall.ENOENT && errno != syscall.ENOTDIR && firstOther == 0 {
			firstOther = errno
		}
	}
	if firstOther == 0 {
		firstOther = syscall.ENOENT
	}
	return "", &osError{errno: firstOther, file: name}
}

// executable returns 0 when path is a file this process may execute, or
// the errno execve would fail with.
func executable(path string) syscall.Errno {
	fi, err := os.Stat(path)
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return errno
		}
		return syscall.ENOENT
	}
	if fi.IsDir() {
		return syscall.EACCES
	}
	if err := syscall.Access(path, 1); err != nil {
		return syscall.EACCES
	}
	return 0
}

// lookupIn finds a variable in an environment list; the last entry wins.
func lookupIn(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v, true
		}
	}
	return "", false
}
