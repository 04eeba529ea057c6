package command

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// scriptSpec is the argument spec the script action validates with.
var scriptSpec = argspec.Spec{
	Options: []argspec.Option{
		{Name: "_raw_params"},
		{Name: "cmd", Type: argspec.Str},
		{Name: "creates", Type: argspec.Str},
		{Name: "removes", Type: argspec.Str},
		{Name: "chdir", Type: argspec.Str},
		{Name: "executable", Type: argspec.Str},
	},
	Rules: argspec.Rules{
		RequiredOneOf:     [][]string{{"_raw_params", "cmd"}},
		MutuallyExclusive: [][]string{{"_raw_params", "cmd"}},
	},
}

// scriptAction is ansible-core's script action: a local script, found on
// the task's search path under files/, is copied to a private temporary
// directory, made executable and run by /bin/sh with the rest of the
// line as its arguments, in the playbook's directory (or chdir).
func scriptAction(req *module.Request) (*value.Dict, error) {
	v := scriptSpec.Validate(req.Args)
	if err := v.ActionError(req.Action); err != nil {
		return nil, err
	}
	p := v.P()
	dir := req.BaseDir()
	if creates := p.Str("creates"); creates != "" && exists(dir, creates) {
		return skippedAction(creates + " exists, matching creates option"), nil
	}
	if removes := p.Str("removes"); removes != "" && !exists(dir, removes) {
		return skippedAction(removes + " does not exist, matching removes option"), nil
	}
	chdir := p.Str("chdir")
	if chdir != "" && !strings.HasPrefix(chdir, "/") {
		return nil, module.ActionFail(fmt.Sprintf("chdir %s must be an absolute path for a Unix-aware remote node", chdir), nil)
	}
	line := p.Str("_raw_params")
	if line == "" {
		line = p.Str("cmd")
	}
	line = strings.TrimSpace(line)
	words, err := shlexSplit(line)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("list index out of range")
	}
	source, searched, found := req.Host.FindFile("files", words[0])
	if !found {
		// ansible-core raises the action failure from AnsibleFileNotFound.
		msg := search.NotFoundMessage(words[0], searched)
		return nil, module.ActionFail(msg, errors.New(msg))
	}
	if req.Check {
		if p.Str("creates") != "" || p.Str("removes") != "" {
			return value.DictOf("changed", true), nil
		}
		return skippedAction("Check mode is not supported for this task."), nil
	}
	return runScript(req, scriptRun{source: source, written: words[0], line: line,
		executable: p.Str("executable"), chdir: chdir, dir: dir})
}

// scriptRun is a located script and how to run it.
type scriptRun struct {
	// source is the script found; written is how the line names it.
	source, written, line string
	executable, chdir     string
	dir                   string
}

func runScript(req *module.Request, s scriptRun) (*value.Dict, error) {
	tmp, err := os.MkdirTemp("", "cfzt-script-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	copied := filepath.Join(tmp, filepath.Base(s.source))
	if err := copyExecutable(s.source, copied); err != nil {
		return nil, err
	}
	// Every occurrence of the script's name becomes the copy, as
	// ansible-core's str.replace does; the shell parses the arguments.
	cmd := strings.ReplaceAll(s.line, s.written, copied)
	if s.executable != "" {
		cmd = s.executable + " " + cmd
	}
	if s.chdir != "" {
		cmd = "cd " + s.chdir + " && " + cmd
	}
	return shellLine(req, process{argv: []string{"/bin/sh", "-c", cmd}, dir: s.dir, env: withPWD(req.Environ(), s.dir)})
}

// copyExecutable copies a script to dst with mode 0700.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o700)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// exists is the action's remote `test -e`: relative paths are taken from
// the playbook's directory, and nothing is expanded.
func exists(dir, path string) bool {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	_, err := os.Stat(path)
	return err == nil
}

// skippedAction is an AnsibleActionSkip's result.
func skippedAction(msg string) *value.Dict {
	return value.DictOf("changed", false, "skipped", true, "msg", msg)
}
