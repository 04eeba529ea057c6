package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ignoreErrorsOf reads the ignore_errors keyword.
func ignoreErrorsOf(k *playbook.Keywords) any { return k.IgnoreErrors }

// includedFile is one file (or role) that include_tasks/include_role
// brought in, with the hosts that included it with the same arguments and
// loop variables, as ansible-core's IncludedFile.
type includedFile struct {
	key   string
	path  string // task file, or role name for include_role
	raw   any    // the include_tasks argument as written
	args  *value.Dict
	vars  *value.Dict // loop variables of the item that included it
	hosts []string
	task  *playbook.Task
	frame *frame
	block *playbook.Block
	// reload: the file loaded, and its tasks were dropped until they run
	// (see runInclude).
	reload bool
}

// includeResult is what an include task returns: the file to include and
// its arguments, without running anything yet.
func (tr *taskRun) includeResult(args *value.Dict) *value.Dict {
	args = args.Copy()
	if tr.t.Info.Kind == module.KindIncludeTasks {
		file, ok := args.Get("_raw_params")
		args.Delete("_raw_params")
		if !ok {
			file, ok = args.Get("file")
			args.Delete("file")
		}
		if !ok || value.Str(file) == "" {
			return value.DictOf("failed", true, "msg", "No include file was specified to the include")
		}
		return value.DictOf("include", file, "include_args", args)
	}
	return value.DictOf("include_args", args)
}

// runInclude runs include_tasks/include_role on hosts: the include task
// itself on every host, then each distinct included file for the hosts
// that included it.
func (r *Runner) runInclude(ps *playState, f *frame, t *playbook.Task, hosts []string, st *step) {
	var incs []*includedFile
	for _, h := range hosts {
		tr := r.newTaskRun(ps, f, t, r.host(h))
		if err := tr.throttle(); err != nil {
			r.fatal(err)
			return
		}
		st.fatal = st.fatal || tr.stepFatal()
		res := tr.result()
		if isFailed(res) || isSkipped(res) {
			st.add(h, tr.process(res, nil))
			if r.abort != 0 {
				return
			}
			continue
		}
		st.add(h, false)
		items := []*value.Dict{res}
		if t.HasLoop {
			items = nil
			for _, e := range res.Default("results", nil).([]any) {
				if d, ok := e.(*value.Dict); ok && !value.Truthy(d.Default("skipped", false)) && !value.Truthy(d.Default("failed", false)) {
					items = append(items, d)
				}
			}
		}
		if t.Register != "" {
			tr.host.facts.Set(t.Register, registered(res))
			delete(tr.host.trustedFacts, t.Register)
		}
		for _, it := range items {
			incs = addInclude(incs, tr, it)
		}
		if tr.runOnce() {
			// run_once on a dynamic include processes it for the first
			// host only: the others do not run the included tasks.
			break
		}
	}
	for _, inc := range incs {
		if err := r.loadInclude(ps, inc); err != nil {
			r.controllerError(err)
			if diag.ExitCode(err) == diag.ExitParse {
				// A parse error in an included file ends the run, as
				// ansible-core re-raises AnsibleParserError.
				r.abort = diag.ExitParse
				return
			}
			reason := diag.JoinMessages(diag.Messages(err))
			if le := diag.Fatal(err); le != nil {
				reason = le.Summary
			}
			for _, h := range inc.hosts {
				hs := r.host(h)
				tr := r.newTaskRun(ps, f, t, hs)
				res := value.DictOf("changed", false)
				if inc.raw != nil {
					res.Set("include", inc.raw)
				}
				res.Set("failed", true)
				res.Set("reason", reason)
				r.stat(h).Failed++
				if slices.Contains(st.failed, h) {
					// Another file of the same loop failed for this host
					// already: the host is failed once.
					continue
				}
				if !t.HasLoop {
					// The failed result of a loop is its list of item
					// results, which the default callback does not show
					// again: only the error above tells.
					tr.r.report(&Event{Host: h, Task: t, Name: tr.name, Status: StatusFailed, Result: res, NoLog: tr.noLog})
				}
				r.failHost(h)
				st.failed = append(st.failed, h)
			}
			inc.block = nil
			continue
		}
		r.loadWarnings(r.Loader.Warnings())
		for _, h := range inc.hosts {
			r.stat(h).OK++
		}
		r.Display.Included(inc.path, strings.Join(inc.hosts, ", "), includeLabel(inc.vars), includeLabel(inc.vars) != nil)
		if inc.frame.includeDepth() >= maxIncludeDepth {
			// ansible-core meets Python's recursion limit copying the
			// included tasks, after it showed the file: the run ends
			// there, without a recap.
			r.fatal(includeRecursionError())
			return
		}
		if t.Info.Kind == module.KindIncludeTasks && len(incs) > 1 {
			// As in ansible-core, every file is loaded (and its errors
			// reported) before any runs. The tasks of a loop's thousand
			// includes are not kept meanwhile, though: each file is loaded
			// again, from the parsed-YAML cache, just before it runs.
			inc.block, inc.reload = nil, true
		}
	}
	// The step's checks (any_errors_fatal, max_fail_percentage) come
	// before the included tasks run.
	r.endStep(ps, st)
	for _, inc := range incs {
		if (inc.block == nil && !inc.reload) || ps.endPlay || r.abort != 0 {
			continue
		}
		if inc.reload {
			items, err := r.Loader.LoadIncludedTasks(inc.path, inc.task)
			_ = r.Loader.Warnings()      // reported by the first load
			_ = r.Loader.ImportedRoles() // added by the first load
			if err != nil {
				r.controllerError(err) // the file changed since it loaded
				continue
			}
			inc.block = &playbook.Block{Block: items}
		}
		saved := ps.hosts
		ps.hosts = inc.hosts
		r.runBlock(ps, inc.frame, inc.block)
		ps.hosts = saved
		inc.block = nil // done with its tasks
	}
}

// includeLabel is the item label shown on an "included:" line.
func includeLabel(vars *value.Dict) any {
	if vars == nil {
		return nil
	}
	if value.Truthy(vars.Default("_ansible_no_log", false)) {
		return "(censored due to no_log)"
	}
	if l, ok := vars.Get("_ansible_item_label"); ok {
		return l
	}
	if l, ok := vars.Get("item"); ok {
		return l
	}
	return nil
}

// addInclude records one include result, merging it with an identical
// include of another host.
func addInclude(incs []*includedFile, tr *taskRun, res *value.Dict) []*includedFile {
	t := tr.t
	args, _ := res.Default("include_args", nil).(*value.Dict)
	if args == nil {
		args = value.NewDict(0)
	}
	vars := value.NewDict(4)
	if lv, ok := res.Get("ansible_loop_var"); ok {
		name := value.Str(lv)
		if v, ok := res.Get(name); ok {
			vars.Set(name, v)
			vars.Set("ansible_loop_var", name)
		}
		if iv, ok := res.Get("ansible_index_var"); ok {
			if v, ok := res.Get(value.Str(iv)); ok {
				vars.Set(value.Str(iv), v)
				vars.Set("ansible_index_var", value.Str(iv))
			}
		}
		if l, ok := res.Get("_ansible_item_label"); ok {
			vars.Set("_ansible_item_label", l)
		}
		if l, ok := res.Get("ansible_loop"); ok {
			vars.Set("ansible_loop", l)
		}
	}
	if tr.noLog {
		vars.Set("_ansible_no_log", true)
	}
	path := ""
	if t.Info.Kind == module.KindIncludeTasks {
		path = nestedIncludePath(t, value.Str(res.Default("include", "")))
		if path == "" {
			path = tr.r.Loader.FindTasksFile(t.Dir, t.Role, value.Str(res.Default("include", "")))
		}
	} else {
		path = value.Str(args.Default("name", args.Default("role", "")))
	}
	key := t.Module + "\x00" + path + "\x00" + value.JSON(args, value.JSONOptions{SortKeys: true}) + "\x00" + value.JSON(cleanCopy(vars), value.JSONOptions{SortKeys: true})
	for _, inc := range incs {
		if inc.key != key {
			continue
		}
		dup := false
		for _, h := range inc.hosts {
			if h == tr.host.name {
				dup = true
			}
		}
		if !dup {
			inc.hosts = append(inc.hosts, tr.host.name)
			return incs
		}
	}
	inc := &includedFile{key: key, path: path, args: args, vars: vars, hosts: []string{tr.host.name}, task: t, frame: tr.f}
	if raw, ok := res.Get("include"); ok {
		inc.raw = raw
	}
	return append(incs, inc)
}

// loadInclude loads an included file or role into inc.block, with the
// frame its tasks run in.
func (r *Runner) loadInclude(ps *playState, inc *includedFile) error {
	t := inc.task
	// Loop variables become include params, like the include task's vars.
	params := value.NewDict(0)
	params.Update(t.Vars)
	t.Vars.Each(func(k string, _ any) bool {
		if pos, known := playbook.OriginOf(t.Vars, k); known {
			playbook.SetOrigin(params, k, pos)
		}
		return true
	})
	locals := value.NewDict(inc.vars.Len())
	inc.vars.Each(func(k string, v any) bool {
		if !strings.HasPrefix(k, "_ansible_") {
			locals.Set(k, v)
		}
		return true
	})
	// The include task itself is not a parent the included tasks inherit
	// keywords from (it is not static), but its vars are, and so are the
	// keywords of its `apply`.
	if t.ApplyErr != nil {
		return t.ApplyErr
	}
	parent := inc.frame
	if t.Apply != nil {
		parent = parent.child(t.Apply)
	}
	inner := &frame{parent: parent, kw: &playbook.Keywords{Vars: t.Vars}, includeVars: params, includeLocals: locals,
		role: inc.frame.role, handler: inc.frame.handler, included: true}
	switch t.Info.Kind {
	case module.KindIncludeTasks:
		items, err := r.Loader.LoadIncludedTasks(inc.path, t)
		if err != nil {
			if le, ok := err.(*diag.Diagnostic); ok && errors.Is(le.Wrapped, os.ErrNotExist) {
				return &diag.Diagnostic{Summary: fmt.Sprintf("Could not find or access '%s' on the Ansible Controller.", inc.path), Cause: errors.New(le.Summary)}
			}
			return err
		}
		if t.Role == nil {
			markIncludeDir(items, filepath.Dir(inc.path), py.Dirname(py.Join([]string{includeBase(t), value.Str(inc.raw)})))
		}
		inc.block = &playbook.Block{Block: items}
		r.adoptImportedRoles(ps)
	case module.KindIncludeRole:
		ri, err := r.Loader.LoadRole(playbook.IncludeRoleRef(t, inc.args, false), t.Role)
		if err != nil {
			return err
		}
		r.addPlayRole(ps, ri)
		ps.includedRoles = append(ps.includedRoles, ri)
		r.adoptImportedRoles(ps)
		inc.block = &playbook.Block{Block: []playbook.Item{playbook.CompileRole(ri)}}
		inner.role = ri
	}
	inc.frame = inner
	return nil
}

// includeBase is the directory a play-level include_tasks joins its file
// to: the uncleaned directory of the include that loaded the task, or the
// task's own directory.
func includeBase(t *playbook.Task) string {
	if t.IncludeDir != "" {
		return t.IncludeDir
	}
	return t.Dir
}

// nestedIncludePath is the file an include_tasks inside a dynamically
// included play-level file names, joined without cleaning as ansible-core
// does, when that file exists; "" otherwise (the loader's search decides).
func nestedIncludePath(t *playbook.Task, raw string) string {
	if t.IncludeDir == "" || t.Role != nil || raw == "" {
		return ""
	}
	p := py.Join([]string{t.IncludeDir, raw})
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// markIncludeDir records includeDir on the tasks of an included file (those
// in dir, not the ones its imports brought from elsewhere).
func markIncludeDir(items []playbook.Item, dir, includeDir string) {
	for _, it := range items {
		switch x := it.(type) {
		case *playbook.Task:
			if x.IncludeDir == "" && x.Dir == dir {
				x.IncludeDir = includeDir
			}
		case *playbook.Block:
			markIncludeDir(x.Block, dir, includeDir)
			markIncludeDir(x.Rescue, dir, includeDir)
			markIncludeDir(x.Always, dir, includeDir)
		}
	}
}

// maxIncludeDepth is how deep dynamic includes nest before the run stops,
// where ansible-core 2.19 meets Python's recursion limit: an include that
// includes itself stops there instead of running without end.
const maxIncludeDepth = 247

// includeRecursionError is what ansible-core 2.19 reports there: its play
// iterator meets Python's recursion limit inserting the included tasks,
// and the run ends with an unexpected exception and exit status 250. The
// Python traceback that follows it is not reproduced.
func includeRecursionError() error {
	return &diag.Diagnostic{Summary: "Unexpected Exception, this is probably a bug: maximum recursion depth exceeded while calling a Python object",
		Code: diag.ExitUnexpected}
}
