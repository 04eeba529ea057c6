package playbook

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
	"gopkg.in/yaml.v3"
)

// roleDir loads the parts of a role directory that do not depend on how
// it is referenced (its main defaults, vars and meta), once per name and
// path.
func (l *Loader) roleDir(loc roleLocation) (*Role, error) {
	key := loc.collection + "\x00" + loc.name + "\x00" + loc.path
	if r, ok := l.roles[key]; ok {
		return r, nil
	}
	r := &Role{Name: loc.name, Collection: loc.collection, Path: loc.path}
	l.addPluginDir(loc.path)
	var err error
	if r.Vars, err = l.loadRoleVars(r, "vars", ""); err != nil {
		return nil, err
	}
	if r.Defaults, err = l.loadRoleVars(r, "defaults", ""); err != nil {
		return nil, err
	}
	if err := l.loadRoleMeta(r); err != nil {
		return nil, err
	}
	l.roles[key] = r
	return r, nil
}

// loadRoleMeta reads meta/main.yml: allow_duplicates, collections,
// argument_specs and the dependencies, with their positions.
func (l *Loader) loadRoleMeta(r *Role) error {
	r.Meta = value.NewDict(0)
	files := findRoleFiles(filepath.Join(r.Path, "meta"), "", false)
	if len(files) == 0 {
		return nil
	}
	path := files[0]
	root, err := l.readYAML(path)
	if err != nil || root == nil {
		return err
	}
	if root.Kind != yaml.MappingNode {
		return nil
	}
	v, err := value.FromYAML(path, root)
	if err != nil {
		return err
	}
	r.Meta, _ = v.(*value.Dict)
	if ad, ok := r.Meta.Get("allow_duplicates"); ok {
		r.AllowDuplicates = boolOption(ad)
	}
	r.Collections = roleCollections(r)
	if specs, ok := r.Meta.Get("argument_specs"); ok {
		r.ArgumentSpecs, _ = specs.(*value.Dict)
	}
	view, err := l.mappingView(path, root)
	if err != nil {
		return err
	}
	deps := deref(mapGet(view, "dependencies"))
	if deps == nil || (deps.Kind == yaml.ScalarNode && deps.Tag == "!!null") {
		return nil
	}
	if deps.Kind != yaml.SequenceNode {
		return parseErr(value.NodePos(path, root), "Expected role dependencies to be a list.")
	}
	for _, dn := range deps.Content {
		dn, err := l.mappingView(path, dn)
		if err != nil {
			return err
		}
		ref, err := parseRoleRef(path, dn)
		if err != nil {
			return err
		}
		ref.Basedir = filepath.Dir(r.Path)
		ref.Collections = dependencySearchList(r)
		r.Deps = append(r.Deps, ref)
	}
	return nil
}

// roleCollections is the collection search list of a role's own tasks:
// its collection, then those its meta lists, then the default one.
func roleCollections(r *Role) []string {
	var out []string
	if r.Collection != "" {
		out = append(out, r.Collection)
	}
	if l, ok := r.Meta.Default("collections", nil).([]any); ok {
		for _, c := range l {
			if s := value.Str(c); !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	if len(out) > 0 && !slices.Contains(out, "ansible.builtin") && !slices.Contains(out, "ansible.legacy") {
		if r.Collection != "" {
			out = append(out, "ansible.builtin")
		} else {
			out = append(out, "ansible.legacy")
		}
	}
	return out
}

// dependencySearchList is where a role's dependencies are looked for:
// the role's own collection first, its collection list, ansible.legacy.
func dependencySearchList(r *Role) []string {
	var out []string
	if r.Collection != "" {
		out = append(out, r.Collection)
	}
	for _, c := range r.Collections {
		if c != r.Collection {
			out = append(out, c)
		}
	}
	if !slices.Contains(out, "ansible.legacy") {
		out = append(out, "ansible.legacy")
	}
	return out
}

// LoadRole loads a role for one reference, with its dependencies: the
// defaults, vars, tasks and handlers its *_from options choose, and
// whether its variables are visible to the rest of the play.
func (l *Loader) LoadRole(ref *RoleRef, parent *RoleInstance) (*RoleInstance, error) {
	defer l.enterLoad()()
	name, err := l.renderRoleName(ref.Name, ref.Pos)
	if err != nil {
		return nil, err
	}
	loc, err := l.locateRole(name, ref.Collections, ref.Basedir)
	if err != nil {
		return nil, &diag.Diagnostic{Summary: err.Error(), Origin: diag.At(ref.Pos), Code: diag.ExitFailure}
	}
	r, err := l.roleDir(loc)
	if err != nil {
		return nil, err
	}
	ri := &RoleInstance{Role: r, Ref: ref, Params: ref.Params, Parent: parent, Defaults: r.Defaults, Vars: r.Vars,
		Public: l.rolePublic(ref), AllowDuplicates: r.AllowDuplicates}
	if ref.AllowDuplicates != nil {
		ri.AllowDuplicates = *ref.AllowDuplicates
	}
	if ri.Params == nil {
		ri.Params = value.NewDict(0)
	}
	if ref.VarsFrom != "" {
		if ri.Vars, err = l.loadRoleVars(r, "vars", ref.VarsFrom); err != nil {
			return nil, err
		}
	}
	if ref.DefaultsFrom != "" {
		if ri.Defaults, err = l.loadRoleVars(r, "defaults", ref.DefaultsFrom); err != nil {
			return nil, err
		}
	}
	if err := l.loadRoleDeps(ri); err != nil {
		return nil, err
	}
	if err := l.loadRoleTasks(ri); err != nil {
		return nil, err
	}
	ri.key = ri.computeKey()
	return ri, nil
}

// loadRoleDeps loads the dependencies of a role instance; they are
// static or not, and so public or not, as the role that needs them.
func (l *Loader) loadRoleDeps(ri *RoleInstance) error {
	for _, dref := range ri.Role.Deps {
		d := *dref
		d.Static, d.Public = ri.Ref.Static, nil
		dep, err := l.LoadRole(&d, ri)
		if err != nil {
			return err
		}
		dep.Dep = true
		ri.Deps = append(ri.Deps, dep)
	}
	return nil
}

// loadRoleTasks loads the tasks and handlers of a role instance's entry
// point.
func (l *Loader) loadRoleTasks(ri *RoleInstance) error {
	r, ref := ri.Role, ri.Ref
	// A role's tasks do not inherit the collections of the block that
	// imports it: they use the role's own.
	outer := l.collStack
	l.collStack = nil
	defer func() { l.collStack = outer }()
	tasksFile, err := roleTaskFile(r, "tasks", ref.TasksFrom)
	if err != nil {
		return err
	}
	if tasksFile != "" {
		if ri.Tasks, err = l.LoadTasksFile(tasksFile, ri); err != nil {
			return err
		}
	}
	validate, err := l.validationTask(ri)
	if err != nil {
		return err
	}
	if validate != nil {
		ri.Tasks = append([]Item{validate}, ri.Tasks...)
	}
	handlersFile, err := roleTaskFile(r, "handlers", ref.HandlersFrom)
	if err != nil {
		return err
	}
	if handlersFile != "" {
		if ri.Handlers, err = l.LoadHandlersFile(handlersFile, ri); err != nil {
			return err
		}
	}
	return nil
}

// boolOption reads a boolean role option as ansible-core's bool
// attributes do: the strings "no", "false", "0"... (as `name=x public=no`
// gives them) are false; any other value counts by its truth.
func boolOption(v any) bool {
	if b, known := py.LenientBoolean(v); known {
		return b
	}
	return value.Truthy(v)
}

// rolePublic decides whether a role's defaults and vars are visible to
// the whole play: the reference's `public` option when given; otherwise
// imports and `roles:` entries are and includes are not, unless
// private_role_vars is configured, which then decides for every role.
func (l *Loader) rolePublic(ref *RoleRef) bool {
	if ref.Public != nil {
		return boolOption(ref.Public)
	}
	if l.PrivateRoleVars != nil {
		return !*l.PrivateRoleVars
	}
	return ref.Static
}

// renderRoleName templates a role name with the variables known while
// the play loads (play vars, vars_files, extra vars).
func (l *Loader) renderRoleName(name string, pos value.Pos) (string, error) {
	if l.Render == nil || !strings.Contains(name, "{{") && !strings.Contains(name, "{%") {
		return name, nil
	}
	v, err := l.Render(name, l.loadTimeLayers())
	if err != nil {
		return "", &diag.Diagnostic{Summary: err.Error(), Origin: diag.At(pos), Code: diag.ExitFailure, Wrapped: err}
	}
	return value.Str(v), nil
}

// CompileRole is the block a role instance runs as: its dependencies'
// blocks, then its own tasks, inside a block carrying the keywords of
// the reference that brought it in (so a dependency inherits them too).
func CompileRole(ri *RoleInstance) *Block {
	kw := ri.Ref.Keywords
	kw.Vars = nil
	items := make([]Item, 0, len(ri.Deps)+len(ri.Tasks))
	for _, d := range ri.Deps {
		items = append(items, CompileRole(d))
	}
	items = append(items, &Block{Block: ri.Tasks, Role: ri, RoleTasks: true})
	return &Block{Keywords: kw, Pos: ri.Ref.Pos, Block: items, Role: ri}
}

// AllDependencies lists a role's dependencies, recursively, in the order
// they run: each dependency after its own.
func (ri *RoleInstance) AllDependencies() []*RoleInstance {
	var out []*RoleInstance
	for _, d := range ri.Deps {
		out = append(out, d.AllDependencies()...)
		out = append(out, d)
	}
	return out
}

// DefaultLayers are the defaults a role brings to its play, lowest
// first: its dependencies' defaults, then its own.
func (ri *RoleInstance) DefaultLayers() []*value.Dict {
	var out []*value.Dict
	for _, d := range ri.AllDependencies() {
		out = append(out, d.Defaults)
	}
	return append(out, ri.Defaults)
}

// ExportLayers are the role vars a role exports to its play, lowest
// first: each distinct dependency's exports, then its own vars.
func (ri *RoleInstance) ExportLayers() []*value.Dict {
	var out []*value.Dict
	seen := map[string]bool{}
	for _, d := range ri.AllDependencies() {
		if k := d.Key(); !seen[k] {
			seen[k] = true
			out = append(out, d.ExportLayers()...)
		}
	}
	return append(out, ri.Vars)
}

// Key identifies a role instance the way ansible-core compares roles to
// run each only once: name, path, parameters, vars, conditions, tags,
// chosen files and whether an include or import brought it in.
func (ri *RoleInstance) Key() string {
	if ri.key == "" {
		ri.key = ri.computeKey()
	}
	return ri.key
}

func (ri *RoleInstance) computeKey() string {
	ref := ri.Ref
	var when []string
	for _, c := range ref.When {
		when = append(when, value.Str(c.Expr))
	}
	return fmt.Sprintf("%s|%s|%s|%s|%q|%q|%s,%s,%s,%s|%t", ri.Name(), ri.Role.Path,
		value.JSON(ri.Params, value.JSONOptions{SortKeys: true}), value.JSON(ref.Vars, value.JSONOptions{SortKeys: true}), when, ref.Tags,
		ref.TasksFrom, ref.VarsFrom, ref.DefaultsFrom, ref.HandlersFrom, ref.FromInclude)
}
