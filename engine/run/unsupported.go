package run

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Unsupported is a task that uses something cfzt-runner does not
// implement: a module ansible-core has, or a lookup, filter or test.
type Unsupported struct {
	// Pos is where the task is written, Task its name as --list-tasks
	// shows it.
	Pos  value.Pos
	Task string
	// What lists what it uses: "module 'community.general.x'",
	// "filter 'y'", "lookup 'z'", "test 't'".
	What []string
}

// String is the report line: file:line: task: what.
func (u Unsupported) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", u.Pos.File, u.Pos.Line, u.Task, strings.Join(u.What, ", "))
}

// FindUnsupported lists the tasks of a loaded playbook that use a
// module, lookup, filter or test cfzt-runner does not implement, in file
// and line order. Every task loaded with the playbook counts (those of
// plays, blocks, handlers, roles and imports), whether or not a
// condition would skip it. With a loader, the files that include_tasks
// and include_role name without a template are loaded and searched too;
// those whose name is a template are known only when they run.
func FindUnsupported(eng *template.Engine, pb *playbook.Playbook, ld *playbook.Loader) []Unsupported {
	var out []Unsupported
	seen := map[*playbook.Task]bool{}
	seenRole := map[*playbook.RoleInstance]bool{}
	seenFile := map[string]bool{}
	var items func([]playbook.Item)
	var role func(*playbook.RoleInstance)
	items = func(list []playbook.Item) {
		for _, it := range list {
			switch x := it.(type) {
			case *playbook.Task:
				if seen[x] {
					continue
				}
				seen[x] = true
				if ld != nil {
					inc, ri := staticInclude(ld, x, seenFile)
					items(inc)
					role(ri)
				}
				if what := taskUnsupported(eng, x); len(what) > 0 {
					name := strings.TrimSpace(x.Name)
					if name == "" {
						name = x.Action
					}
					if x.Role != nil && x.Role.Role != nil {
						name = x.Role.Role.Name + " : " + name
					}
					out = append(out, Unsupported{Pos: x.Pos, Task: name, What: what})
				}
			case *playbook.Block:
				if x.Role != nil {
					role(x.Role)
				}
				items(x.Block)
				items(x.Rescue)
				items(x.Always)
			}
		}
	}
	role = func(ri *playbook.RoleInstance) {
		if ri == nil || seenRole[ri] {
			return
		}
		seenRole[ri] = true
		for _, d := range ri.Deps {
			role(d)
		}
		items(ri.Tasks)
		items(ri.Handlers)
	}
	for _, play := range pb.Plays {
		for _, ri := range play.LoadedRoles() {
			role(ri)
		}
		for _, sec := range [][]playbook.Item{play.PreTasks, play.Tasks, play.PostTasks, play.Handlers} {
			items(sec)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return out
}

// taskUnsupported lists what one task uses that is not implemented.
func taskUnsupported(eng *template.Engine, t *playbook.Task) []string {
	var what []string
	seen := map[string]bool{}
	add := func(l ...string) {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				what = append(what, s)
			}
		}
	}
	if t.Info.Flags&module.Unimplemented != 0 {
		add(fmt.Sprintf("module '%s'", t.Info.FQCN))
	}
	if lk, ok := strings.CutPrefix(t.LoopKind, "with_"); ok && !eng.HasLookup(lk) {
		add(fmt.Sprintf("lookup '%s'", lk))
	}
	var templ func(v any)
	templ = func(v any) {
		switch x := v.(type) {
		case string:
			if template.HasMarkers(x) {
				add(eng.Unsupported(x, false)...)
			}
		case *value.Dict:
			x.Each(func(_ string, e any) bool { templ(e); return true })
		case []any:
			for _, e := range x {
				templ(e)
			}
		}
	}
	conds := func(cs []playbook.Cond) {
		for _, c := range cs {
			if s, ok := c.Expr.(string); ok {
				if template.HasMarkers(s) {
					add(eng.Unsupported(s, false)...)
				} else {
					add(eng.Unsupported(s, true)...)
				}
			}
		}
	}
	templ(t.Name)
	if t.Args != nil {
		templ(t.Args)
	}
	templ(t.ArgsTemplate)
	templ(t.Loop)
	if t.Vars != nil {
		templ(t.Vars)
	}
	conds(t.When)
	conds(t.ChangedWhen)
	conds(t.FailedWhen)
	conds(t.Until)
	conds(t.BreakWhen)
	return what
}

// staticInclude loads what an include_tasks or include_role task names
// when the name is not a template: the included tasks, or the role. A
// file already seen, or one that does not load, gives nothing (the run
// reports it).
func staticInclude(ld *playbook.Loader, t *playbook.Task, seenFile map[string]bool) ([]playbook.Item, *playbook.RoleInstance) {
	static := func(v any) (string, bool) {
		s, ok := v.(string)
		return s, ok && s != "" && !strings.Contains(s, "{{") && !strings.Contains(s, "{%")
	}
	switch t.Info.Kind {
	case module.KindIncludeTasks:
		raw, ok := static(t.Args.Default("file", t.Args.Default("_raw_params", nil)))
		if !ok {
			return nil, nil
		}
		path := ld.FindTasksFile(t.Dir, t.Role, raw)
		if seenFile[path] {
			return nil, nil
		}
		seenFile[path] = true
		inc, err := ld.LoadIncludedTasks(path, t)
		if err != nil {
			return nil, nil
		}
		return inc, nil
	case module.KindIncludeRole:
		name, ok := static(t.Args.Default("name", t.Args.Default("role", nil)))
		if !ok || seenFile["role:"+name] {
			return nil, nil
		}
		seenFile["role:"+name] = true
		ri, err := ld.LoadRole(playbook.IncludeRoleRef(t, t.Args, false), t.Role)
		if err != nil {
			return nil, nil
		}
		return nil, ri
	}
	return nil, nil
}
