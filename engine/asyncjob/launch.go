package asyncjob

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ChildCommand is the hidden first argument that makes cfzt-runner run a
// background job instead of a playbook:
//
//	cfzt-runner __async_job <jid> <timeout seconds> <request file>
//
// The request file (written by Launch, removed by the job once read) is
// the module invocation as JSON (Spec).
const ChildCommand = "__async_job"

// Spec is a module invocation a background job performs: the parts of a
// module.Request that survive a process boundary.
type Spec struct {
	Name        string            `json:"name"`
	FQCN        string            `json:"fqcn"`
	Action      string            `json:"action"`
	Args        json.RawMessage   `json:"args"`
	Check       bool              `json:"check"`
	Diff        bool              `json:"diff"`
	Verbosity   int               `json:"verbosity"`
	Env         map[string]string `json:"env"`
	BaseEnv     map[string]string `json:"base_env,omitempty"`
	ModuleFile  string            `json:"module_file"`
	NoLog       bool              `json:"no_log"`
	ModuleUtils []string          `json:"module_utils"`
	HostName    string            `json:"host"`
	PlaybookDir string            `json:"playbook_dir"`
	TaskDir     string            `json:"task_dir"`
}

// SpecOf captures req for a background job; playbookDir is the directory
// relative module paths resolve against in the job (Request.BaseDir).
func SpecOf(req *module.Request, playbookDir string) (*Spec, error) {
	args, err := value.EncodeJSON(req.Args, value.JSONOptions{})
	if err != nil {
		return nil, err
	}
	s := &Spec{Name: req.Name, FQCN: req.FQCN, Action: req.Action, Args: json.RawMessage(args),
		Check: req.Check, Diff: req.Diff, Verbosity: req.Verbosity, Env: req.Env, BaseEnv: req.BaseEnv,
		ModuleFile: req.ModuleFile, NoLog: req.NoLog, ModuleUtils: req.ModuleUtils, PlaybookDir: playbookDir}
	if req.Host != nil {
		s.HostName, s.TaskDir = req.Host.Name(), req.Host.TaskDir()
	}
	return s, nil
}

// Launch starts spec as a detached job of the executable exe (the
// cfzt-runner binary) under jid in dir, limited to timeout seconds. The
// job file already reads "started" when Launch returns, so a status
// check right after finds the job. The job runs in a session of its own
// with no terminal, so it outlives the run that started it.
func Launch(exe, dir, jid string, timeout int, spec *Spec) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := write(Path(dir, jid), startedState(jid)); err != nil {
		return err
	}
	data, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	reqFile := filepath.Join(dir, "."+jid+".request")
	if err := os.WriteFile(reqFile, data, 0o600); err != nil {
		return err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	cmd := exec.Command(exe, ChildCommand, jid, strconv.Itoa(timeout), reqFile)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	cmd.Dir = spec.PlaybookDir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		_ = os.Remove(reqFile)
		return fmt.Errorf("could not start the async job: %w", err)
	}
	// The job is reaped if it ends while this process lives, and
	// reparents to init when this process ends first.
	go func() { _ = cmd.Wait() }()
	return nil
}
