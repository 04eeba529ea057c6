package operator

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Target is a kind to watch, in one namespace ("" for every namespace the
// runtime is configured for). Name is the one object read, when the read
// named one (ReadRecorder); the watcher watches only that object for the
// kinds it watches by name, and the whole namespace for the others.
type Target struct {
	GVK       schema.GroupVersionKind
	Namespace string
	Name      string
}

func (t Target) String() string {
	ns := t.Namespace
	if ns == "" {
		ns = "*"
	}
	if t.Name != "" {
		return gvkString(t.GVK) + " " + t.Name + " in " + ns
	}
	return gvkString(t.GVK) + " in " + ns
}

// ScanKinds lists what a playbook reads: every kubernetes.core.k8s_info
// task whose api_version, kind and namespace (when given) are literal, in
// the plays, their roles, and the files and roles they include with literal
// names, or names that render from play and extra vars alone (such as a
// role named from an environment lookup). Any other dynamic include_tasks
// scans every task file of its directory, and any other dynamic
// include_role is skipped. `when` conditions are ignored. What
// cannot be known before the run (templated kinds, namespaces or role
// names) is what a ReadRecorder records during it. The result is sorted
// and has no duplicates.
// eng (which may be nil) renders those names with extra vars over the
// play's vars.
func ScanKinds(l *playbook.Loader, pb *playbook.Playbook, eng *template.Engine, extra *value.Dict) []Target {
	s := &kindScan{l: l, pb: pb, eng: eng, extra: extra, files: map[string]bool{}, roles: map[string]bool{}, kinds: map[Target]bool{}}
	for _, play := range pb.Plays {
		s.play = play
		s.items(play.PreTasks)
		for _, ri := range play.Roles {
			s.role(ri)
		}
		s.items(play.Tasks)
		s.items(play.PostTasks)
		s.items(play.Handlers)
	}
	return sortedTargets(s.kinds)
}

func sortedTargets(set map[Target]bool) []Target {
	out := make([]Target, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

type kindScan struct {
	l     *playbook.Loader
	pb    *playbook.Playbook
	eng   *template.Engine
	extra *value.Dict
	play  *playbook.Play
	files map[string]bool // task files already scanned
	roles map[string]bool // role instances already scanned, by path and tasks_from
	kinds map[Target]bool
}

func (s *kindScan) items(items []playbook.Item) {
	for _, it := range items {
		switch x := it.(type) {
		case *playbook.Block:
			s.items(x.Block)
			s.items(x.Rescue)
			s.items(x.Always)
		case *playbook.Task:
			s.task(x)
		}
	}
}

func (s *kindScan) role(ri *playbook.RoleInstance) {
	key := ri.Role.Path + "|" + ri.Ref.TasksFrom
	if s.roles[key] {
		return
	}
	s.roles[key] = true
	for _, d := range ri.Deps {
		s.role(d)
	}
	s.items(ri.Tasks)
	s.items(ri.Handlers)
}

func literal(v any) (string, bool) {
	str, ok := v.(string)
	if !ok || template.HasMarkers(str) {
		return "", false
	}
	return str, true
}

func arg(args *value.Dict, names ...string) (any, bool) {
	for _, n := range names {
		if v, ok := args.Get(n); ok {
			return v, true
		}
	}
	return nil, false
}

func (s *kindScan) task(t *playbook.Task) {
	switch {
	case t.Info.Flags&module.KubeRead != 0:
		apiVersion := "v1"
		if v, ok := arg(t.Args, "api_version", "api", "version"); ok {
			if apiVersion, ok = literal(v); !ok {
				return
			}
		}
		v, _ := arg(t.Args, "kind")
		kind, ok := literal(v)
		if !ok || kind == "" {
			return
		}
		ns := ""
		if v, ok := arg(t.Args, "namespace"); ok {
			if ns, ok = literal(v); !ok {
				return
			}
		}
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return
		}
		s.kinds[Target{GVK: gv.WithKind(kind), Namespace: ns}] = true
	case t.Info.Kind == module.KindIncludeTasks:
		v, _ := arg(t.Args, "_raw_params", "file")
		if name, ok := s.render(v); ok && name != "" {
			s.file(s.l.FindTasksFile(t.Dir, t.Role, name), t.Role)
			return
		}
		dir := t.Dir
		if t.Role != nil {
			dir = filepath.Join(t.Role.Role.Path, "tasks")
		}
		s.dir(dir, t.Role)
	case t.Info.Kind == module.KindIncludeRole:
		v, _ := arg(t.Args, "name")
		name, ok := s.render(v)
		if !ok {
			return
		}
		tv, _ := arg(t.Args, "tasks_from")
		tasksFrom, tok := literal(tv)
		if tv == nil {
			tasksFrom, tok = "", true
		}
		ref := &playbook.RoleRef{Name: name, Params: value.NewDict(0), Pos: t.Pos, TasksFrom: tasksFrom}
		if !tok {
			ref.TasksFrom = ""
		}
		ri, err := s.l.LoadRole(ref, t.Role)
		if err != nil {
			return
		}
		if tok {
			s.role(ri)
		} else {
			// A templated tasks_from: every task file of the role.
			s.dir(filepath.Join(ri.Role.Path, "tasks"), ri)
		}
	}
}

// render returns v as a string when it is literal or renders from extra
// and play vars alone.
func (s *kindScan) render(v any) (string, bool) {
	if str, ok := literal(v); ok {
		return str, true
	}
	str, ok := v.(string)
	if !ok || s.eng == nil {
		return "", false
	}
	vars := staticVars{s.extra}
	if s.play != nil {
		vars = append(vars, s.play.Vars)
	}
	r, err := s.eng.Render(str, vars, template.Options{})
	if err != nil {
		return "", false
	}
	return literal(r)
}

// staticVars looks names up in dicts, highest precedence first; their
// values may be templates.
type staticVars []*value.Dict

// Lookup implements template.Vars.
func (v staticVars) Lookup(name string) (any, bool, bool) {
	for _, d := range v {
		if d == nil {
			continue
		}
		if x, ok := d.Get(name); ok {
			return x, true, true
		}
	}
	return nil, false, false
}

// file scans one task file.
func (s *kindScan) file(path string, role *playbook.RoleInstance) {
	if path == "" || s.files[path] {
		return
	}
	s.files[path] = true
	items, err := s.l.LoadTasksFile(path, role)
	if err != nil {
		return
	}
	s.items(items)
}

// dir scans every YAML file in a tasks directory.
func (s *kindScan) dir(dir string, role *playbook.RoleInstance) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && (strings.HasSuffix(n, ".yml") || strings.HasSuffix(n, ".yaml")) {
			s.file(filepath.Join(dir, n), role)
		}
	}
}
