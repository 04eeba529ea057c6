package files

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// moduleDef is one AnsibleModule-based module: its argument_spec, whether
// it supports check mode, and its body. The body returns the result that
// exit_json would print, or a *module.Failure for fail_json.
type moduleDef struct {
	name      string
	spec      *argspec.Spec
	checkMode bool
	run       func(m *amod) (*value.Dict, error)
}

// amod is the state of one module run, AnsibleModule's counterpart: the
// validated parameters and the run modes.
type amod struct {
	req   *module.Request
	p     argspec.Params
	check bool
	diff  bool
}

// failCause is fail_json(msg, exception=cause): the result's msg is msg,
// while the task's error reads msg (without its final period) and then
// the cause, as ansible-core chains them.
func failCause(msg, cause string, kv ...any) *module.Failure {
	f := module.Fail(msg, kv...)
	f.Result.Set("exception", errors.New(strings.TrimSuffix(msg, ".")+": "+cause))
	return f
}

// exit is an exit_json from deep inside a module: the run stops and res
// is its (successful) result.
type exit struct{ res *value.Dict }

func (e *exit) Error() string { return value.Str(e.res.Default("msg", "")) }

// earlyExit stops the module with res as its result.
func earlyExit(res *value.Dict) error { return &exit{res: res} }

// entry registers a module under ansible.builtin.<name>.
func (d *moduleDef) entry() module.Entry {
	return module.Entry{FQCN: "ansible.builtin." + d.name, Module: module.Func(d.runTask)}
}

// runTask runs the module for a task: the module quotes the name the task
// used in "Unsupported parameters for (NAME) module".
func (d *moduleDef) runTask(req *module.Request) (*value.Dict, error) {
	return d.invoke(req, req.Args, taskLoadName(req, d.name))
}

// taskLoadName is the name ansible-core loads a module by when a task names
// it directly: exactly as written.
func taskLoadName(req *module.Request, short string) string {
	if req.Action != "" {
		return req.Action
	}
	return short
}

// invoke validates args and runs the module body, as ansible-core runs a
// module for a task or for an action plugin (loadName is then the
// plugin's "ansible.legacy.X"). The result gets add_path_info's keys.
func (d *moduleDef) invoke(req *module.Request, args *value.Dict, loadName string) (*value.Dict, error) {
	v := d.spec.Validate(args)
	for _, w := range v.Warnings {
		req.Host.Warn(w, value.Pos{})
	}
	if res := v.Failure(loadName); res != nil {
		return res, nil
	}
	if req.Check && !d.checkMode {
		return value.DictOf("changed", false, "skipped", true,
			"msg", "remote module ("+loadName+") does not support check mode"), nil
	}
	m := &amod{req: req, p: v.P(), check: req.Check, diff: req.Diff}
	var res *value.Dict
	var err error
	module.InBaseDir(req, pathArgs(d.spec, m.p), func() { res, err = d.finish(m) })
	if err != nil {
		return nil, err
	}
	if !res.Has("invocation") {
		res.Set("invocation", m.p.Invocation(d.spec))
	}
	addOutputLines(res)
	return res, nil
}

// finish runs the module body and completes its result: changed and
// add_path_info's keys (read in the module's directory). Only an action
// plugin's own failure comes back as an error.
func (d *moduleDef) finish(m *amod) (*value.Dict, error) {
	res, err := d.run(m)
	var f *module.Failure
	var early *exit
	switch {
	case errors.As(err, &f):
		res = module.FailedResult(f)
	case errors.As(err, &early):
		res = early.res
	case err != nil:
		var af *diag.Diagnostic
		if errors.As(err, &af) && af.AsResult {
			return nil, err
		}
		// An error the module did not word is Python's uncaught
		// exception: the module crashed.
		res = module.Crashed(err)
	}
	if !res.Has("changed") {
		res.Set("changed", false)
	}
	addPathInfo(res)
	return res, nil
}

// pathArgs lists the values of a module's path-typed options (and of its
// lists of paths), to tell whether any of them is relative.
func pathArgs(spec *argspec.Spec, p argspec.Params) []string {
	var out []string
	for _, o := range spec.Options {
		if o.Type != argspec.Path && o.Elements != argspec.Path {
			continue
		}
		switch v := p.Default(o.Name, nil).(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// addOutputLines adds stdout_lines and stderr_lines to a result that has
// stdout or stderr, as ActionBase._execute_module does for every module.
func addOutputLines(res *value.Dict) {
	for _, k := range []string{"stdout", "stderr"} {
		if v, ok := res.Get(k); ok && !res.Has(k+"_lines") {
			s, _ := v.(string)
			res.Set(k+"_lines", pySplitlines(s))
		}
	}
}

// pySplitlines is Python's str.splitlines(): every line boundary Python
// knows, without the line ends.
func pySplitlines(s string) []any {
	out := []any{}
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\v', '\f', '\x1c', '\x1d', '\x1e', '\u0085', '\u2028', '\u2029':
			out = append(out, s[start:i])
			start = i + size
		case '\r':
			out = append(out, s[start:i])
			if i+1 < len(s) && s[i+1] == '\n' {
				size++
			}
			start = i + size
		}
		i += size
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// warn shows a module warning, as AnsibleModule.warn does.
func (m *amod) warn(msg string) { m.req.Host.Warn(msg, value.Pos{}) }

// str returns a string parameter and whether it was given (not None).
func (m *amod) str(k string) (string, bool) {
	v, ok := m.p.Get(k)
	if !ok || v == nil {
		return "", false
	}
	return value.Str(v), true
}
