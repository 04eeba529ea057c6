package template

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/settings"
	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/engine/vault"
)

// Vars is the variable source of a render.
type Vars interface {
	// Lookup returns the value of name; templated reports that the value
	// came from a playbook source and may hold templates to render on use.
	Lookup(name string) (v any, templated bool, ok bool)
}

// MapVars adapts a Dict of already-resolved values to Vars.
type MapVars struct{ D *value.Dict }

// Lookup implements Vars.
func (m MapVars) Lookup(name string) (any, bool, bool) {
	v, ok := m.D.Get(name)
	return v, false, ok
}

// Engine holds the filters, tests, lookups and globals of a run and a cache
// of parsed templates. It is safe for concurrent use.
type Engine struct {
	filters map[string]FilterFunc
	tests   map[string]TestFunc
	lookups map[string]LookupFunc
	// lookupOpts and takesUndefined are the libraries' LookupOptions
	// and TakeUndefined.
	lookupOpts     map[string]map[string]settings.Def
	takesUndefined map[string]bool
	libs           []Library // the libraries registered, for PluginNames
	globals        map[string]any
	cache          *sync.Map // cacheKey or configKey -> []syntax.Node; shared by WithResolver's copies

	// Getenv reads the environment for lookup('env'); Environ is the
	// whole environment, which the commands of lookup('pipe') and
	// lookup('lines') run with. Now gives the time.
	Getenv  func(string) (string, bool)
	Environ func() []string
	Now     func() time.Time
	// Settings are the ansible.cfg and ANSIBLE_* settings that
	// lookup('config') and lookup options read; nil means the environment
	// alone, without a config file.
	Settings *settings.Source
	// Vault holds the secrets that decrypt `!vault` values where they
	// are used; nil is a run given none.
	Vault *vault.Keyring
	// NoEmbeddedTemplates is ALLOW_EMBEDDED_TEMPLATES=False: string
	// constants of conditionals and lookup terms that hold a template stay
	// the plain strings they are, instead of being rendered (with a
	// warning) as ansible-core 2.19 does by default.
	NoEmbeddedTemplates bool
	// Resolver finds the filters, tests and lookups the engine does not
	// have built in (the run's Python plugins); nil finds none.
	Resolver PluginResolver
}

// New returns an engine with the language's own filters, tests and
// lookups and those of libs: the composition root passes engine/lookup's
// library, the plugins that read files, run processes and fetch URLs; an
// engine without it is the template language alone.
func New(libs ...Library) *Engine {
	e := &Engine{
		cache:          &sync.Map{},
		filters:        map[string]FilterFunc{},
		tests:          map[string]TestFunc{},
		lookups:        map[string]LookupFunc{},
		lookupOpts:     map[string]map[string]settings.Def{},
		takesUndefined: map[string]bool{},
		globals:        builtinGlobals(),
		Getenv:         os.LookupEnv,
		Environ:        os.Environ,
		Now:            time.Now,
	}
	e.libs = append(families(), libs...)
	if err := e.register(e.libs); err != nil {
		// Libraries are static tables; TestFamiliesRegisterEachNameOnce and
		// engine/lookup's TestLibraryRegisters keep them free of duplicates,
		// so this is a programming error, as in regexp.MustCompile.
		panic(err)
	}
	return e
}

// RegisterFilter adds or replaces a filter.
func (e *Engine) RegisterFilter(name string, f FilterFunc) { e.filters[name] = f }

// RegisterLookup adds or replaces a lookup plugin (collections' lookups,
// such as kubernetes.core.k8s, register from their module package).
func (e *Engine) RegisterLookup(name string, f LookupFunc) { e.lookups[name] = f }

// HasMarkers reports whether s may be a template and so needs rendering:
// it contains Jinja2's start delimiters or starts with a #jinja2: header
// (ansible-core's is_possibly_template).
func HasMarkers(s string) bool { return isTemplate(s, nil) }

// cacheKey identifies a template parsed with the default environment: its
// source and whether string constants in {{ }} are raw.
type cacheKey struct {
	src string
	raw bool
}

// configKey identifies a template parsed with other environment options;
// it is kept apart so that the common key stays small.
type configKey struct {
	cacheKey
	cfg syntax.Config
}

// parse parses src with the default environment.
func (e *Engine) parse(src string, rawVarStrings bool) ([]syntax.Node, error) {
	return e.parseConfig(src, rawVarStrings, nil)
}

// parseConfig parses src with the environment cfg (nil for the default).
func (e *Engine) parseConfig(src string, rawVarStrings bool, cfg *syntax.Config) ([]syntax.Node, error) {
	if cfg == nil || *cfg == syntax.Default() {
		// The key is converted for Load and Store apart: the conversion
		// for Load does not escape, so the common hit allocates nothing.
		key := cacheKey{src, rawVarStrings}
		if n, ok := e.cache.Load(key); ok {
			return n.([]syntax.Node), nil
		}
		nodes, err := parseSyntax(src, rawVarStrings, syntax.Default())
		if err == nil {
			e.cache.Store(key, nodes)
		}
		return nodes, err
	}
	key := configKey{cacheKey{src, rawVarStrings}, *cfg}
	if n, ok := e.cache.Load(key); ok {
		return n.([]syntax.Node), nil
	}
	nodes, err := parseSyntax(src, rawVarStrings, *cfg)
	if err == nil {
		e.cache.Store(key, nodes)
	}
	return nodes, err
}

// parseSyntax parses a template, its syntax errors as the engine's.
func parseSyntax(src string, rawVarStrings bool, cfg syntax.Config) ([]syntax.Node, error) {
	nodes, err := syntax.ParseConfig(src, rawVarStrings, cfg)
	if se, ok := err.(*syntax.SyntaxError); ok {
		return nil, &TemplateSyntaxError{Msg: se.Msg, Line: se.Line, Col: se.Col}
	}
	return nodes, err
}

// Options adjust one render.
type Options struct {
	// Search is the task's search path, where lookups find files; its
	// Base (the play's directory) is where pipe and lines run commands.
	Search search.Path
	// Hosts selects inventory hostnames by host pattern for
	// lookup('inventory_hostnames'), from the groups variable as
	// ansible-core rebuilds an inventory from it; nil selects none.
	Hosts func(groups *value.Dict, patterns []string) []string
	// LoopAction is the task's action when a with_<lookup> loop runs the
	// lookup (Query): first_found chooses its subdirectory from it.
	LoopAction string
	// Locals are variables that shadow Vars (loop variables and the like).
	Locals *value.Dict
	// Warn receives the warnings of the render; nil drops them. atValue
	// marks a warning about the value being rendered (a type conversion),
	// which the caller shows at the position that value was written: the
	// engine does not know it.
	Warn func(w *diag.Diagnostic, atValue bool)
	// Conditional evaluates as ansible-core evaluates conditionals, whose
	// string constants keep Jinja2's backslash escapes (see parse).
	Conditional bool
	// Markers, when set, replaces failing outputs with placeholders instead
	// of failing the render (see Markers).
	Markers *Markers
	// Syntax, when set, replaces ansible-core's default environment for
	// the template itself (the delimiters and whitespace options of the
	// template module and lookup). As in ansible-core, the templates held
	// by the variables it uses keep the default.
	Syntax *syntax.Config
}

// Markers implements ansible-core's ReplacingMarkerBehavior, used for task
// names and debug's var: each {{ }} output (or expression) that fails on an
// undefined value renders as "<< error N - message >>" and the messages are
// collected for an "Encountered N template error(s)." warning.
type Markers struct {
	// All replaces every template error, not only undefined values.
	All bool
	// Messages are the replaced errors, in order.
	Messages []string
}

// replace returns the placeholder for err, or false when err is not one
// to replace.
func (m *Markers) replace(err error) (string, bool) {
	if m == nil || (!m.All && !IsUndefined(err)) {
		return "", false
	}
	m.Messages = append(m.Messages, plainMsg(err))
	return fmt.Sprintf("<< error %d - %s >>", len(m.Messages), plainMsg(err)), true
}

// Warning returns the warning ansible-core prints for the replaced errors,
// or "" when there were none.
func (m *Markers) Warning() string {
	if m == nil || len(m.Messages) == 0 {
		return ""
	}
	plural := ""
	if len(m.Messages) > 1 {
		plural = "s"
	}
	msg := fmt.Sprintf("Encountered %d template error%s.", len(m.Messages), plural)
	for i, e := range m.Messages {
		msg += fmt.Sprintf("\nerror %d - %s", i+1, e)
	}
	return msg
}

// Render renders src with vars. A template that is exactly one expression
// keeps the expression's type (ansible-core 2.19 native typing); anything
// else is a string. A string without delimiters is returned unchanged.
func (e *Engine) Render(src string, vars Vars, opt Options) (any, error) {
	if !isTemplate(src, opt.Syntax) {
		return src, nil
	}
	c := e.newCtx(vars, opt)
	v, err := c.render(src)
	if err == nil {
		v, err = c.finalize(v)
	}
	if s, ok := opt.Markers.replace(err); ok {
		return s, nil
	}
	return v, err
}

// RenderFile renders the text of the template file at path as the
// template module and lookup do: string constants keep Jinja2's backslash
// escapes, opt.Syntax holds the file's environment options, and an error
// without an origin of its own has the file as its origin.
func (e *Engine) RenderFile(path, src string, vars Vars, opt Options) (any, error) {
	if !isTemplate(src, opt.Syntax) {
		return src, nil
	}
	c := e.newCtx(vars, opt)
	c.jinjaEscapes = true
	// The template action searches the task's search path, then the
	// file's own directory.
	c.includePaths = includePaths(append(searchDirs(opt), filepath.Dir(path)))
	v, err := c.render(src)
	if err == nil {
		v, err = c.finalize(v)
	}
	if err != nil {
		return nil, AtFile(path, err)
	}
	return v, nil
}

// AtFile gives err the template file at path as its origin, unless it
// already has one (an error in a variable's template keeps that
// variable's origin).
func AtFile(path string, err error) error {
	var ve *VarError
	var oe *originlessError
	if errors.As(err, &ve) || errors.As(err, &oe) {
		return err
	}
	return &VarError{Pos: value.Pos{File: path}, Err: err, File: true}
}

// RenderValue renders every string inside v (lists and dicts recursively).
func (e *Engine) RenderValue(v any, vars Vars, opt Options) (any, error) {
	c := e.newCtx(vars, opt)
	r, err := c.resolveDeep(v, false, nil)
	if err != nil {
		return nil, err
	}
	return c.finalize(r)
}

// RenderTerms renders the terms of a with_<lookup> loop. For a lookup
// that takes undefined values (first_found), an element that fails to
// render becomes an undefined value the lookup can skip, as ansible-core's
// lazy templating leaves a marker in its place; for any other lookup it is
// RenderValue.
func (e *Engine) RenderTerms(lookup string, v any, vars Vars, opt Options) (any, error) {
	if !e.takesUndefined[stripFQCN(lookup)] {
		return e.RenderValue(v, vars, opt)
	}
	return e.newCtx(vars, opt).resolveDeep(v, true, nil)
}

// Eval evaluates a bare Jinja2 expression, as used by `when` and
// `failed_when`, and returns its value.
func (e *Engine) Eval(expression string, vars Vars, opt Options) (any, error) {
	opt.Conditional = true
	c := e.newCtx(vars, opt)
	src := "{{ " + expression + " }}"
	if err := e.expressionSyntax(expression, src, !c.jinjaEscapes); err != nil {
		return nil, err
	}
	v, err := c.render(src)
	if err == nil {
		v, err = c.finalize(v)
	}
	if s, ok := opt.Markers.replace(err); ok {
		return s, nil
	}
	return v, err
}

// warningKey identifies a warning within one render.
type warningKey struct {
	severity             diag.Severity
	summary, help, since string
	atValue              bool
}

func (e *Engine) newCtx(vars Vars, opt Options) *Ctx {
	if warn := opt.Warn; warn != nil {
		// One render reports each distinct warning once.
		var seen map[warningKey]bool
		opt.Warn = func(w *diag.Diagnostic, atValue bool) {
			k := warningKey{w.Severity, w.Summary, w.Help, w.Version, atValue}
			if !seen[k] {
				if seen == nil {
					seen = map[warningKey]bool{}
				}
				seen[k] = true
				warn(w, atValue)
			}
		}
	}
	c := &Ctx{eng: e, vars: vars, opt: opt, resolved: map[string]any{}, resolving: map[string]bool{}, jinjaEscapes: opt.Conditional, syntax: opt.Syntax}
	// Only the top-level template has these options (see Options.Syntax).
	c.opt.Syntax = nil
	if opt.Locals != nil && opt.Locals.Len() > 0 {
		c.scopes = []*value.Dict{opt.Locals}
	}
	return c
}
