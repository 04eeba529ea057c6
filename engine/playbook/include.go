package playbook

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
	"gopkg.in/yaml.v3"
)

// includeKeywords are the task keywords include_tasks and include_role
// accept (ansible-core's TaskInclude.VALID_INCLUDE_KEYWORDS).
var includeKeywords = map[string]bool{
	"action": true, "args": true, "collections": true, "debugger": true, "ignore_errors": true, "loop": true,
	"loop_control": true, "name": true, "no_log": true, "register": true, "run_once": true, "tags": true,
	"timeout": true, "vars": true, "when": true,
}

// taskFileArgs and roleArgs are the arguments the includes and imports
// of task files and of roles accept.
var (
	taskFileArgs = map[string]bool{"file": true, "_raw_params": true, "apply": true}
	roleArgs     = map[string]bool{"name": true, "role": true, "tasks_from": true, "vars_from": true, "defaults_from": true,
		"handlers_from": true, "apply": true, "public": true, "allow_duplicates": true, "rolespec_validate": true}
)

// includeArgs are the arguments each kind of include and import accepts.
var includeArgs = map[module.Kind]map[string]bool{
	module.KindIncludeTasks: taskFileArgs, module.KindImportTasks: taskFileArgs,
	module.KindIncludeRole: roleArgs, module.KindImportRole: roleArgs,
}

// includeClass is the class ansible-core names in an include's errors.
var includeClass = map[module.Kind]string{module.KindIncludeTasks: "TaskInclude", module.KindIncludeRole: "IncludeRole"}

// checkInclude validates an include or import task as ansible-core's
// TaskInclude and IncludeRole do when they load, and reads `apply`.
func (l *Loader) checkInclude(t *Task, file string, n *yaml.Node) error {
	kind := t.Info.Kind
	valid, ok := includeArgs[kind]
	if !ok {
		return nil
	}
	if l.inHandlers && (kind == module.KindIncludeRole || kind == module.KindImportRole) {
		return parseErr(t.Pos, "Using '%s' as a handler is not supported.", t.Action)
	}
	if class, dynamic := includeClass[kind]; dynamic {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if taskKeywords[k] && !includeKeywords[k] && !(k == "listen" && l.inHandlers) {
				return parseErr(t.Pos, "'%s' is not a valid attribute for a %s", k, class)
			}
		}
	}
	role := kind == module.KindIncludeRole || kind == module.KindImportRole
	if role && !t.Args.Has("name") && !t.Args.Has("role") {
		return parseErr(t.Pos, "'name' is a required field for %s.", t.Action)
	}
	var bad []string
	for _, k := range t.Args.Keys() {
		if !valid[k] {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return parseErr(t.Pos, "Invalid options for %s: %s", t.Action, strings.Join(bad, ","))
	}
	if role {
		if err := checkFromArgs(t); err != nil {
			return err
		}
	}
	if err := l.checkApply(t, file, n, kind); err != nil {
		return err
	}
	if kind == module.KindImportRole && t.HasLoop {
		return parseErr(t.Pos, "You cannot use loops on 'import_role' statements. You should use 'include_role' instead.")
	}
	return nil
}

// checkFromArgs requires the *_from options of a role include to be
// strings.
func checkFromArgs(t *Task) error {
	for _, k := range []string{"tasks_from", "vars_from", "defaults_from", "handlers_from"} {
		if v, ok := t.Args.Get(k); ok {
			if _, isStr := v.(string); !isStr {
				return &diag.Diagnostic{Code: diag.ExitParse, Summary: fmt.Sprintf("Expected a string for %s but got %s instead", k, pyTypeClass(v))}
			}
		}
	}
	return nil
}

// checkApply validates and reads an include's `apply` option.
func (l *Loader) checkApply(t *Task, file string, n *yaml.Node, kind module.Kind) error {
	apply, has := t.Args.Get("apply")
	if !has {
		return nil
	}
	if d, isDict := apply.(*value.Dict); isDict && d.Len() > 0 && includeClass[kind] == "" {
		return parseErr(t.Pos, "Invalid options for %s: apply", t.Action)
	}
	if _, isDict := apply.(*value.Dict); !isDict {
		return parseErr(t.Pos, "Expected a dict for apply but got %s instead", TaggedClass(apply))
	}
	t.Args.Delete("apply")
	t.Apply, t.ApplyErr = parseApply(file, applyNode(n))
	return nil
}

// applyNode finds the YAML mapping of an include's apply argument.
func applyNode(task *yaml.Node) *yaml.Node {
	for i := 0; i+1 < len(task.Content); i += 2 {
		v := deref(task.Content[i+1])
		if v.Kind != yaml.MappingNode {
			continue
		}
		if a := deref(mapGet(v, "apply")); a != nil && a.Kind == yaml.MappingNode {
			return a
		}
	}
	return nil
}

// parseApply reads apply's keywords into the block the included tasks
// inherit from. Its errors belong to the run, not the load: ansible-core
// builds that block only when the include runs.
func parseApply(file string, n *yaml.Node) (*Block, error) {
	b := &Block{}
	if n == nil {
		return b, nil
	}
	b.Pos = value.NodePos(file, n)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !blockKeywords[k.Value] {
			return nil, parseErr(value.NodePos(file, k), "'%s' is not a valid attribute for a Block", k.Value)
		}
		switch k.Value {
		case "name":
			b.Name = v.Value
			continue
		case "block", "rescue", "always":
			continue
		}
		if err := parseKeyword(&b.Keywords, file, k, v, "Block"); err != nil {
			return nil, err
		}
	}
	return b, nil
}
