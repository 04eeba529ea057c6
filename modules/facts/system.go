package facts

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// system is what collectors read the machine through: files, commands
// found on the module's PATH, the module's environment, and setup's
// parameters. It plays the part of AnsibleModule for ansible-core's
// collectors.
type system struct {
	ctx context.Context
	// environ is the environment a module process would have: the
	// process environment with the task's `environment` on top.
	environ []string
	// factPath is setup's fact_path, expanded.
	factPath string
	// timeout is gather_timeout: the limit of each slow probe.
	timeout time.Duration
	// warnings are what the module reports with module.warn.
	warnings []string
}

// getenv looks a variable up in the module environment.
func (s *system) getenv(name string) (string, bool) {
	for i := len(s.environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(s.environ[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

func (s *system) warn(msg string) { s.warnings = append(s.warnings, msg) }

// content reads a file as get_file_content does: the stripped text, or
// ok false when the file is missing, unreadable or blank.
func content(path string) (string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	s := strings.TrimSpace(string(data))
	return s, s != ""
}

// contentOr is content with a default for a missing or blank file.
func contentOr(path, def string) string {
	if s, ok := content(path); ok {
		return s
	}
	return def
}

// fileLines splits a file's stripped content into lines (none when the
// file is missing or blank).
func fileLines(path string) []string {
	s, ok := content(path)
	if !ok {
		return nil
	}
	return py.Splitlines(s, false)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// binPath finds an executable as AnsibleModule.get_bin_path does: in the
// extra directories, then on PATH, then in the sbin directories.
func (s *system) binPath(name string, extra ...string) string {
	dirs := append([]string{}, extra...)
	if p, ok := s.getenv("PATH"); ok {
		dirs = append(dirs, filepath.SplitList(p)...)
	}
	for _, sbin := range []string{"/sbin", "/usr/sbin", "/usr/local/sbin"} {
		if !containsString(dirs, sbin) {
			dirs = append(dirs, sbin)
		}
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// run runs a command with the module environment (in the C locale, so
// that its output parses the same everywhere) and returns its exit code
// and output. A command that cannot start returns rc -1 and the error
// as stderr; one that outlives gather_timeout is killed.
func (s *system) run(args ...string) (rc int, stdout, stderr string) {
	rc, stdout, stderr, err := s.runErr(args...)
	if err != nil {
		return -1, stdout, err.Error()
	}
	return rc, stdout, stderr
}

// runErr is run that reports a command that could not start as an error.
func (s *system) runErr(args ...string) (rc int, stdout, stderr string, startErr error) {
	ctx := s.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(append([]string{}, s.environ...), "LANG=C", "LC_ALL=C", "LC_MESSAGES=C")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errOut.String(), nil
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errOut.String(), nil
	}
	return -1, out.String(), errOut.String(), err
}

// runBin runs a command found with binPath; ok is false when the
// program is not installed.
func (s *system) runBin(name string, args ...string) (rc int, stdout string, ok bool) {
	p := s.binPath(name)
	if p == "" {
		return 0, "", false
	}
	rc, stdout, _ = s.run(append([]string{p}, args...)...)
	return rc, stdout, true
}

// facts builds a dict from key/value pairs, skipping nothing: a helper
// for collectors that return a fixed set of facts.
func facts(kv ...any) *value.Dict { return value.DictOf(kv...) }

// strList converts strings to a fact list.
func strList(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}
