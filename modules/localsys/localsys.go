// Package localsys implements ansible.builtin modules that read or change
// the local system's own databases: package_facts (the installed
// packages), and user and group (the accounts), driving the same system
// tools ansible-core's Python modules drive.
package localsys

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Entries registers the modules of this package.
func Entries() []module.Entry {
	return []module.Entry{
		{FQCN: "ansible.builtin.package_facts", Module: module.Func(PackageFacts)},
		{FQCN: "ansible.builtin.group", Module: module.Func(Group)},
		{FQCN: "ansible.builtin.user", Module: module.Func(User)},
		{FQCN: "ansible.builtin.dpkg_selections", Module: module.Func(DpkgSelections)},
	}
}

// validate checks a module's arguments; a failed result is returned as
// the module's result, as AnsibleModule fails before the module body.
func validate(req *module.Request, spec *argspec.Spec) (argspec.Params, *value.Dict) {
	v := spec.Validate(req.Args)
	for _, w := range v.Warnings {
		req.Host.Warn(w, value.Pos{})
	}
	if res := v.Failure(req.LoadName()); res != nil {
		return argspec.Params{}, res
	}
	return v.P(), nil
}

// sbinDirs are searched after PATH by get_bin_path, when they exist.
var sbinDirs = []string{"/sbin", "/usr/sbin", "/usr/local/sbin"}

// binPath finds an executable as get_bin_path does: PATH of the module's
// environment, then the sbin directories; the error is its ValueError.
func binPath(req *module.Request, name string) (string, error) {
	pathEnv, _ := req.Getenv("PATH")
	paths := strings.Split(pathEnv, string(os.PathListSeparator))
	for _, d := range sbinDirs {
		if _, err := os.Stat(d); err == nil && !slices.Contains(paths, d) {
			paths = append(paths, d)
		}
	}
	for _, d := range paths {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New(`Failed to find required executable "` + name + `" in paths: ` + strings.Join(paths, string(os.PathListSeparator)))
}

// cmdResult is what run_command returns.
type cmdResult struct {
	rc             int
	stdout, stderr string
}

// runCmd runs argv in the module's environment, with extra variables
// (environ_update) on top, as run_command does.
func runCmd(req *module.Request, argv []string, extra ...string) (cmdResult, error) {
	return runWith(req, argv, nil, extra...)
}

// runCmdInput runs argv with the modules' C locale, feeding stdin when
// given (run_command's data, which ends with a newline).
func runCmdInput(req *module.Request, argv []string, stdin ...string) (cmdResult, error) {
	var in *string
	if len(stdin) > 0 {
		s := stdin[0] + "\n"
		in = &s
	}
	return runWith(req, argv, in, "LANG=C", "LC_ALL=C", "LC_MESSAGES=C")
}

func runWith(req *module.Request, argv []string, stdin *string, extra ...string) (cmdResult, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(req.Ctx, argv[0], argv[1:]...)
	cmd.Env = append(req.Environ(), extra...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = strings.NewReader(*stdin)
	}
	err := cmd.Run()
	res := cmdResult{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.rc = ee.ExitCode()
		return res, nil
	}
	return res, err
}

// cmdOutcome is the (rc, out, err) a module step returns; ran is false
// for rc None (nothing to do).
type cmdOutcome struct {
	ran            bool
	rc             int
	stdout, stderr string
}

// addTo sets changed, stdout and stderr as the modules' main() does.
func (o cmdOutcome) addTo(res *value.Dict) {
	res.Set("changed", o.ran)
	for _, kv := range [][2]string{{"stdout", o.stdout}, {"stderr", o.stderr}} {
		if kv[1] == "" {
			continue
		}
		res.Set(kv[0], kv[1])
		// ActionBase._execute_module adds the lines of every module's
		// stdout and stderr.
		var lines []any
		for _, l := range py.Splitlines(kv[1], false) {
			lines = append(lines, l)
		}
		res.Set(kv[0]+"_lines", lines)
	}
}

// execute runs a command as run_command does (LANG and LC_* set to C);
// with obeyCheck, check mode reports success without running it.
func execute(req *module.Request, argv []string, obeyCheck bool, stdin ...string) (cmdOutcome, error) {
	if obeyCheck && req.Check {
		return cmdOutcome{ran: true}, nil
	}
	res, err := runCmdInput(req, argv, stdin...)
	if err != nil {
		return cmdOutcome{ran: true, rc: 2, stderr: err.Error()}, nil
	}
	return cmdOutcome{ran: true, rc: res.rc, stdout: res.stdout, stderr: res.stderr}, nil
}
