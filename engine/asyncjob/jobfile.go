// Package asyncjob runs a module as a background job, as ansible-core's
// async_wrapper does for `async:` tasks: the job is a detached copy of the
// cfzt-runner binary (the hidden ChildCommand), it writes its state to a
// job file named by its job id under the async directory, and the executor
// (`poll:`) and the async_status module read that file. Because the job is
// a process of its own, a fire-and-forget task (`poll: 0`) keeps running
// after the playbook run ends.
package asyncjob

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// DefaultDir is the async directory when neither the ansible_async_dir
// variable nor ANSIBLE_ASYNC_DIR names one (the sh shell plugin's default).
const DefaultDir = "~/.ansible_async"

// DirVar is the variable that sets the async directory of a host.
const DirVar = "ansible_async_dir"

// ResolveDir returns the async directory: the variable's value when set,
// else ANSIBLE_ASYNC_DIR, else DefaultDir, with a leading ~ expanded to
// HOME as the local shell expands it.
func ResolveDir(fromVar string, getenv func(string) (string, bool)) string {
	dir := fromVar
	if dir == "" {
		if env, ok := getenv("ANSIBLE_ASYNC_DIR"); ok && env != "" {
			dir = env
		} else {
			dir = DefaultDir
		}
	}
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		home, _ := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		dir = home + dir[1:]
	}
	return dir
}

// NewJID returns a job id shaped as async_wrapper's: "j", a random number
// below 10^12, a dot and the id of the process that starts the job.
func NewJID() string {
	n, err := rand.Int(rand.Reader, big.NewInt(999999999999))
	if err != nil {
		n = big.NewInt(int64(os.Getpid()))
	}
	return fmt.Sprintf("j%d.%d", n, os.Getpid())
}

// Path is the job file of jid under dir.
func Path(dir, jid string) string { return filepath.Join(dir, jid) }

// write stores v as the job file path atomically: it is written beside it
// and renamed, so that a reader never sees half a file.
func write(path string, v any) error {
	text, err := value.EncodeJSON(v, value.JSONOptions{})
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// startedState is what a job file holds while the job runs.
func startedState(jid string) *value.Dict {
	return value.DictOf("started", true, "finished", false, "ansible_job_id", jid)
}

// ErrNoJob is the status of a job id that has no job file.
var ErrNoJob = errors.New("could not find job")

// Status is the async_status module's answer for jid: the job file's
// state on top of async_status's initial result (empty output, the job id
// and file, started), with `finished` set when the job wrote its result.
// A job id without a file is a failed result with ErrNoJob's message.
func Status(dir, jid string) *value.Dict {
	path := Path(dir, jid)
	res := initialResult(jid)
	res.Set("results_file", path)
	res.Set("started", true)
	data, err := os.ReadFile(path)
	if err != nil {
		return noJob(res)
	}
	parsed, err := value.DecodeJSON(data)
	state, isDict := parsed.(*value.Dict)
	if err != nil || !isDict {
		// A file being written reads as a job still running.
		return res
	}
	if !state.Has("started") {
		state.Set("finished", true)
		state.Set("ansible_job_id", jid)
	} else if !state.Has("finished") {
		state.Set("finished", false)
	}
	res.Update(state)
	for _, k := range []string{"started", "finished"} {
		res.Set(k, value.Truthy(res.Default(k, false)))
	}
	return res
}

// Cleanup removes the job file of jid, as async_status's cleanup mode:
// the result names the erased file; a job id without a file fails as
// Status does.
func Cleanup(dir, jid string) *value.Dict {
	path := Path(dir, jid)
	res := initialResult(jid)
	res.Set("erased", path)
	if err := os.Remove(path); err != nil {
		return noJob(res)
	}
	return res
}

// initialResult is the result the async_status action starts from, which
// the module's answer updates: not started, not finished, no output.
func initialResult(jid string) *value.Dict {
	return value.DictOf("started", false, "finished", false, "stdout", "", "stderr", "",
		"stdout_lines", []any{}, "stderr_lines", []any{}, "ansible_job_id", jid)
}

// noJob updates res with the module's failure for a job id without a
// job file.
func noJob(res *value.Dict) *value.Dict {
	res.Set("msg", ErrNoJob.Error())
	res.Set("failed", true)
	res.Set("started", true)
	res.Set("finished", true)
	return res
}
