package playbook

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/catalog"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/value"
	"gopkg.in/yaml.v3"
)

func (l *Loader) parseTask(file, dir string, n *yaml.Node, role *RoleInstance) (Item, error) {
	t := &Task{Pos: value.NodePos(file, n), File: file, Dir: dir, Role: role, ArgPos: map[string]value.Pos{}}
	if k := len(l.collStack); k > 0 {
		t.BlockCollections = l.collStack[k-1]
	}
	var actionKeys []*yaml.Node
	var actionVals []*yaml.Node
	var argsNode *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		switch {
		case key == "action" || key == "local_action":
			actionKeys = append(actionKeys, k)
			actionVals = append(actionVals, v)
		case strings.HasPrefix(key, "with_"):
			if err := l.setLoop(t, file, key, v); err != nil {
				return nil, err
			}
		case taskKeywords[key]:
			if err := l.taskKeyword(t, file, k, v); err != nil {
				return nil, err
			}
			if key == "args" {
				argsNode = v
			}
		default:
			actionKeys = append(actionKeys, k)
			actionVals = append(actionVals, v)
		}
	}
	switch len(actionKeys) {
	case 0:
		return nil, parseErr(t.Pos, "no module/action detected in task.")
	case 1:
	default:
		names := make([]string, len(actionKeys))
		for i, k := range actionKeys {
			names[i] = k.Value
		}
		return nil, parseErr(t.Pos, "conflicting action statements: %s", strings.Join(names, ", "))
	}
	if err := l.setAction(t, file, actionKeys[0], actionVals[0]); err != nil {
		return nil, err
	}
	if argsNode != nil {
		extra, err := value.FromYAML(file, argsNode)
		if err != nil {
			return nil, err
		}
		if s, ok := extra.(string); ok && strings.Contains(s, "{{") {
			t.ArgsTemplate, t.ArgsPos = s, value.NodePos(file, argsNode)
			l.warnings = append(l.warnings, diag.Warn(argsTemplateWarning, originOf(t.ArgsPos)))
		}
		if d, ok := extra.(*value.Dict); ok {
			var keys []string
			if t.kvPos != nil {
				for _, k := range t.Args.Keys() {
					if k != "_raw_params" {
						keys = append(keys, "'"+k+"'")
					}
				}
				sort.Strings(keys)
			}
			if len(keys) > 0 {
				w := diag.Deprecate(fmt.Sprintf("Merging legacy k=v args (%s) into task args.", strings.Join(keys, ", ")), "2.23", originOf(*t.kvPos))
				w.Help = "Include all task args in the task `args` mapping."
				l.warnings = append(l.warnings, w)
			}
			recordArgPos(t, file, argsNode)
			d.Each(func(k string, v any) bool {
				if !t.Args.Has(k) {
					t.Args.Set(k, v)
				}
				return true
			})
		}
	}
	if err := checkReservedArgs(t); err != nil {
		return nil, err
	}
	if err := l.checkInclude(t, file, n); err != nil {
		return nil, err
	}
	if err := l.checkMeta(t); err != nil {
		return nil, err
	}
	return l.expandImport(t)
}

// checkReservedArgs rejects task arguments named _ansible_*, a prefix
// ansible-core keeps for itself (a set_fact of such a name included).
// Free-form modules (command, shell, raw, script) are not checked.
func checkReservedArgs(t *Task) error {
	if t.Info.Kind == module.KindModule && t.Info.Flags&module.FreeForm != 0 {
		return nil
	}
	for _, k := range t.Args.Keys() {
		if strings.HasPrefix(k, "_ansible_") {
			return &diag.Diagnostic{Code: diag.ExitFailure, Summary: fmt.Sprintf("Invalid parameter specified beginning with keyword '_ansible_' for action '%s': '%s'. "+
				"The prefix '_ansible_' is reserved for internal use only.", t.Action, k)}
		}
	}
	return nil
}

// pyTypeClass is Python's repr of the type of a loaded value.
func pyTypeClass(v any) string {
	switch v.(type) {
	case bool:
		return "<class 'bool'>"
	case int, int64:
		return "<class 'int'>"
	case float64:
		return "<class 'float'>"
	case []any:
		return "<class 'list'>"
	case *value.Dict:
		return "<class 'dict'>"
	case nil:
		return "<class 'NoneType'>"
	}
	return "<class 'str'>"
}

func (l *Loader) taskKeyword(t *Task, file string, k, v *yaml.Node) error {
	val, err := value.FromYAML(file, v)
	if err != nil {
		return err
	}
	switch k.Value {
	case "name":
		t.NamePos = value.NodePos(file, v)
		t.Name = value.Str(val)
		if val == nil {
			t.Name = ""
		}
	case "loop":
		t.Loop, t.LoopKind, t.LoopPos, t.HasLoop = val, "loop", value.NodePos(file, v), true
	case "loop_control":
		d, ok := val.(*value.Dict)
		if !ok && val != nil {
			return parseErr(value.NodePos(file, v), "the `loop_control` value must be specified as a dictionary and cannot be a variable itself (though it can contain variables)")
		}
		t.LoopControl = d
		if d != nil {
			return parseLoopControl(t, file, v, d)
		}
	case "register":
		t.Register, t.RegisterPos = value.Str(val), value.NodePos(file, v)
	case "collections":
		t.Collections = searchList(stringList(val))
	case "until":
		t.Until = parseConds(file, v, val)
	case "retries":
		t.Retries = val
	case "delay":
		t.Delay = val
	case "async":
		t.Async, t.AsyncPos = val, value.NodePos(file, v)
	case "poll":
		t.Poll, t.PollPos = val, value.NodePos(file, v)
	case "failed_when":
		t.FailedWhen = parseConds(file, v, val)
	case "changed_when":
		t.ChangedWhen = parseConds(file, v, val)
	case "listen":
		t.Listen = stringListKeep(val)
	case "args":
	default:
		return parseKeyword(&t.Keywords, file, k, v, "Task")
	}
	return nil
}

// loopControlFields are the keys loop_control accepts; label must be a
// string.
var loopControlFields = map[string]bool{
	"loop_var": true, "index_var": true, "label": true, "pause": true, "extended": true,
	"extended_allitems": true, "break_when": true,
}

// parseLoopControl validates loop_control as ansible-core's LoopControl
// does and reads its break_when conditions.
func parseLoopControl(t *Task, file string, n *yaml.Node, d *value.Dict) error {
	RecordOrigins(file, n, d)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		pos := value.NodePos(file, k)
		if !loopControlFields[k.Value] {
			return parseErr(pos, "'%s' is not a valid attribute for a LoopControl", k.Value)
		}
		switch k.Value {
		case "label":
			if v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode {
				return parseErr(pos, "The field 'label' is supposed to be a string type, however the incoming data structure is a %s", TaggedClass(file2value(file, v)))
			}
		case "break_when":
			val, err := value.FromYAML(file, v)
			if err != nil {
				return err
			}
			t.BreakWhen = parseConds(file, v, val)
		}
	}
	return nil
}

func stringListKeep(v any) []string {
	if s, ok := v.(string); ok {
		return []string{s}
	}
	return stringList(v)
}

func (l *Loader) setLoop(t *Task, file, key string, v *yaml.Node) error {
	if t.HasLoop {
		return parseErr(value.NodePos(file, v), "duplicate loop in task: %s", strings.TrimPrefix(key, "with_"))
	}
	val, err := value.FromYAML(file, v)
	if err != nil {
		return err
	}
	t.Loop, t.LoopKind, t.LoopPos, t.HasLoop = val, key, value.NodePos(file, v), true
	return nil
}

func recordArgPos(t *Task, file string, n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		t.ArgPos[k] = value.NodePos(file, v)
		if v.Kind == yaml.SequenceNode {
			if t.ArgItemPos == nil {
				t.ArgItemPos = map[string][]value.Pos{}
			}
			items := make([]value.Pos, len(v.Content))
			for j, e := range v.Content {
				items[j] = value.NodePos(file, e)
			}
			t.ArgItemPos[k] = items
		}
	}
}

func (l *Loader) setAction(t *Task, file string, k, v *yaml.Node) error {
	name := k.Value
	argNode := v
	// actionArgs is the rest of an `action: module args` string, parsed
	// once the module is known.
	var actionArgs *string
	if name == "action" || name == "local_action" {
		val, err := value.FromYAML(file, v)
		if err != nil {
			return err
		}
		switch a := val.(type) {
		case string:
			mod, rest := cutActionName(strings.TrimSpace(a))
			name = mod
			actionArgs = &rest
			argNode = nil
		case *value.Dict:
			m, _ := a.Get("module")
			name = value.Str(m)
			a = a.Copy()
			a.Delete("module")
			t.Args = a
			pos := t.Pos
			if mn := mapGet(v, "module"); mn != nil {
				for i := 0; i+1 < len(v.Content); i += 2 {
					if v.Content[i].Value == "module" {
						pos = value.NodePos(file, v.Content[i])
					}
				}
			}
			w := diag.Deprecate("Using a mapping for `action` is deprecated.", "2.23", originOf(pos))
			w.Help = "Use a string value for `action`."
			l.warnings = append(l.warnings, w)
			recordArgPos(t, file, v)
			argNode = nil
		}
		if k.Value == "local_action" {
			// local_action is delegate_to: localhost, shown as such.
			t.DelegateTo = "localhost"
			if t.Set == nil {
				t.Set = map[string]bool{}
			}
			t.Set["delegate_to"] = true
		}
	}
	info, ok := l.findInSearchList(name, l.collectionSearchList(t))
	if !ok {
		info, ok = l.findModuleFile(name)
	}
	if !ok {
		info, ok = l.Modules.Lookup(name)
	}
	if !ok {
		info, ok = l.findCollectionModule(name, l.collectionSearchList(t))
	}
	if !ok {
		// A module ansible-core has but cfzt-runner lacks loads; only a
		// task that runs it fails (catalog).
		if fqcn, known := catalog.Resolve(name, l.collectionSearchList(t)); known {
			info, ok = module.UnimplementedInfo(fqcn), true
		}
	}
	if !ok && strings.Contains(name, "{{") && (k.Value == "action" || k.Value == "local_action") {
		// A templated action name resolves per host when the task runs.
		info, ok = module.Info{Name: name, FQCN: name}, true
		t.TemplatedAction = true
	}
	if !ok {
		return &diag.Diagnostic{Code: diag.ExitParse, Origin: diag.At(t.Pos), Summary: fmt.Sprintf("couldn't resolve module/action '%s'. This often indicates a misspelling, missing collection, or incorrect module path.", name), Help: suggest(name, l.Modules.Names())}
	}
	t.Module, t.Action, t.Info, t.ModulePos = info.Name, name, info, value.NodePos(file, k)
	if actionArgs != nil {
		if info.Flags&module.CommandLine != 0 {
			args, err := ParseCommandLine(*actionArgs)
			if err != nil {
				return parseErr(t.Pos, "%s: %s", err, *actionArgs)
			}
			t.Args = args
		} else {
			t.Args = ParseKV(*actionArgs)
		}
	}
	if argNode == nil {
		if t.Args == nil {
			t.Args = value.NewDict(0)
		}
		return nil
	}
	val, err := value.FromYAML(file, argNode)
	if err != nil {
		return err
	}
	switch a := val.(type) {
	case *value.Dict:
		t.Args = a
		recordArgPos(t, file, argNode)
		RecordOrigins(file, argNode, a)
	case string:
		switch {
		case info.Flags&module.CommandLine != 0:
			args, err := ParseCommandLine(a)
			if err != nil {
				return parseErr(value.NodePos(file, argNode), "%s: %s", err, a)
			}
			t.Args = args
			if t.Args.Len() > 1 || !t.Args.Has("_raw_params") {
				p := value.NodePos(file, argNode)
				t.kvPos = &p
			}
		case info.Flags&module.FreeForm != 0:
			t.Args = value.DictOf("_raw_params", a)
		case WholeTemplate(a) && !TakesRawParams(info):
			// "{{ a_dict }}" gives the arguments when the task runs.
			t.Args, t.ArgsTemplate, t.ArgsPos = value.NewDict(0), a, value.NodePos(file, argNode)
			l.warnings = append(l.warnings, diag.Warn(argsTemplateWarning, originOf(t.ArgsPos)))
			return nil
		default:
			t.Args = ParseKV(a)
			p := value.NodePos(file, argNode)
			t.kvPos = &p
		}
		for _, key := range t.Args.Keys() {
			t.ArgPos[key] = value.NodePos(file, argNode)
		}
	case nil:
		t.Args = value.NewDict(0)
	default:
		t.Args = value.DictOf("_raw_params", a)
	}
	return nil
}

// suggest is the closest known name, for "did you mean".
func suggest(name string, known []string) string {
	best, bestD := "", 4
	for _, k := range known {
		if d := editDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("Did you mean '%s'?", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// expandImport turns import_tasks/import_role into a static block.
func (l *Loader) expandImport(t *Task) (Item, error) {
	switch t.Info.Kind {
	case module.KindImportTasks:
		raw := value.Str(firstArg(t.Args, "_raw_params", "file"))
		path := l.findTasksFile(t, raw)
		if t.Collections != nil {
			// The imported tasks inherit the import's own collections
			// (an include's they do not).
			l.collStack = append(l.collStack, t.Collections)
		}
		items, err := l.LoadTasksFile(path, t.Role)
		if t.Collections != nil {
			l.collStack = l.collStack[:len(l.collStack)-1]
		}
		if err == nil {
			l.messages = append(l.messages, "statically imported: "+path)
		}
		if err != nil {
			return nil, err
		}
		return &Block{Keywords: t.Keywords, Pos: t.Pos, Block: items, Static: true}, nil
	case module.KindImportRole:
		ri, err := l.LoadRole(IncludeRoleRef(t, t.Args, true), t.Role)
		if err != nil {
			return nil, err
		}
		l.imported = append(l.imported, ri)
		return &Block{Keywords: t.Keywords, Pos: t.Pos, Block: []Item{CompileRole(ri)}, Role: ri, Static: true}, nil
	}
	return t, nil
}

// IncludeRoleRef is the role reference of an include_role or import_role
// task whose arguments are args (rendered, for include_role).
func IncludeRoleRef(t *Task, args *value.Dict, static bool) *RoleRef {
	ref := &RoleRef{Name: value.Str(firstArg(args, "name", "role")), Params: value.NewDict(0), Pos: t.Pos,
		Static: static, FromInclude: true, Public: args.Default("public", nil)}
	if p, ok := t.ArgPos["name"]; ok {
		ref.Pos = p
	}
	ref.Vars = t.Vars
	ref.TasksFrom = value.Str(firstArg(args, "tasks_from"))
	ref.VarsFrom = value.Str(firstArg(args, "vars_from"))
	ref.DefaultsFrom = value.Str(firstArg(args, "defaults_from"))
	ref.HandlersFrom = value.Str(firstArg(args, "handlers_from"))
	ref.NoValidate = !boolOption(args.Default("rolespec_validate", true))
	allow := boolOption(args.Default("allow_duplicates", true))
	ref.AllowDuplicates = &allow
	if t.Role != nil {
		ref.Collections = t.Role.Role.Collections
	}
	return ref
}

func firstArg(d *value.Dict, keys ...string) any {
	for _, k := range keys {
		if k == "" {
			continue
		}
		if v, ok := d.Get(k); ok {
			return v
		}
	}
	return ""
}

// findTasksFile resolves the file of an import_tasks.
func (l *Loader) findTasksFile(t *Task, raw string) string {
	if t.Role != nil && !filepath.IsAbs(raw) {
		return l.findRoleTasksFile(t.Dir, t.Role, raw, true)
	}
	return l.FindTasksFile(t.Dir, t.Role, raw)
}

// FindTasksFile resolves a task file named in include_tasks, or in
// import_tasks outside a role.
func (l *Loader) FindTasksFile(dir string, role *RoleInstance, raw string) string {
	if filepath.IsAbs(raw) {
		return raw
	}
	if role != nil {
		return l.findRoleTasksFile(dir, role, raw, false)
	}
	cands := []string{filepath.Join(dir, raw), filepath.Join(l.playbookDir, raw)}
	for _, c := range cands {
		if fileExists(c) {
			return c
		}
	}
	return cands[0]
}

// findRoleTasksFile finds the file a role's include_tasks or import_tasks
// names, as IncludedFile.process_include_results and
// helpers.load_list_of_tasks do. Both search from the role's tasks/ (or
// handlers/) directory joined with the directory of the including file
// (ansible-core's cumulative path of parent includes) and from the role
// itself, each with DataLoader.path_dwim_relative: the role's tasks/,
// the role, the working directory, then the play's directory. An
// include tries the role first, an import the including directory first.
// A file found nowhere resolves to the play's directory, as there.
func (l *Loader) findRoleTasksFile(dir string, role *RoleInstance, raw string, static bool) string {
	rolePath := role.Role.Path
	subdir := "tasks"
	if rel, err := filepath.Rel(filepath.Join(rolePath, "handlers"), dir); err == nil && !strings.HasPrefix(rel, "..") {
		subdir = "handlers"
	}
	var nested string
	if rel, err := filepath.Rel(filepath.Join(rolePath, subdir), dir); err == nil && rel != "." {
		nested = py.Join([]string{rolePath, subdir, rel})
	}
	var order []func() string
	fromRole := func() string { return search.DwimRelative(rolePath, subdir, raw, !static, l.playbookDir) }
	fromNested := func() string { return search.DwimRelative(nested, subdir, raw, !static, l.playbookDir) }
	switch {
	case nested == "":
		order = []func() string{fromRole}
	case static:
		order = []func() string{fromNested, fromRole}
	default:
		order = []func() string{fromRole, fromNested}
	}
	var found string
	for _, f := range order {
		if found = f(); fileExists(found) {
			return found
		}
	}
	return found
}

// cutActionName splits an `action:` string into the action name and its
// arguments; a name that is a template ("{{ mod }} a=1") ends after the
// template's closing braces.
func cutActionName(s string) (string, string) {
	if strings.HasPrefix(s, "{{") {
		if end := strings.Index(s, "}}"); end >= 0 {
			return s[:end+2], strings.TrimSpace(s[end+2:])
		}
	}
	mod, rest, _ := strings.Cut(s, " ")
	return mod, rest
}

// argsTemplateWarning is ansible-core's warning for arguments given as one
// template.
const argsTemplateWarning = "Using a template for task args is unsafe in some situations " +
	"(see https://docs.ansible.com/ansible/devel/reference_appendices/faq.html#argsplat-unsafe)."

// rawParamActions are the actions besides the free-form ones that take
// words without a key=value form (_raw_params), as ansible-core lists them.
var rawParamActions = map[string]bool{
	"include_vars": true, "include_tasks": true, "include_role": true, "import_tasks": true, "import_role": true,
	"add_host": true, "group_by": true, "set_fact": true, "meta": true,
}

// TakesRawParams reports whether an action accepts _raw_params: the
// free-form modules and a few builtin actions.
func TakesRawParams(info module.Info) bool {
	return info.Flags&(module.FreeForm|module.CommandLine) != 0 || rawParamActions[info.Name]
}

// WholeTemplate reports a string that is one `{{ ... }}` expression and
// nothing else (ansible-core's is_possibly_all_template).
func WholeTemplate(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "{{") && strings.HasSuffix(s, "}}") && strings.Count(s, "{{") == 1
}
