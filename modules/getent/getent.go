// Package getent is ansible.builtin.getent: it reads a name service
// database (passwd, group, hosts, services...) with the getent command and
// returns its entries as the fact getent_<database>.
package getent

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Entries returns ansible.builtin.getent.
func Entries() []module.Entry {
	return []module.Entry{{FQCN: "ansible.builtin.getent", Module: module.Func(getent)}}
}

var spec = argspec.Spec{Options: []argspec.Option{
	{Name: "database", Type: argspec.Str, Required: true},
	{Name: "key", Type: argspec.Str},
	{Name: "service", Type: argspec.Str},
	{Name: "split", Type: argspec.Str},
	{Name: "fail_key", Type: argspec.Bool, Default: true},
}}

// colonDatabases are the databases whose entries split on ':' unless
// `split` says otherwise; the others split on runs of whitespace.
var colonDatabases = map[string]bool{"passwd": true, "shadow": true, "group": true, "gshadow": true}

// exitMessages are getent's documented exit codes, as the module words
// its failure for each.
var exitMessages = map[int]string{
	1: "Missing arguments, or database unknown.",
	2: "One or more supplied key could not be found in the database.",
	3: "Enumeration not supported on this database.",
}

func getent(req *module.Request) (*value.Dict, error) {
	v := spec.Validate(req.Args)
	if fail := v.Failure(req.Action); fail != nil {
		return fail, nil
	}
	database := value.Str(v.Params.Default("database", ""))
	key, hasKey := optional(v.Params, "key")
	split, hasSplit := optional(v.Params, "split")
	if !hasSplit && colonDatabases[database] {
		split, hasSplit = ":", true
	}
	bin, err := exec.LookPath("getent")
	if err != nil {
		return module.Failed("Failed to find required executable \"getent\" in paths: " + pathList()), nil
	}
	cmd := []string{bin, database}
	if hasKey {
		cmd = append(cmd, key)
	}
	if service, ok := optional(v.Params, "service"); ok {
		cmd = append(cmd, "-s", service)
	}
	out, rc, err := run(req, cmd)
	if err != nil {
		return module.Failed(err.Error()), nil
	}
	tree := "getent_" + database
	switch {
	case rc == 0:
		return value.DictOf("changed", false, "ansible_facts", value.DictOf(tree, entries(out, split, hasSplit))), nil
	case rc == 2 && !value.Truthy(v.Params.Default("fail_key", true)):
		facts := value.DictOf(tree, value.DictOf(key, nil))
		return value.DictOf("changed", false, "ansible_facts", facts, "msg", exitMessages[2]), nil
	}
	msg, ok := exitMessages[rc]
	if !ok {
		msg = "Unexpected failure!"
	}
	return module.Failed(msg), nil
}

// optional returns a string parameter and whether it was given.
func optional(params *value.Dict, name string) (string, bool) {
	x, ok := params.Get(name)
	if !ok || x == nil {
		return "", false
	}
	return value.Str(x), true
}

// entries turns getent's lines into the fact: each line's first field is
// the key and the rest its value; a key seen again holds the list of its
// values.
func entries(out, split string, hasSplit bool) *value.Dict {
	tree := value.NewDict(0)
	seen := map[string]int{}
	for _, line := range splitLines(out) {
		var record []string
		if hasSplit {
			record = strings.Split(line, split)
		} else {
			record = strings.Fields(line)
		}
		if len(record) == 0 {
			// Python's str.split() of a blank line is [], and record[0]
			// then fails; getent prints no such line.
			continue
		}
		name, rest := record[0], stringsToAny(record[1:])
		switch seen[name] {
		case 0:
			tree.Set(name, rest)
		case 1:
			first, _ := tree.Get(name)
			tree.Set(name, []any{first, rest})
		default:
			l, _ := tree.Get(name)
			tree.Set(name, append(l.([]any), rest))
		}
		seen[name]++
	}
	return tree
}

// splitLines is str.splitlines for getent's output (no trailing empty
// line).
func splitLines(s string) []string {
	s = strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func stringsToAny(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

// run runs getent in the task's environment and returns its standard
// output and exit code.
func run(req *module.Request, argv []string) (string, int, error) {
	var stdout bytes.Buffer
	cmd := exec.CommandContext(req.Ctx, argv[0], argv[1:]...)
	cmd.Env = req.Environ()
	cmd.Stdout = &stdout
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return stdout.String(), ee.ExitCode(), nil
	}
	return stdout.String(), 0, err
}

// pathList is the search path get_bin_path names when a program is
// missing.
func pathList() string { return os.Getenv("PATH") }
