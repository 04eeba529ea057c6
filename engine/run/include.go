package run

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ignoreErrorsOf reads the ignore_errors keyword.
func ignoreErrorsOf(k *playbook.Keywords) any { return k.IgnoreErrors }

// include runs include_tasks or include_role for this host.
func (tr *taskRun) include(locals *value.Dict) {
	t := tr.t
	sc := tr.sc
	if locals != nil {
		sc = sc.with(locals, false)
	}
	args, err := tr.renderArgs(sc)
	if err != nil {
		tr.fail(err, nil)
		return
	}
	incVars := value.NewDict(0)
	if t.Vars != nil {
		incVars.Update(t.Vars)
	}
	if locals != nil {
		incVars.Update(locals)
	}
	var label any
	if locals != nil {
		label, _ = locals.Get(value.Str(locals.Default("ansible_loop_var", "item")))
	}
	var block *playbook.Block
	var shown string
	switch t.Module {
	case "include_tasks":
		raw := value.Str(args.Default("_raw_params", args.Default("file", "")))
		path := tr.r.Loader.FindTasksFile(t.Dir, t.Role, raw)
		items, err := tr.r.Loader.LoadTasksFile(path, t.Role)
		if err != nil {
			tr.fail(chain("Task failed", t.Pos, err), nil)
			return
		}
		block = &playbook.Block{Block: items, IncludeVars: incVars}
		shown = path
	case "include_role":
		ref := &playbook.RoleRef{Name: value.Str(args.Default("name", "")), Params: value.NewDict(0), Pos: t.Pos}
		ref.TasksFrom = value.Str(args.Default("tasks_from", ""))
		ref.VarsFrom = value.Str(args.Default("vars_from", ""))
		ref.DefaultsFrom = value.Str(args.Default("defaults_from", ""))
		ref.HandlersFrom = value.Str(args.Default("handlers_from", ""))
		ri, err := tr.r.Loader.LoadRole(ref, t.Role)
		if err != nil {
			tr.fail(chain("Task failed", t.Pos, err), nil)
			return
		}
		if value.Truthy(args.Default("public", false)) {
			tr.r.collectRoleVars(tr.ps, ri)
		}
		block = &playbook.Block{Block: ri.Tasks, Role: ri, IncludeVars: incVars}
		shown = ri.Name()
		tr.ps.handlers = append(tr.ps.handlers, flattenTasks(ri.Handlers)...)
	}
	tr.r.stat(tr.host.name).OK++
	tr.r.Display.Included(shown, tr.host.name, label, locals != nil)
	saved := tr.ps.hosts
	tr.ps.hosts = []string{tr.host.name}
	inner := tr.f.child(&playbook.Block{Keywords: playbook.Keywords{Tags: t.Tags}})
	tr.r.runBlock(tr.ps, inner, block)
	tr.ps.hosts = saved
}

// includeVars implements include_vars: its variables become host facts.
func (tr *taskRun) includeVars(args *value.Dict) (*value.Dict, error) {
	raw := value.Str(args.Default("_raw_params", args.Default("file", "")))
	path := raw
	if !filepath.IsAbs(path) {
		cands := []string{filepath.Join(tr.t.Dir, "vars", raw), filepath.Join(tr.t.Dir, raw)}
		if tr.t.Role != nil {
			cands = append([]string{filepath.Join(tr.t.Role.Role.Path, "vars", raw)}, cands...)
		}
		path = cands[len(cands)-1]
		for _, c := range cands {
			if fileExists(c) {
				path = c
				break
			}
		}
	}
	d, err := tr.r.Loader.LoadVarsFile(path)
	if err != nil {
		return value.DictOf("failed", true, "msg", fmt.Sprintf("Could not find or access '%s'", raw), "changed", false), nil
	}
	if name, ok := args.Get("name"); ok {
		d = value.DictOf(value.Str(name), d)
	}
	return value.DictOf("ansible_facts", d, "ansible_included_var_files", []any{path}, "changed", false), nil
}

// meta implements meta actions.
func (tr *taskRun) meta() {
	action := value.Str(tr.t.Args.Default("_raw_params", ""))
	switch action {
	case "flush_handlers":
		tr.r.flushHandlers(tr.ps)
	case "end_play":
		tr.ps.endPlay = true
	case "end_host":
		tr.host.ended = true
	case "noop", "clear_facts", "clear_host_errors", "refresh_inventory", "reset_connection", "end_batch", "end_role":
	}
}

// flushHandlers runs notified handlers in definition order.
func (r *Runner) flushHandlers(ps *playState) {
	if len(ps.notified) == 0 {
		return
	}
	handlers := append(flattenTasks(ps.play.Handlers), ps.handlers...)
	for _, h := range handlers {
		if !handlerNotified(ps, h) {
			continue
		}
		f := &frame{role: h.Role}
		var active []string
		for _, host := range ps.hosts {
			if !r.host(host).failed {
				active = append(active, host)
			}
		}
		banner := false
		for _, host := range active {
			tr := r.newTaskRun(ps, f, h, r.host(host))
			if !banner {
				r.Display.TaskStart(tr.name, h, true)
				banner = true
			}
			tr.run()
		}
	}
	ps.notified = map[string]bool{}
}

func handlerNotified(ps *playState, h *playbook.Task) bool {
	names := append([]string{h.Name}, h.Listen...)
	if h.Role != nil {
		names = append(names, h.Role.Name()+" : "+h.Name)
	}
	for _, n := range names {
		if ps.notified[n] {
			return true
		}
	}
	return false
}

// tagsMatch applies --tags and --skip-tags.
func (r *Runner) tagsMatch(tags []string, t *playbook.Task) bool {
	has := func(name string) bool {
		for _, x := range tags {
			if x == name {
				return true
			}
		}
		return false
	}
	for _, s := range r.Opts.SkipTags {
		if has(s) || (s == "tagged" && len(tags) > 0) {
			return false
		}
	}
	if has("always") {
		return true
	}
	if len(r.Opts.Tags) == 0 {
		return !has("never")
	}
	for _, want := range r.Opts.Tags {
		switch {
		case want == "all" && !has("never"):
			return true
		case want == "tagged" && len(tags) > 0:
			return true
		case want == "untagged" && len(tags) == 0:
			return true
		case has(want):
			return true
		}
	}
	return false
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
