package command

import "github.com/cfzt/cfzt-runner/engine/py"

// expandPath is what ansible-core does to a `path` argument and to each
// argument of a command: expanduser of expandvars, with the variables the
// module process would see.
func expandPath(s string, lookup func(string) (string, bool)) string {
	return py.ExpandUser(py.ExpandVars(s, lookup), lookup)
}
