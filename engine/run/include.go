package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
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
func (r *Runner) runInclude(ps *playState, f *frame, t *playbook.Task, hosts []string) {
	var incs []*includedFile
	for _, h := range hosts {
		tr := r.newTaskRun(ps, f, t, r.host(h))
		res := tr.result()
		if isFailed(res) || isSkipped(res) {
			tr.process(res, nil)
			continue
		}
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
		}
		for _, it := range items {
			incs = addInclude(incs, tr, it)
		}
	}
	for _, inc := range incs {
		if err := r.loadInclude(ps, inc); err != nil {
			r.controllerError(err)
			if le := (*playbook.LoadError)(nil); errors.As(err, &le) && le.Code == 4 {
				// A parse error in an included file ends the run, as
				// ansible-core re-raises AnsibleParserError.
				r.abort = 4
				return
			}
			reason := JoinMessages(ChainMessages(err))
			var le *playbook.LoadError
			if errors.As(err, &le) {
				reason = le.Msg
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
				tr.r.Display.Result(&Event{Host: h, Task: t, Name: tr.name, Status: StatusFailed, Result: res, NoLog: tr.noLog})
				tr.markFailed(hs, res)
			}
			inc.block = nil
			continue
		}
		r.loadWarnings(r.Loader.Warnings())
		for _, h := range inc.hosts {
			r.stat(h).OK++
		}
		r.Display.Included(inc.path, strings.Join(inc.hosts, ", "), includeLabel(inc.vars), includeLabel(inc.vars) != nil)
		if t.Info.Kind == module.KindIncludeTasks && len(incs) > 1 {
			// As in ansible-core, every file is loaded (and its errors
			// reported) before any runs. The tasks of a loop's thousand
			// includes are not kept meanwhile, though: each file is loaded
			// again, from the parsed-YAML cache, just before it runs.
			inc.block, inc.reload = nil, true
		}
	}
	for _, inc := range incs {
		if (inc.block == nil && !inc.reload) || ps.endPlay || r.abort != 0 {
			continue
		}
		if inc.reload {
			items, err := r.Loader.LoadTasksFile(inc.path, inc.task.Role)
			_ = r.Loader.Warnings() // reported by the first load
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
		path = tr.r.Loader.FindTasksFile(t.Dir, t.Role, value.Str(res.Default("include", "")))
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
	locals := value.NewDict(inc.vars.Len())
	inc.vars.Each(func(k string, v any) bool {
		if !strings.HasPrefix(k, "_ansible_") {
			locals.Set(k, v)
		}
		return true
	})
	// The include task itself is not a parent the included tasks inherit
	// keywords from (it is not static), but its vars are.
	inner := &frame{parent: inc.frame, kw: &playbook.Keywords{Vars: t.Vars}, includeVars: params, includeLocals: locals, role: inc.frame.role}
	switch t.Info.Kind {
	case module.KindIncludeTasks:
		items, err := r.Loader.LoadTasksFile(inc.path, t.Role)
		if err != nil {
			if le, ok := err.(*playbook.LoadError); ok && le.Pos.IsZero() && le.Code == 1 {
				return &ChainError{Msg: fmt.Sprintf("Could not find or access '%s' on the Ansible Controller.", inc.path), Cause: errors.New(le.Msg)}
			}
			return err
		}
		inc.block = &playbook.Block{Block: items}
	case module.KindIncludeRole:
		args := inc.args
		ref := &playbook.RoleRef{Name: inc.path, Params: value.NewDict(0), Pos: t.Pos}
		if p, ok := t.ArgPos["name"]; ok {
			ref.Pos = p
		}
		ref.TasksFrom = value.Str(args.Default("tasks_from", ""))
		ref.VarsFrom = value.Str(args.Default("vars_from", ""))
		ref.DefaultsFrom = value.Str(args.Default("defaults_from", ""))
		ref.HandlersFrom = value.Str(args.Default("handlers_from", ""))
		ri, err := r.Loader.LoadRole(ref, t.Role)
		if err != nil {
			return err
		}
		if value.Truthy(args.Default("public", false)) {
			r.collectRoleVars(ps, ri)
		}
		inc.block = &playbook.Block{Block: []playbook.Item{r.roleBlock(ri)}}
		ps.handlers = append(ps.handlers, roleHandlers(ri)...)
		inner.role = ri
	}
	inc.frame = inner
	return nil
}

// includeVars implements include_vars (file, name, dir, depth,
// files_matching, ignore_files, extensions, ignore_unknown_extensions).
// The variables keep their templates, rendered on use.
func (tr *taskRun) includeVars(args *value.Dict) (*value.Dict, error) {
	t := tr.t
	fileArgs := map[string]bool{"file": true, "_raw_params": true}
	dirArgs := map[string]bool{"dir": true, "depth": true, "files_matching": true, "ignore_files": true, "extensions": true, "ignore_unknown_extensions": true}
	dirs, files := 0, 0
	for _, k := range args.Keys() {
		switch {
		case dirArgs[k]:
			dirs++
		case fileArgs[k]:
			files++
		case k == "name" || k == "hash_behaviour":
		default:
			return nil, chain("Task failed.", t.Pos, fmt.Errorf("%s is not a valid option in include_vars", k))
		}
	}
	if dirs > 0 && files > 0 {
		return nil, chain("Task failed.", t.Pos, errors.New("You are mixing file only and dir only arguments, these are incompatible"))
	}
	exts := []string{"yaml", "yml", "json"}
	if e, ok := args.Get("extensions"); ok {
		if l, ok := e.([]any); ok {
			exts = nil
			for _, x := range l {
				exts = append(exts, value.Str(x))
			}
		}
	}
	validExt := func(name string) bool {
		for _, e := range exts {
			if strings.HasSuffix(name, "."+e) {
				return true
			}
		}
		return false
	}
	results := value.NewDict(0)
	included := []any{}
	failed, msg := false, ""
	load := func(path string, checkExt bool) bool {
		if checkExt && !validExt(path) {
			failed, msg = true, fmt.Sprintf("%s does not have a valid extension: %s", path, strings.Join(exts, ", "))
			return false
		}
		d, err := tr.r.Loader.LoadVarsFile(path)
		if err != nil {
			var le *playbook.LoadError
			if errors.As(err, &le) && strings.HasPrefix(le.Msg, "Vars in ") {
				failed, msg = true, path+" must be stored as a dictionary/hash"
				return false
			}
			failed, msg = true, err.Error()
			return false
		}
		included = append(included, path)
		results.Update(d)
		return true
	}
	if dirV, ok := args.Get("dir"); ok {
		dir := value.Str(dirV)
		if !filepath.IsAbs(dir) {
			if t.Role != nil {
				if strings.Split(dir, "/")[0] == "vars" {
					if p := filepath.Join(t.Role.Role.Path, dir); dirExists(p) {
						dir = p
					}
				} else {
					dir = filepath.Join(t.Role.Role.Path, "vars", dir)
				}
			} else {
				dir = filepath.Join(t.Dir, dir)
			}
		}
		depth, _ := value.AsInt(args.Default("depth", 0))
		var matcher *regexp.Regexp
		if m, ok := args.Get("files_matching"); ok && m != nil {
			matcher, _ = regexp.Compile(value.Str(m))
		}
		ignore := map[string]bool{}
		switch ig := args.Default("ignore_files", nil).(type) {
		case string:
			for _, f := range strings.Fields(ig) {
				ignore[f] = true
			}
		case []any:
			for _, f := range ig {
				ignore[value.Str(f)] = true
			}
		}
		ignoreUnknown := tr.boolOf(args.Default("ignore_unknown_extensions", false))
		switch {
		case !pathExists(dir):
			failed, msg = true, dir+" directory does not exist"
		case !dirExists(dir):
			failed, msg = true, dir+" is not a directory"
		default:
			for _, sub := range walkDirs(dir) {
				rel, _ := filepath.Rel(dir, sub.dir)
				level := 1
				if rel != "." {
					level += len(strings.Split(rel, string(filepath.Separator)))
				}
				if depth != 0 && level > depth {
					continue
				}
				for _, name := range sub.files {
					if t.Role != nil && filepath.Join(t.Role.Role.Path, name) == filepath.Join(sub.dir, "vars", "main.yml") {
						continue
					}
					if matcher != nil && !matcher.MatchString(name) {
						continue
					}
					if ignore[name] || (ignoreUnknown && !validExt(name)) {
						continue
					}
					if !load(filepath.Join(sub.dir, name), true) {
						break
					}
				}
				if failed {
					break
				}
			}
		}
	} else {
		raw := value.Str(args.Default("_raw_params", args.Default("file", "")))
		path, searched := tr.findNeedle("vars", raw)
		if path == "" {
			failed = true
			msg = fmt.Sprintf("Could not find or access '%s'\nSearched in:\n\t%s on the Ansible Controller.\n"+
				"If you are using a module and expect the file to exist on the remote, see the remote_src option", raw, strings.Join(searched, "\n\t"))
		} else {
			load(path, false)
		}
	}
	if name, ok := args.Get("name"); ok && name != nil {
		results = value.DictOf(value.Str(name), results)
	}
	res := value.NewDict(6)
	if failed {
		res.Set("failed", true)
		res.Set("message", msg)
	}
	res.Set("ansible_included_var_files", included)
	res.Set("ansible_facts", results)
	res.Set("changed", false)
	return res, nil
}

// findNeedle finds a file the way ansible-core's _find_needle does: in
// subdir then directly under the task's search path (its role, the
// task's directory), then under the playbook directory. It returns the
// path, or "" and the places searched.
func (tr *taskRun) findNeedle(subdir, source string) (string, []string) {
	if filepath.IsAbs(source) || strings.HasPrefix(source, "~") {
		if pathExists(source) {
			return source, nil
		}
		return "", []string{source}
	}
	var stack []string
	if tr.t.Role != nil {
		for _, ri := range roleChain(tr.t.Role) {
			stack = append([]string{ri.Role.Path}, stack...)
		}
	}
	if !containsStr(stack, tr.t.Dir) {
		stack = append(stack, tr.t.Dir)
	}
	var search []string
	first := strings.Split(source, "/")[0]
	for _, p := range stack {
		if first != subdir {
			search = append(search, filepath.Join(p, subdir, source))
		}
		search = append(search, filepath.Join(p, source))
	}
	base := tr.r.playDir(tr.ps)
	if first != subdir {
		search = append(search, filepath.Join(base, subdir, source))
	}
	search = append(search, filepath.Join(base, source))
	for _, c := range search {
		if pathExists(c) {
			return c, nil
		}
	}
	return "", search
}

// dirFiles is one directory of a sorted walk and its sorted files.
type dirFiles struct {
	dir   string
	files []string
}

// walkDirs lists dir and its subdirectories, sorted by path, each with
// its sorted file names.
func walkDirs(dir string) []dirFiles {
	var out []dirFiles
	var walk func(d string)
	walk = func(d string) {
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		df := dirFiles{dir: d}
		for _, e := range entries {
			if e.IsDir() {
				walk(filepath.Join(d, e.Name()))
			} else {
				df.files = append(df.files, e.Name())
			}
		}
		sort.Strings(df.files)
		out = append(out, df)
	}
	walk(dir)
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return out
}

func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// runMeta implements meta actions as ansible-core's linear strategy does:
// per host (with a banner each time) for noop, end_host, end_role and
// flush_handlers, once for the others. A skipped meta task is shown but
// not counted.
func (r *Runner) runMeta(ps *playState, f *frame, t *playbook.Task, hosts []string) {
	action := value.Str(t.Args.Default("_raw_params", ""))
	targets := hosts
	switch action {
	case "noop", "reset_connection", "end_host", "role_complete", "flush_handlers", "end_role":
	default:
		targets = hosts[:1]
	}
	var flush []string
	for _, h := range targets {
		hs := r.host(h)
		tr := r.newTaskRun(ps, f, t, hs)
		r.Display.TaskStart(tr.name, t, f.handler)
		if res := tr.checkConds(tr.sc); res != nil {
			if isFailed(res) {
				tr.process(res, nil)
				continue
			}
			reason := action + " conditional evaluated to False"
			msg := action
			switch action {
			case "flush_handlers":
				reason += ", not running handlers for " + h
			case "clear_facts":
				reason += ", not clearing facts and fact cache for " + h
			case "clear_host_errors":
				reason += ", not clearing host error state for " + h
			case "end_batch":
				reason += ", continuing current batch"
			case "end_play":
				reason += ", continuing play"
			case "end_host":
				reason += ", continuing execution for " + h
				msg = "end_host conditional evaluated to false, continuing execution for " + h
			case "end_role":
				reason += "continuing role " + f.role.Name() + " for " + h
			}
			r.message(2, "META: "+reason)
			r.Display.Result(&Event{Host: h, Task: t, Name: tr.name, Status: StatusSkipped, NoLog: tr.noLog,
				Result: value.DictOf("msg", msg, "skipped", true, "skip_reason", reason)})
			continue
		}
		msg := action
		switch action {
		case "flush_handlers":
			flush = append(flush, h)
			r.announceHandlers(ps, h)
			msg = "triggered running handlers for " + h
		case "end_play":
			ps.endPlay = true
			msg = "ending play"
		case "end_batch":
			ps.endPlay = true
			msg = "ending batch"
		case "end_host":
			hs.ended = true
			msg = "ending play for " + h
		case "clear_host_errors":
			for _, x := range ps.allHosts {
				r.host(x).failed = false
			}
			msg = "cleared host errors"
		case "clear_facts":
			for _, x := range ps.allHosts {
				r.host(x).facts = value.NewDict(8)
			}
			msg = "facts cleared"
		case "end_role":
			if f.role != nil {
				hs.endRole = f.role
			}
			// ansible-core reports this one at debug level only.
			continue
		case "refresh_inventory":
			msg = "inventory successfully refreshed"
		case "reset_connection":
			msg = "no connection, nothing to reset"
		case "noop", "role_complete":
		default:
			p := t.Pos
			r.Display.Error(&ChainError{Msg: "invalid meta action requested: " + action, Origin: &p})
			hs.failed = true
			r.stat(h).Failed++
			continue
		}
		r.message(2, "META: "+msg)
	}
	if len(flush) > 0 {
		r.flushHandlers(ps, flush...)
	}
}

// flushHandlers runs notified handlers in definition order, each on the
// hosts that notified it. A handler notified during the flush by a later
// handler waits for the next flush, as in ansible-core.
func (r *Runner) flushHandlers(ps *playState, only ...string) {
	if len(ps.notified) == 0 {
		return
	}
	handlers := r.playHandlers(ps)
	if only == nil {
		for _, host := range ps.allHosts {
			r.announceHandlers(ps, host)
		}
	}
	ps.flushing = true
	defer func() { ps.flushing = false }()
	for _, h := range handlers {
		hosts := ps.notified[h]
		if len(hosts) == 0 {
			continue
		}
		var active, keep []string
		for _, host := range hosts {
			if only != nil && !containsStr(only, host) {
				keep = append(keep, host)
				continue
			}
			hs := r.host(host)
			if (!hs.failed || r.forceHandlers(ps)) && !hs.ended && containsStr(ps.allHosts, host) {
				active = append(active, host)
			}
		}
		if len(keep) > 0 {
			ps.notified[h] = keep
		} else {
			delete(ps.notified, h)
		}
		if len(active) == 0 {
			continue
		}
		saved := ps.hosts
		ps.hosts = active
		f := &frame{parent: ps.root, role: h.Role, handler: true}
		r.runTask(ps, f, h)
		ps.hosts = saved
	}
}

// announceHandlers shows, at -vv, the handlers a flush will run for host.
func (r *Runner) announceHandlers(ps *playState, host string) {
	if hs := r.host(host); hs.ended || (hs.failed && !r.forceHandlers(ps)) {
		return
	}
	for _, h := range r.playHandlers(ps) {
		if containsStr(ps.notified[h], host) {
			r.message(2, fmt.Sprintf("NOTIFIED HANDLER %s for %s", handlerName(h), host))
		}
	}
}

// notify records that host notified the handlers called name.
func (r *Runner) notify(ps *playState, name, host string) {
	add := func(h *playbook.Task) {
		if !containsStr(ps.notified[h], host) {
			ps.notified[h] = append(ps.notified[h], host)
			if ps.flushing {
				r.message(2, fmt.Sprintf("NOTIFIED HANDLER %s for %s", handlerName(h), host))
			}
		}
	}
	handlers := r.playHandlers(ps)
	found := false
	for i := len(handlers) - 1; i >= 0; i-- {
		h := handlers[i]
		if h.Name == "" {
			continue
		}
		if h.Name == name || (h.Role != nil && h.Role.Name()+" : "+h.Name == name) {
			add(h)
			found = true
			break
		}
	}
	seen := map[string]bool{}
	for _, h := range handlers {
		if !containsStr(h.Listen, name) {
			continue
		}
		if h.Name != "" && seen[h.Name] {
			continue
		}
		seen[h.Name] = true
		add(h)
		found = true
	}
	if found {
		if !ps.flushing {
			r.message(2, fmt.Sprintf("Notification for handler %s has been saved.", name))
		}
	} else {
		r.Display.Warning(fmt.Sprintf("The requested handler '%s' was not found in either the main handlers list nor in the listening handlers list", name))
	}
}

func (r *Runner) forceHandlers(ps *playState) bool {
	return value.Truthy(ps.play.ForceHandlers) || r.Opts.ForceHandlers
}

func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// playHandlers lists the play's handlers: roles' first, then the play's.
func (r *Runner) playHandlers(ps *playState) []*playbook.Task {
	return append(append([]*playbook.Task{}, ps.handlers...), flattenTasks(ps.play.Handlers)...)
}

// tagsMatch applies --tags and --skip-tags.
func (r *Runner) tagsMatch(tags []string, t *playbook.Task) bool {
	return TagsSelected(tags, r.Opts.Tags, r.Opts.SkipTags)
}

// TagsSelected reports whether an item with tags runs under --tags only
// and --skip-tags skip, as ansible-core's Taggable.evaluate_tags does.
func TagsSelected(tags, only, skip []string) bool {
	untagged := len(tags) == 0
	if untagged {
		tags = []string{"untagged"}
	}
	has := func(name string) bool { return containsStr(tags, name) }
	disjoint := func(set []string) bool {
		for _, s := range set {
			if has(s) {
				return false
			}
		}
		return true
	}
	if len(only) == 0 {
		only = []string{"all"}
	}
	run := true
	if len(only) > 0 {
		run = has("always") ||
			(containsStr(only, "all") && !has("never")) ||
			!disjoint(only) ||
			(containsStr(only, "tagged") && !untagged && !has("never"))
	}
	if run && len(skip) > 0 {
		switch {
		case containsStr(skip, "all"):
			if !has("always") || containsStr(skip, "always") {
				run = false
			}
		case !disjoint(skip):
			run = false
		case containsStr(skip, "tagged") && !untagged:
			run = false
		}
	}
	return run
}

// startMatches reports whether t is the --start-at-task task.
func (r *Runner) startMatches(t *playbook.Task) bool {
	want := r.Opts.StartAt
	name := t.Name
	if name == want {
		return true
	}
	if t.Role != nil && t.Role.Name()+" : "+name == want {
		return true
	}
	if ok, _ := filepath.Match(want, name); ok {
		return true
	}
	return false
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// handlerName is a handler's name as ansible-core's get_name shows it.
func handlerName(h *playbook.Task) string {
	if h.Role != nil {
		return h.Role.Name() + " : " + h.Name
	}
	return h.Name
}

// message shows a verbose message when the display supports it.
func (r *Runner) message(level int, msg string) {
	if m, ok := r.Display.(Messenger); ok {
		m.Message(level, msg)
	}
}
