package playbook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
	"gopkg.in/yaml.v3"
)

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// roleSearchPath lists where roles are looked for, in order.
func (l *Loader) roleSearchPath() []string {
	out := []string{filepath.Join(l.playbookDir, "roles")}
	out = append(out, l.RolesPath...)
	return append(out, l.playbookDir)
}

// findRole locates a role directory by name or path; like ansible-core's
// unfrackpath it resolves symbolic links, so that paths shown are real.
func (l *Loader) findRole(name string) (string, error) {
	p, err := l.findRoleDir(name)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return p, nil
}

func (l *Loader) findRoleDir(name string) (string, error) {
	if filepath.IsAbs(name) && dirExists(name) {
		return name, nil
	}
	if strings.Contains(name, "/") && dirExists(filepath.Join(l.playbookDir, name)) {
		return filepath.Join(l.playbookDir, name), nil
	}
	short := name
	if i := strings.LastIndex(name, "."); i >= 0 && strings.Count(name, ".") >= 2 {
		short = name[i+1:] // namespace.collection.role: look for the role name
	}
	search := l.roleSearchPath()
	for _, d := range search {
		for _, n := range []string{name, short} {
			if p := filepath.Join(d, n); dirExists(p) {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("the role '%s' was not found in %s", name, strings.Join(search, ":"))
}

// yamlFile finds main.yml/main.yaml/main (or a named file) in dir.
func yamlFile(dir, name string) string {
	if name == "" {
		name = "main"
	}
	for _, ext := range []string{"", ".yml", ".yaml", ".json"} {
		if p := filepath.Join(dir, name+ext); fileExists(p) {
			return p
		}
	}
	return ""
}

func (l *Loader) loadVarsFile(path string) (*value.Dict, error) {
	if path == "" {
		return value.NewDict(0), nil
	}
	root, err := l.readYAML(path)
	if err != nil {
		return nil, err
	}
	if root == nil || (root.Kind == yaml.ScalarNode && root.Tag == "!!null") {
		// A file of comments only (scaffolded vars/main.yml) is no vars.
		return value.NewDict(0), nil
	}
	v, err := value.FromYAML(path, root)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*value.Dict)
	if !ok {
		return nil, parseErr(value.NodePos(path, root), "Vars in %s must be specified as a dictionary", path)
	}
	RecordOrigins(path, root, d)
	return d, nil
}

// LoadVarsFile loads a YAML mapping of variables.
func (l *Loader) LoadVarsFile(path string) (*value.Dict, error) { return l.loadVarsFile(path) }

func (l *Loader) loadRoleDir(name string) (*Role, error) {
	path, err := l.findRole(name)
	if err != nil {
		return nil, err
	}
	if r, ok := l.roles[path]; ok {
		return r, nil
	}
	r := &Role{Name: filepath.Base(path), Path: path}
	if r.Defaults, err = l.loadVarsFile(yamlFile(filepath.Join(path, "defaults"), "")); err != nil {
		return nil, err
	}
	if r.Vars, err = l.loadVarsFile(yamlFile(filepath.Join(path, "vars"), "")); err != nil {
		return nil, err
	}
	if r.Meta, err = l.loadVarsFile(yamlFile(filepath.Join(path, "meta"), "")); err != nil {
		return nil, err
	}
	if err := l.roleDeps(r); err != nil {
		return nil, err
	}
	l.roles[path] = r
	return r, nil
}

func (l *Loader) roleDeps(r *Role) error {
	metaPath := yamlFile(filepath.Join(r.Path, "meta"), "")
	if ad, ok := r.Meta.Get("allow_duplicates"); ok {
		r.AllowDuplicates = value.Truthy(ad)
	}
	deps, _ := r.Meta.Get("dependencies")
	list, _ := deps.([]any)
	for _, d := range list {
		ref := &RoleRef{Params: value.NewDict(0), Pos: value.Pos{File: metaPath}}
		switch x := d.(type) {
		case string:
			ref.Name = x
		case *value.Dict:
			x.Each(func(k string, v any) bool {
				switch {
				case k == "role" || k == "name":
					ref.Name = value.Str(v)
				case k == "when":
					ref.When = []Cond{{Expr: v, Pos: ref.Pos}}
				case k == "tags":
					ref.Tags = stringList(v)
				case k == "vars":
					ref.Vars, _ = v.(*value.Dict)
				case roleEntryKeywords[k]:
				default:
					ref.Params.Set(k, v)
				}
				return true
			})
		}
		r.Deps = append(r.Deps, ref)
	}
	return nil
}

// LoadRole loads a role for one reference, with its dependencies.
func (l *Loader) LoadRole(ref *RoleRef, parent *RoleInstance) (*RoleInstance, error) {
	r, err := l.loadRoleDir(ref.Name)
	if err != nil {
		return nil, &LoadError{Msg: err.Error(), Pos: ref.Pos, Code: 1}
	}
	ri := &RoleInstance{Role: r, Ref: ref, Params: ref.Params, Parent: parent}
	if ri.Params == nil {
		ri.Params = value.NewDict(0)
	}
	if ref.Vars != nil {
		ri.Params = ri.Params.Copy()
		ref.Vars.Each(func(k string, v any) bool { ri.Params.Set(k, v); return true })
	}
	ri.Defaults, ri.Vars = r.Defaults, r.Vars
	if ref.DefaultsFrom != "" {
		if ri.Defaults, err = l.loadVarsFile(yamlFile(filepath.Join(r.Path, "defaults"), ref.DefaultsFrom)); err != nil {
			return nil, err
		}
	}
	if ref.VarsFrom != "" {
		if ri.Vars, err = l.loadVarsFile(yamlFile(filepath.Join(r.Path, "vars"), ref.VarsFrom)); err != nil {
			return nil, err
		}
	}
	for _, dref := range r.Deps {
		dep, err := l.LoadRole(dref, ri)
		if err != nil {
			return nil, err
		}
		dep.Dep = true
		ri.Deps = append(ri.Deps, dep)
	}
	tasksFile := yamlFile(filepath.Join(r.Path, "tasks"), ref.TasksFrom)
	if ref.TasksFrom != "" && tasksFile == "" {
		return nil, &LoadError{Msg: fmt.Sprintf("Could not find specified file in role: tasks/%s", ref.TasksFrom), Code: 4}
	}
	if tasksFile != "" {
		if ri.Tasks, err = l.LoadTasksFile(tasksFile, ri); err != nil {
			return nil, err
		}
	}
	if hf := yamlFile(filepath.Join(r.Path, "handlers"), ref.HandlersFrom); hf != "" {
		if ri.Handlers, err = l.LoadHandlersFile(hf, ri); err != nil {
			return nil, err
		}
	}
	return ri, nil
}
