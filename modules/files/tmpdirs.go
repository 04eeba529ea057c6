package files

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// remoteTmpDir makes the per-task directory ansible-core creates on the
// target for the files an action transfers: remote_tmp (the
// ansible_remote_tmp variable, ANSIBLE_REMOTE_TEMP, or ~/.ansible/tmp,
// with ~ the remote user's home) holding ansible-tmp-<time>-<pid>-<random>.
// The caller removes it when the task is done.
func remoteTmpDir(req *module.Request) (string, error) {
	base := "~/.ansible/tmp"
	if v, ok := os.LookupEnv("ANSIBLE_REMOTE_TEMP"); ok && v != "" {
		base = v
	}
	if v, ok := req.Host.Var("ansible_remote_tmp"); ok && v != nil {
		base = value.Str(v)
	}
	base = expandUserHome(base)
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", err
	}
	name := fmt.Sprintf("ansible-tmp-%s-%d-%d", value.FormatFloat(unixSeconds(time.Now())), os.Getpid(), rand.Int64N(1<<48))
	dir := filepath.Join(base, name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// expandUserHome expands a leading ~ to the current user's home from the
// password database, as the shell does for the remote user.
func expandUserHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home := os.Getenv("HOME")
	if u, err := user.Current(); err == nil && u.HomeDir != "" {
		home = u.HomeDir
	}
	return home + p[1:]
}

// localTmpDir makes a directory under the controller's local temp
// (ANSIBLE_LOCAL_TEMP, default ~/.ansible/tmp) named as ansible-core's
// per-process ansible-local-<pid><random>; the caller removes it.
func localTmpDir() (string, error) {
	base := os.Getenv("ANSIBLE_LOCAL_TEMP")
	if base == "" {
		base = "~/.ansible/tmp"
	}
	if base == "~" || strings.HasPrefix(base, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			base = home + base[1:]
		}
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", err
	}
	return mkdtemp(base, fmt.Sprintf("ansible-local-%d", os.Getpid()), "")
}

// pyTempChars are the characters of Python's tempfile names.
const pyTempChars = "abcdefghijklmnopqrstuvwxyz0123456789_"

// pyTempName is a name as Python's tempfile module makes it: prefix,
// eight random characters, suffix.
func pyTempName(prefix, suffix string) string {
	b := make([]byte, 8)
	for i := range b {
		b[i] = pyTempChars[rand.IntN(len(pyTempChars))]
	}
	return prefix + string(b) + suffix
}

// mkdtemp creates a new directory named as tempfile.mkdtemp does (mode 0700).
func mkdtemp(dir, prefix, suffix string) (string, error) {
	for range 100 {
		p := filepath.Join(dir, pyTempName(prefix, suffix))
		err := os.Mkdir(p, 0o700)
		if err == nil {
			return p, nil
		}
		if !os.IsExist(err) {
			return "", err
		}
	}
	return "", os.ErrExist
}

// mkstemp creates a new empty file named as tempfile.mkstemp does (mode 0600).
func mkstemp(dir, prefix, suffix string) (*os.File, error) {
	for range 100 {
		f, err := os.OpenFile(filepath.Join(dir, pyTempName(prefix, suffix)), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f, nil
		}
		if !os.IsExist(err) {
			return nil, err
		}
	}
	return nil, os.ErrExist
}
