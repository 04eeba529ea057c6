// Package moduletest gives module unit tests a module.Host without an
// executor: templates render with a plain variable dict, files are looked
// up in a list of directories, and warnings are recorded.
package moduletest

import (
	"bytes"
	"context"
	"io"
	"os"

	"github.com/cfzt/cfzt-runner/engine/lookup"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Host is a module.Host for tests.
type Host struct {
	HostName string
	Vars     *value.Dict
	// Dirs are searched, in order, by FindFile and lookups (each dir/subdir,
	// then dir).
	Dirs []string
	Dir  string
	Out  bytes.Buffer
	// Positions answer ArgPos and KeyPos.
	Positions map[string]value.Pos
	// Warnings and Deprecations record what the module showed, and
	// WarningPos where each warning pointed.
	Warnings, Deprecations []string
	WarningPos             []value.Pos

	// State is what Shared returns; tests share it between requests to
	// model one run.
	State *module.Shared

	engine *template.Engine
}

// NewHost returns a Host named "localhost" with vars.
func NewHost(vars *value.Dict) *Host {
	if vars == nil {
		vars = value.NewDict(0)
	}
	return &Host{HostName: "localhost", Vars: vars, engine: template.New(lookup.Libraries()...), State: module.NewShared()}
}

// Request builds a request for a module with args (key, value, ...).
func (h *Host) Request(name string, args ...any) *module.Request {
	return &module.Request{Ctx: context.Background(), Name: name, FQCN: "ansible.builtin." + name, Action: name, Args: value.DictOf(args...), Host: h}
}

func (h *Host) opt() template.Options { return template.Options{Search: h.search()} }

func (h *Host) Name() string { return h.HostName }

func (h *Host) Render(s string) (any, error) {
	return h.engine.Render(s, template.MapVars{D: h.Vars}, h.opt())
}

func (h *Host) Eval(expr string) (any, error) {
	return h.engine.Eval(expr, template.MapVars{D: h.Vars}, h.opt())
}

func (h *Host) EvalLenient(expr string) (any, string, error) {
	m := &template.Markers{}
	o := h.opt()
	o.Markers = m
	v, err := h.engine.Eval(expr, template.MapVars{D: h.Vars}, o)
	return v, m.Warning(), err
}

func (h *Host) Cond(c any, _ value.Pos) (bool, error) {
	if b, ok := c.(bool); ok {
		return b, nil
	}
	v, err := h.Eval(value.Str(c))
	if err != nil {
		return false, err
	}
	return value.Truthy(v), nil
}

func (h *Host) Var(name string) (any, bool) { return h.Vars.Get(name) }

func (h *Host) Warn(msg string, pos value.Pos) {
	h.Warnings = append(h.Warnings, msg)
	h.WarningPos = append(h.WarningPos, pos)
}

func (h *Host) Deprecate(msg, _ string, _ value.Pos) { h.Deprecations = append(h.Deprecations, msg) }

func (h *Host) ArgPos(k string) value.Pos { return h.Positions[k] }

func (h *Host) KeyPos(k string) value.Pos { return h.Positions[k] }

func (h *Host) ArgItemPos(k string, _ int) value.Pos { return h.Positions[k] }

func (h *Host) FindFile(subdir, name string) (string, []string, bool) {
	return h.search().Find(subdir, name)
}

// search is the host's search path: Dirs, the last one standing for the
// play's directory.
func (h *Host) search() search.Path {
	if len(h.Dirs) == 0 {
		return search.Path{}
	}
	return search.Path{Dirs: h.Dirs[:len(h.Dirs)-1], Base: h.Dirs[len(h.Dirs)-1]}
}

func (h *Host) RenderFile(path string, opt module.FileTemplate) (string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	vars := h.Vars
	if opt.Vars != nil {
		vars = h.Vars.Copy()
		vars.Update(opt.Vars)
	}
	ropt := h.opt()
	cfg := opt.Syntax()
	ropt.Syntax = &cfg
	v, err := h.engine.RenderFile(path, string(src), template.MapVars{D: vars}, ropt)
	if err != nil || v == nil {
		return "", err
	}
	return value.Str(v), nil
}

func (h *Host) TaskDir() string { return h.Dir }

func (h *Host) Stdout() io.Writer { return &h.Out }

func (h *Host) Shared() *module.Shared { return h.State }

var _ module.Host = (*Host)(nil)
