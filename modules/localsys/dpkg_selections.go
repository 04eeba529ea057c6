package localsys

import (
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// dpkgSelectionsSpec is ansible.builtin.dpkg_selections' argument_spec.
var dpkgSelectionsSpec = &argspec.Spec{Options: []argspec.Option{
	{Name: "name", Type: argspec.Str, Required: true},
	{Name: "selection", Type: argspec.Str, Required: true, Choices: []any{"install", "hold", "deinstall", "purge"}},
}}

// DpkgSelections is ansible.builtin.dpkg_selections: it reads a package's
// dpkg selection and sets it (`dpkg --set-selections`) when it differs;
// in check mode it only reports the change.
func DpkgSelections(req *module.Request) (*value.Dict, error) {
	p, failed := validate(req, dpkgSelectionsSpec)
	if failed != nil {
		return failed, nil
	}
	res, err := dpkgSelections(req, p.Str("name"), p.Str("selection"))
	if f, ok := err.(*module.Failure); ok {
		return module.FailedResult(f), nil
	}
	return res, err
}

func dpkgSelections(req *module.Request, name, selection string) (*value.Dict, error) {
	dpkg, err := binPath(req, "dpkg")
	if err != nil {
		return nil, module.Fail(err.Error())
	}
	out, err := dpkgRun(req, []string{dpkg, "--get-selections", name})
	if err != nil {
		return nil, err
	}
	current := "not present"
	switch fields := strings.Fields(out.stdout); {
	case strings.Contains(out.stderr, "no packages found matching"):
		return nil, module.Fail(fmt.Sprintf("Failed to find package '%s' to perform selection '%s'.", name, selection))
	case len(fields) > 1:
		current = fields[1]
	}
	changed := current != selection
	res := value.DictOf("changed", changed, "before", current, "after", selection)
	if req.Check || !changed {
		return res, nil
	}
	if _, err := dpkgRun(req, []string{dpkg, "--set-selections"}, name+" "+selection); err != nil {
		return nil, err
	}
	return res, nil
}

// dpkgRun is run_command(argv, check_rc=True) with the C locale: a
// non-zero exit is the module's failure, worded by dpkg's stderr.
func dpkgRun(req *module.Request, argv []string, stdin ...string) (cmdResult, error) {
	out, err := runCmdInput(req, argv, stdin...)
	if err != nil {
		return out, module.Fail(err.Error(), "rc", 2, "cmd", strings.Join(argv, " "))
	}
	if out.rc != 0 {
		return out, module.Fail(strings.TrimRight(out.stderr, " \t\r\n"), "cmd", strings.Join(argv, " "), "rc", out.rc, "stdout", out.stdout, "stderr", out.stderr)
	}
	return out, nil
}
