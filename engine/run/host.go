package run

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/engine/vault"
)

// taskHost is the executor's side of the module contract for one task on
// one host: it gives the module the task's templating, conditionals,
// warnings and search path.
type taskHost struct {
	tr *taskRun
	sc *scope
}

var _ module.Host = (*taskHost)(nil)

// request builds the module request for rendered args.
func (tr *taskRun) request(args *value.Dict, env map[string]string, sc *scope) *module.Request {
	t := tr.t
	req := &module.Request{Ctx: tr.r.ctx, Name: t.Info.Name, FQCN: t.Info.FQCN, Action: t.Action, Args: args.Copy(),
		Check: tr.checkMode(), Diff: tr.diffMode(), Verbosity: tr.r.Opts.Verbosity, Env: env, BaseEnv: tr.r.Opts.BaseEnv,
		ModuleFile: t.Info.Path, Host: &taskHost{tr: tr, sc: sc}}
	if t.Info.Path != "" {
		req.NoLog = tr.noLogIn(sc)
		if tr.r.Loader != nil {
			req.ModuleUtils = tr.r.Loader.ModuleUtilsDirs()
		}
	}
	return req
}

func (h *taskHost) Name() string { return h.tr.host.name }

func (h *taskHost) Render(s string) (any, error) { return h.tr.r.Engine.Render(s, h.sc, h.tr.opt) }

func (h *taskHost) Eval(expr string) (any, error) { return h.tr.r.Engine.Eval(expr, h.sc, h.tr.opt) }

func (h *taskHost) EvalLenient(expr string) (any, string, error) {
	if u := h.tr.untrustedVar; u != nil && *u == expr {
		return nil, "", untrustedError(h.tr.untrustedVarPos)
	}
	m := &template.Markers{}
	opt := h.tr.opt
	opt.Markers = m
	v, err := h.tr.r.Engine.Eval(expr, h.sc, opt)
	return v, m.Warning(), err
}

func (h *taskHost) Cond(c any, pos value.Pos) (bool, error) {
	return h.tr.evalCond(playbook.Cond{Expr: c, Pos: pos}, h.sc)
}

func (h *taskHost) Var(name string) (any, bool) {
	v, templated, ok := h.sc.Lookup(name)
	if !ok {
		return nil, false
	}
	if templated {
		if rv, err := h.tr.r.Engine.RenderValue(v, h.sc, h.tr.opt); err == nil {
			v = rv
		}
	}
	return v, true
}

func (h *taskHost) Warn(msg string, pos value.Pos) {
	h.tr.r.warn(diag.Warn(msg, diag.At(pos)))
}

func (h *taskHost) Deprecate(msg, version string, pos value.Pos) {
	h.tr.r.warn(diag.Deprecate(msg, version, diag.At(pos)))
}

// DeprecateHelp is Deprecate with ansible-core's help text after the
// removal version (an optional method of module.Host: a controller-side
// action's own deprecation, which never reaches the task's result).
func (h *taskHost) DeprecateHelp(msg, version, help string) {
	d := diag.Deprecate(msg, version, nil)
	d.Help = help
	h.tr.r.warn(d)
}

func (h *taskHost) ArgPos(key string) value.Pos { return h.tr.t.ArgPos[key] }

func (h *taskHost) ArgItemPos(key string, i int) value.Pos {
	if items := h.tr.t.ArgItemPos[key]; i < len(items) {
		return items[i]
	}
	return h.ArgPos(key)
}

func (h *taskHost) KeyPos(key string) value.Pos {
	p, _ := playbook.KeyOriginOf(h.tr.t.Args, key)
	return p
}

func (h *taskHost) FindFile(subdir, name string) (string, []string, bool) {
	return h.tr.searchPath().Find(subdir, name)
}

// searchPath is the task's search path (Task.get_search_path): the roles
// of its dependency chain, innermost first, the directory of the file it
// was written in, then the play's directory. It is the search of action
// plugins, which leave the role test to the directories themselves;
// lookups set InRole (see optAt).
func (tr *taskRun) searchPath() search.Path {
	var dirs []string
	if tr.t.Role != nil {
		chain := roleChain(tr.t.Role)
		for i := len(chain) - 1; i >= 0; i-- {
			dirs = append(dirs, chain[i].Role.Path)
		}
	}
	if !containsStr(dirs, tr.t.Dir) {
		dirs = append(dirs, tr.t.Dir)
	}
	return search.Path{Dirs: dirs, Base: tr.r.playDir(tr.ps)}
}

// RenderFile renders a template file as the template action does: with
// the task's variables and opt.Vars on top, the options of opt, Jinja2's
// own backslash escapes, and the file as the origin of its errors. A
// render to None (an empty template after a #jinja2: header) is empty.
func (h *taskHost) RenderFile(path string, opt module.FileTemplate) (string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if vault.IsEncrypted(src) {
		// get_text_file_contents decrypts a vault-encrypted template.
		if src, err = h.tr.r.Engine.Vault.Decrypt(src); err != nil {
			return "", &diag.Diagnostic{Summary: err.Error(), Origin: diag.At(value.Pos{File: path}), Wrapped: err}
		}
	}
	if !utf8.Valid(src) {
		w := diag.Deprecate(fmt.Sprintf("File %s could not be decoded as 'utf-8'. Invalid content has been escaped.", value.Repr(path)), "2.23", nil)
		w.Help = "This file must be UTF-8 encoded."
		h.tr.r.warn(w)
	}
	sc := h.sc
	if opt.Vars != nil {
		sc = sc.with(opt.Vars, false)
	}
	ropt := h.tr.opt
	cfg := opt.Syntax()
	ropt.Syntax = &cfg
	v, err := h.tr.r.Engine.RenderFile(path, string(src), sc, ropt)
	if err != nil || v == nil {
		return "", err
	}
	return value.Str(v), nil
}

func (h *taskHost) TaskDir() string { return h.tr.t.Dir }

func (h *taskHost) Stdout() io.Writer { return h.tr.r.Stdout }

func (h *taskHost) Shared() *module.Shared { return h.tr.r.Shared }

// moduleFailure turns a module's error into the task's outcome: an action
// plugin's own failure (module.ActionFail) is a failed result whose msg is
// the action's message; any other error is raised below "Task failed.".
func (tr *taskRun) moduleFailure(err error) (*value.Dict, error) {
	var af *diag.Diagnostic
	if errors.As(err, &af) && af.AsResult {
		var inner error = errors.New(af.Summary)
		switch {
		case af.Cause != nil:
			// The error the action failed from gets a section of its own.
			inner = &diag.Diagnostic{Summary: af.Summary, Cause: af.Cause, Detached: true}
		case af.Origin != nil:
			// So does the value the failure is about.
			inner = &diag.Diagnostic{Summary: af.Summary, Origin: af.Origin}
		}
		cause := diag.Chain("Task failed.", tr.t.Pos, inner)
		return value.DictOf("failed", true, "msg", af.Summary, "exception", &ResultError{cause}), nil
	}
	return nil, diag.Chain("Task failed.", tr.t.Pos, err)
}
