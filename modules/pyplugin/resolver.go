// Package pyplugin runs the filter, test and lookup plugins written in
// Python that roles, playbooks and collections carry (filter_plugins/,
// test_plugins/, lookup_plugins/, a collection's plugins/filter, ...),
// through one python3 helper process per run, started at the first call
// of such a plugin (helper.go, helper.py). Resolver finds them as
// ansible-core's plugin loader does and is the template engine's
// template.PluginResolver.
package pyplugin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Kinds of plugin, as ansible-core names their directories' suffix
// (filter_plugins, plugins/filter).
const (
	Filter = "filter"
	Test   = "test"
	Lookup = "lookup"
)

// Dirs is where a run's plugins are.
type Dirs struct {
	// Loaded returns, for a kind, the <kind>_plugins directories of the
	// playbooks and roles loaded so far, in load order (ansible-core's
	// add_all_plugin_dirs). It is asked again on each resolution, as
	// include_role loads roles while the run goes on.
	Loaded func(kind string) []string
	// Configured are the configured paths of each kind
	// (ANSIBLE_FILTER_PLUGINS, filter_plugins = in ansible.cfg, ...),
	// searched after Loaded, each after its subdirectories one and two
	// levels deep.
	Configured map[string][]string
	// CollectionRoots returns the directories that hold
	// ansible_collections trees, in search order.
	CollectionRoots func() []string
}

// Resolver finds and calls the Python plugins of one run. Close ends its
// helper process.
type Resolver struct {
	dirs Dirs
	// LookPath finds the interpreter (exec.LookPath; tests replace it).
	LookPath func(string) (string, error)
	// Getenv reads the process environment (os.LookupEnv; tests replace
	// it), for PythonEnv.
	Getenv func(string) (string, bool)
	// Exported is what the run exports beyond the process environment
	// (the operator's flags that ansible-operator would export): the
	// helper's environment has it, as the environment of ansible-core's
	// own process, where its plugins run, would.
	Exported map[string]string

	mu sync.Mutex
	// serving is set while the helper waits for an answer from the
	// runner (a variable): a plugin call made meanwhile (the variable's
	// template uses one) is nested in the call that holds mu. Hosts run
	// in turn within a run, so it is that goroutine.
	serving atomic.Int32
	h       *helper
	// running is h, for Close to kill without waiting for a call in
	// progress; closed refuses to start another helper after Close.
	running atomic.Pointer[helper]
	closed  atomic.Bool
	// python is the interpreter found, pythonErr why none was; setting
	// is PythonEnv's value when it chose the interpreter.
	python    string
	pythonErr error
	setting   string
	looked    bool

	texts     map[string]string   // plugin file -> its text
	listings  map[string][]string // directory -> its *.py files, sorted
	found     map[foundKey]found  // what resolves a name of a kind
	foundGen  map[string]int      // kind -> the number of directories the found entries saw
	indexes   map[string]*index   // kind + "\x00" + directory set -> names of a set of files
	pending   []string            // load failures to warn about
	configDir map[string][]string // kind -> Configured with subdirectories
}

// foundKey is a name of a kind.
type foundKey struct{ kind, name string }

// found is the plugin that provides a name, or none.
type found struct {
	ok bool
	p  plugin
}

// plugin is one function (filter, test) or lookup of one file.
type plugin struct {
	kind, path, module string
	// name is the function's name in the file's map; resolved the name
	// ansible-core reports the plugin by.
	name, resolved string
	// noPython is why the file cannot run: no python3.
	noPython error
}

// index maps the names a set of files provides to their plugin.
type index struct {
	names map[string]plugin
}

// New returns a resolver over dirs.
func New(dirs Dirs) *Resolver {
	return &Resolver{dirs: dirs, LookPath: exec.LookPath, Getenv: os.LookupEnv, texts: map[string]string{}, listings: map[string][]string{},
		found: map[foundKey]found{}, foundGen: map[string]int{}, indexes: map[string]*index{}}
}

// lock takes the resolver unless the call is nested in one that holds it.
func (r *Resolver) lock() func() {
	if r.serving.Load() > 0 {
		return func() {}
	}
	r.mu.Lock()
	return r.mu.Unlock
}

// Close stops the helper process, if one was started, and any call in
// progress with it (a plugin that does not return does not keep a
// stopping run alive). It may be called from another goroutine than the
// run's; no helper starts after it.
func (r *Resolver) Close() {
	r.closed.Store(true)
	if h := r.running.Load(); h != nil && h.cmd.Process != nil {
		h.cmd.Process.Kill()
	}
	unlock := r.lock()
	defer unlock()
	if r.h != nil {
		r.h.close()
		r.h = nil
		r.running.Store(nil)
	}
}

// Filter implements template.PluginResolver.
func (r *Resolver) Filter(name string) (template.FilterFunc, string, bool) {
	p, ok := r.find(Filter, name)
	if !ok {
		return nil, "", false
	}
	return func(c *template.Ctx, in any, a *template.Args) (any, error) { return r.callJinja(c, p, in, a) }, p.resolved, true
}

// Test implements template.PluginResolver.
func (r *Resolver) Test(name string) (template.FilterFunc, string, bool) {
	p, ok := r.find(Test, name)
	if !ok {
		return nil, "", false
	}
	return func(c *template.Ctx, in any, a *template.Args) (any, error) { return r.callJinja(c, p, in, a) }, p.resolved, true
}

// Lookup implements template.PluginResolver.
func (r *Resolver) Lookup(name string) (template.LookupFunc, bool) {
	p, ok := r.find(Lookup, name)
	if !ok {
		return nil, false
	}
	return func(c *template.Ctx, terms []any, a *template.Args) ([]any, error) {
		return r.callLookup(c, p, terms, a)
	}, true
}

// find resolves a name of a kind, remembering the answer until more
// plugin directories are loaded.
func (r *Resolver) find(kind, name string) (plugin, bool) {
	unlock := r.lock()
	defer unlock()
	loaded := r.dirs.Loaded(kind)
	if r.foundGen[kind] != len(loaded) {
		for k := range r.found {
			if k.kind == kind {
				delete(r.found, k)
			}
		}
		r.foundGen[kind] = len(loaded)
	}
	key := foundKey{kind, name}
	if f, ok := r.found[key]; ok {
		return f.p, f.ok
	}
	var p plugin
	var ok bool
	short := strings.TrimPrefix(name, "ansible.legacy.")
	switch {
	case !strings.Contains(short, "."):
		p, ok = r.findLegacy(kind, short, loaded)
	case strings.HasPrefix(name, "ansible.builtin.") || strings.HasPrefix(name, "ansible.legacy."):
	default:
		p, ok = r.findCollection(kind, name)
	}
	r.found[key] = found{ok: ok, p: p}
	return p, ok
}

// legacyDirs are the directories of a kind in ansible-core's order: those
// of the loaded playbooks and roles, then each configured path after its
// subdirectories.
func (r *Resolver) legacyDirs(kind string, loaded []string) []string {
	if r.configDir == nil {
		r.configDir = map[string][]string{}
		for k, paths := range r.dirs.Configured {
			r.configDir[k] = expandConfigured(paths)
		}
	}
	out := append([]string(nil), loaded...)
	for _, d := range r.configDir[kind] {
		if !contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// expandConfigured lists each configured directory after its
// subdirectories one and two levels deep, as ansible-core's plugin loader
// does for a configured path.
func expandConfigured(paths []string) []string {
	var out []string
	for _, p := range paths {
		var subs []string
		for _, pat := range []string{filepath.Join(p, "*"), filepath.Join(p, "*", "*")} {
			m, _ := filepath.Glob(pat)
			subs = append(subs, m...)
		}
		for _, s := range subs {
			if st, err := os.Stat(s); err == nil && st.IsDir() && !contains(out, s) {
				out = append(out, s)
			}
		}
		if st, err := os.Stat(p); err == nil && st.IsDir() && !contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// pyFiles lists a directory's *.py files by name, once per run, as
// ansible-core's loader caches its listings.
func (r *Resolver) pyFiles(dir string) []string {
	if l, ok := r.listings[dir]; ok {
		return l
	}
	entries, _ := os.ReadDir(dir)
	var l []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, ".py") && n != "__init__.py" && !e.IsDir() {
			l = append(l, filepath.Join(dir, n))
		}
	}
	sort.Slice(l, func(i, j int) bool { return filepath.Base(l[i]) < filepath.Base(l[j]) })
	r.listings[dir] = l
	return l
}

// mentions reports whether a plugin file names name as a string literal.
// Knowing which names a file's FilterModule provides takes Python; a name
// the file does not even quote cannot be among them in practice, so the
// helper starts only for a name some plugin file quotes.
func (r *Resolver) mentions(path, name string) bool {
	text, ok := r.texts[path]
	if !ok {
		b, _ := os.ReadFile(path)
		text = string(b)
		r.texts[path] = text
	}
	return strings.Contains(text, "'"+name+"'") || strings.Contains(text, `"`+name+`"`)
}

// findLegacy finds a short name in the legacy directories: a lookup is a
// file of its name; filters and tests are the functions their files'
// FilterModule or TestModule map, the first file (in directory order,
// files sorted by name) providing a name winning.
func (r *Resolver) findLegacy(kind, name string, loaded []string) (plugin, bool) {
	dirs := r.legacyDirs(kind, loaded)
	if kind == Lookup {
		for _, d := range dirs {
			path := filepath.Join(d, name+".py")
			if st, err := os.Stat(path); err == nil && !st.IsDir() {
				return plugin{kind: kind, path: path, module: legacyModule(kind, path), name: name, resolved: name}, true
			}
		}
		return plugin{}, false
	}
	var files []string
	seen := map[string]bool{}
	for _, d := range dirs {
		for _, f := range r.pyFiles(d) {
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	return r.findIn(kind, name, files, false, func(f, fn string) (string, string) { return legacyModule(kind, f), fn })
}

// findCollection finds ns.coll[.subdirs].name in the first collection
// root holding the collection.
func (r *Resolver) findCollection(kind, name string) (plugin, bool) {
	parts := strings.Split(name, ".")
	if len(parts) < 3 || !fqcrPart.MatchString(parts[0]) || !fqcrPart.MatchString(parts[1]) {
		return plugin{}, false
	}
	ns, coll, leaf, subdirs := parts[0], parts[1], parts[len(parts)-1], parts[2:len(parts)-1]
	var root string
	for _, cr := range r.dirs.CollectionRoots() {
		d := filepath.Join(cr, "ansible_collections", ns, coll)
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			root = d
			break
		}
	}
	if root == "" {
		return plugin{}, false
	}
	dir := filepath.Join(append([]string{root, "plugins", kind}, subdirs...)...)
	pkg := strings.Join(append([]string{"ansible_collections", ns, coll, "plugins", kind}, subdirs...), ".")
	prefix := strings.Join(append([]string{ns, coll}, subdirs...), ".")
	if kind == Lookup {
		path := filepath.Join(dir, leaf+".py")
		if st, err := os.Stat(path); err == nil && !st.IsDir() {
			return plugin{kind: kind, path: path, module: pkg + "." + leaf, name: leaf, resolved: name}, true
		}
		return plugin{}, false
	}
	// Every file of the collection's directory is read, a later file
	// providing the name again taking its place (ansible-core's
	// Jinja2Loader).
	return r.findIn(kind, leaf, r.pyFiles(dir), true, func(f, fn string) (string, string) {
		return pkg + "." + strings.TrimSuffix(filepath.Base(f), ".py"), prefix + "." + fn
	})
}

var fqcrPart = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// legacyModule is the Python module name a legacy plugin file is loaded
// under, shaped as ansible-core names it (ansible.plugins.filter.<file>_<hash
// of its path>, whose number differs): unique per file, so that two
// roles' files of the same name do not replace each other.
func legacyModule(kind, path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".py")
	return "ansible.plugins." + kind + "." + sanitize(base) + "_" + strconv.FormatUint(hashPath(path)>>1, 10)
}

func hashPath(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

// findIn finds name among the filters or tests of files, asking the
// helper for the names of the files only when one quotes name. With
// lastWins a later file providing a name replaces an earlier one.
func (r *Resolver) findIn(kind, name string, files []string, lastWins bool, naming func(file, fn string) (module, resolved string)) (plugin, bool) {
	var quoting []string
	for _, f := range files {
		if r.mentions(f, name) {
			quoting = append(quoting, f)
		}
	}
	if len(quoting) == 0 {
		return plugin{}, false
	}
	key := kind + "\x00" + strings.Join(files, "\x00")
	idx, ok := r.indexes[key]
	if !ok {
		if err := r.ensurePython(); err != nil {
			// Without python3 the names are unknown: the first file
			// quoting the name is taken to provide it, and its call fails
			// saying why.
			mod, resolved := naming(quoting[0], name)
			return plugin{kind: kind, path: quoting[0], module: mod, name: name, resolved: resolved, noPython: err}, true
		}
		var err error
		if idx, err = r.buildIndex(kind, files, lastWins, naming); err != nil {
			mod, resolved := naming(quoting[0], name)
			return plugin{kind: kind, path: quoting[0], module: mod, name: name, resolved: resolved, noPython: err}, true
		}
		r.indexes[key] = idx
	}
	p, ok := idx.names[name]
	return p, ok
}

// buildIndex asks the helper which names each file provides.
func (r *Resolver) buildIndex(kind string, files []string, lastWins bool, naming func(file, fn string) (string, string)) (*index, error) {
	h, err := r.helper()
	if err != nil {
		return nil, err
	}
	req := value.NewDict(3)
	req.Set("op", "index")
	req.Set("kind", kind)
	list := make([]any, len(files))
	for i, f := range files {
		mod, _ := naming(f, "")
		d := value.NewDict(2)
		d.Set("path", f)
		d.Set("module", mod)
		list[i] = d
	}
	req.Set("files", list)
	v, err := h.call(nil, req, nil)
	if err != nil {
		return nil, err
	}
	answers, _ := v.([]any)
	idx := &index{names: map[string]plugin{}}
	for i, a := range answers {
		if i >= len(files) {
			break
		}
		d, _ := a.(*value.Dict)
		if msg, failed := d.Get("warning"); failed {
			r.pending = append(r.pending, value.Str(msg))
			continue
		}
		names, _ := d.Get("names")
		l, _ := names.([]any)
		for _, n := range l {
			fn := value.Str(n)
			if _, dup := idx.names[fn]; dup && !lastWins {
				continue
			}
			mod, resolved := naming(files[i], fn)
			idx.names[fn] = plugin{kind: kind, path: files[i], module: mod, name: fn, resolved: resolved}
		}
	}
	return idx, nil
}

// PythonEnv names the interpreter the helper runs under: a path, or a
// command looked up on PATH. Unset or empty, it is python3 on PATH.
// ansible-core runs controller-side plugins in its own interpreter, which
// ANSIBLE_PYTHON_INTERPRETER and ansible_python_interpreter do not change
// (they choose the modules' interpreter, as they do for modules/external
// here); cfzt-runner has no interpreter of its own, so this setting of the
// process environment stands for that choice. Variables never choose it:
// in an operator they come from the custom resource's spec, and whoever
// writes one would choose the program cfzt-runner starts.
const PythonEnv = "CFZT_PYTHON"

// ensurePython finds the interpreter once: PythonEnv's, else python3 on
// PATH.
func (r *Resolver) ensurePython() error {
	if !r.looked {
		r.looked = true
		name := "python3"
		if v, ok := r.Getenv(PythonEnv); ok && v != "" {
			name, r.setting = v, v
		}
		r.python, r.pythonErr = r.LookPath(name)
		if r.pythonErr == nil && r.setting != "" && !filepath.IsAbs(r.python) {
			// A relative path is the working directory's, whichever
			// directory the helper later starts in.
			if abs, err := filepath.Abs(r.python); err == nil {
				r.python = abs
			}
		}
	}
	return r.pythonErr
}

// helper returns the running helper, starting one when there is none (or
// the last one died).
func (r *Resolver) helper() (*helper, error) {
	if err := r.ensurePython(); err != nil {
		return nil, err
	}
	if r.h != nil && r.h.dead == nil {
		return r.h, nil
	}
	if r.h != nil {
		r.h.close()
		r.h = nil
	}
	if r.closed.Load() {
		return nil, fmt.Errorf("the run is ending")
	}
	h, err := startHelper(r.python, r.dirs.CollectionRoots(), r.Exported)
	if err != nil {
		return nil, fmt.Errorf("cannot start the Python plugin helper with %s: %w", r.python, err)
	}
	r.h = h
	r.running.Store(h)
	return h, nil
}

// noPythonError is the failure of a Python plugin without its
// interpreter.
func (r *Resolver) noPythonError(p plugin) error {
	if r.setting != "" {
		why := r.pythonErr
		if u := errors.Unwrap(why); u != nil {
			why = u
		}
		return template.Errorf("the %s plugin '%s' is written in Python (%s), and cfzt-runner runs Python plugins with the interpreter %s names, %s, which is not an executable file (%v): correct %s, or unset it to use python3 from PATH (see docs/ansible-operator.md)",
			p.kind, p.resolved, p.path, PythonEnv, r.setting, why, PythonEnv)
	}
	return template.Errorf("the %s plugin '%s' is written in Python (%s), and cfzt-runner runs Python plugins with python3, which is not on PATH: install python3, or use cfzt-runner's image flavour with Python (see docs/ansible-operator.md)", p.kind, p.resolved, p.path)
}

// callJinja calls a filter or test with its input and arguments.
func (r *Resolver) callJinja(c *template.Ctx, p plugin, in any, a *template.Args) (any, error) {
	if p.noPython != nil {
		return nil, r.startFailure(p)
	}
	args := []any{in}
	if a != nil {
		args = append(args, a.Pos...)
	}
	req := value.NewDict(7)
	req.Set("op", "call")
	req.Set("kind", p.kind)
	req.Set("path", p.path)
	req.Set("module", p.module)
	req.Set("name", p.name)
	req.Set("args", args)
	if a != nil && a.Kw != nil && a.Kw.Len() > 0 {
		req.Set("kwargs", a.Kw)
	}
	return r.call(c, p, req)
}

// callLookup runs a lookup's LookupModule.run(terms, variables, **kwargs).
func (r *Resolver) callLookup(c *template.Ctx, p plugin, terms []any, a *template.Args) ([]any, error) {
	if p.noPython != nil {
		return nil, r.startFailure(p)
	}
	req := value.NewDict(7)
	req.Set("op", "lookup")
	req.Set("path", p.path)
	req.Set("module", p.module)
	req.Set("name", p.resolved)
	req.Set("terms", terms)
	if a != nil && a.Kw != nil && a.Kw.Len() > 0 {
		req.Set("kwargs", a.Kw)
	}
	v, err := r.call(c, p, req)
	if err != nil {
		return nil, err
	}
	switch l := v.(type) {
	case []any:
		return l, nil
	case value.Tuple:
		return []any(l), nil
	case nil:
		return []any{}, nil
	}
	return nil, template.Errorf("the lookup plugin '%s' returned a %s, not a list", p.resolved, value.TypeName(v))
}

// startFailure is the error of a plugin whose file cannot run.
func (r *Resolver) startFailure(p plugin) error {
	if _, isExec := p.noPython.(*exec.Error); isExec || r.pythonErr != nil {
		return r.noPythonError(p)
	}
	return template.Errorf("cannot run the %s plugin '%s' (%s): %v", p.kind, p.resolved, p.path, p.noPython)
}

// call sends req to the helper, serving its requests with c.
func (r *Resolver) call(c *template.Ctx, p plugin, req *value.Dict) (any, error) {
	unlock := r.lock()
	defer unlock()
	for _, w := range r.pending {
		c.Warn(diag.Warn(w, nil))
	}
	r.pending = nil
	h, err := r.helper()
	if err != nil {
		p.noPython = err
		return nil, r.startFailure(p)
	}
	v, err := h.call(c, req, r.server(c))
	if err != nil && h.dead != nil {
		return nil, template.Errorf("the %s plugin '%s' (%s) did not answer: %v", p.kind, p.resolved, p.path, h.dead)
	}
	return v, err
}

// server answers the helper's requests during a call made with c.
func (r *Resolver) server(c *template.Ctx) server {
	return func(req *value.Dict) (*value.Dict, error) {
		kind, _ := req.Get("req")
		answer := value.NewDict(2)
		switch kind {
		case "warning":
			msg, _ := req.Get("msg")
			c.Warn(diag.Warn(value.Str(msg), nil))
			return nil, nil
		case "deprecated":
			msg, _ := req.Get("msg")
			c.Warn(diag.Deprecate(value.Str(msg), "", nil))
			return nil, nil
		case "var":
			name, _ := req.Get("name")
			r.serving.Add(1)
			// The variable as a template sees it: rendered if the
			// playbook wrote it, data (never rendered) otherwise.
			v, err := c.Var(value.Str(name))
			r.serving.Add(-1)
			if err == nil {
				answer.Set("found", true)
				answer.Set("value", v)
			} else {
				answer.Set("found", false)
			}
		case "findfile":
			subdir, _ := req.Get("subdir")
			name, _ := req.Get("name")
			if p := c.FindFile(value.Str(subdir), value.Str(name)); p != "" {
				answer.Set("path", p)
			}
		case "docdefaults":
			doc, _ := req.Get("doc")
			answer.Set("value", docDefaults(value.Str(doc)))
		default:
			return nil, fmt.Errorf("the Python plugin helper asked for %s", value.Repr(kind))
		}
		return answer, nil
	}
}

// docDefaults reads the defaults of the options a plugin's DOCUMENTATION
// declares (options: name: default:); a document that does not parse
// declares none.
func docDefaults(doc string) *value.Dict {
	out := value.NewDict(0)
	docs, _, err := value.DecodeYAML("DOCUMENTATION", []byte(doc))
	if err != nil || len(docs) == 0 {
		return out
	}
	d, ok := docs[0].(*value.Dict)
	if !ok {
		return out
	}
	opts, _ := d.Get("options")
	od, _ := opts.(*value.Dict)
	od.Each(func(k string, v any) bool {
		if spec, ok := v.(*value.Dict); ok {
			if def, ok := spec.Get("default"); ok {
				out.Set(k, def)
			}
		}
		return true
	})
	return out
}
