package playbook

import (
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// validateArgsAction is the action of the task that checks a role's
// arguments when the role starts.
const validateArgsAction = "ansible.builtin.validate_argument_spec"

// roleArgumentSpecs returns a role's argument specs, by entry point:
// meta/argument_specs.yml (or .yaml, .json) when it exists, else the
// argument_specs of meta/main.yml.
func (l *Loader) roleArgumentSpecs(r *Role) (*value.Dict, error) {
	meta := filepath.Join(r.Path, "meta")
	for _, ext := range []string{".yml", ".yaml", ".json"} {
		if !fileExists(filepath.Join(meta, "argument_specs"+ext)) {
			continue
		}
		files := findRoleFiles(meta, "argument_specs", false)
		if len(files) == 0 {
			return nil, nil
		}
		v, err := l.loadYAMLValue(files[0])
		if err != nil {
			return nil, err
		}
		d, _ := v.(*value.Dict)
		specs, _ := d.Default("argument_specs", nil).(*value.Dict)
		return specs, nil
	}
	return r.ArgumentSpecs, nil
}

// validationTask is the task ansible-core puts first in a role whose
// argument specs have an entry for the role's entry point (tasks_from,
// else main): it validates the role's parameters, and the variables of
// the same names, against the entry point's options. It is tagged
// always, and ansible-core shows no source for it.
func (l *Loader) validationTask(ri *RoleInstance) (*Task, error) {
	if ri.Ref.NoValidate {
		return nil, nil
	}
	info, ok := l.Modules.Lookup(validateArgsAction)
	if !ok {
		return nil, nil
	}
	specs, err := l.roleArgumentSpecs(ri.Role)
	if err != nil || specs == nil {
		return nil, err
	}
	entry := ri.Ref.TasksFrom
	if entry == "" {
		entry = "main"
	}
	spec, _ := specs.Default(entry, nil).(*value.Dict)
	if spec.Len() == 0 {
		return nil, nil
	}
	name := "Validating arguments against arg spec '" + entry + "'"
	if sd, ok := spec.Get("short_description"); ok {
		name += " - " + value.Str(sd)
	}
	options, _ := spec.Default("options", value.NewDict(0)).(*value.Dict)
	if options == nil {
		options = value.NewDict(0)
	}
	args := value.DictOf("argument_spec", options, "provided_arguments", ri.Params,
		"validate_args_context", value.DictOf("type", "role", "name", ri.Role.Name, "argument_spec_name", entry, "path", ri.Role.Path))
	t := &Task{Name: name, Module: info.Name, Action: validateArgsAction, Info: info, Args: args, Role: ri,
		ArgPos: map[string]value.Pos{}, Dir: ri.Role.Path}
	t.Tags = []string{"always"}
	t.Set = map[string]bool{"tags": true}
	if l.play != nil {
		t.Pos, t.File = value.Pos{File: l.play.Pos.File, Line: l.play.Pos.Line}, l.play.Pos.File
	}
	t.UnknownOrigin = shortenRepr(value.Repr(value.DictOf("action", validateArgsAction, "args", args, "name", name, "tags", []any{"always"})))
	return t, nil
}

// shortenRepr is Python's textwrap.shorten(s, width=120) with its " [...]"
// placeholder: whitespace collapsed, then whole words kept while they and
// the placeholder fit.
func shortenRepr(s string) string {
	const width, placeholder = 120, " [...]"
	words := strings.Fields(s)
	joined := strings.Join(words, " ")
	if len(joined) <= width {
		return joined
	}
	line := ""
	for _, w := range words {
		next := w
		if line != "" {
			next = line + " " + w
		}
		if len(next)+len(placeholder) > width {
			break
		}
		line = next
	}
	return line + placeholder
}
