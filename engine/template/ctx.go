package template

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Ctx is the state of one render: the variable source, local scopes opened
// by {% for %} and {% set %}, and the variables already resolved.
type Ctx struct {
	eng       *Engine
	vars      Vars
	opt       Options
	scopes    []*value.Dict
	resolved  map[string]any
	resolving map[string]bool
	// depth counts the nested renders (variables, includes); int32 keeps
	// Ctx within its allocation size class.
	depth int32
	// calls counts the macro calls under way in this context (macro.call),
	// which stop as Python's recursion limit stops Jinja2's.
	calls int32
	// jinjaEscapes keeps Jinja2's backslash escapes in {{ }} string
	// constants: true for conditionals and template files, false for
	// templates from YAML (ansible-core's escape_backslashes).
	jinjaEscapes bool
	// syntax is the environment of the template being rendered, nil for
	// ansible-core's default (see Options.Syntax).
	syntax *syntax.Config
	// includePaths is where {% include %} finds template files; only the
	// render of a template file has one.
	includePaths []string
	// layout is the inheritance state of a template that uses it (see
	// inherit.go).
	layout *layoutState
}

// Engine returns the engine of the render.
func (c *Ctx) Engine() *Engine { return c.eng }

// Var returns a variable, rendering it if it holds templates.
func (c *Ctx) Var(name string) (any, error) {
	v := c.lookupName(name)
	if u, ok := v.(value.Undefined); ok {
		return nil, UndefinedErr(u)
	}
	return v, nil
}

// Vars returns the variable source.
func (c *Ctx) Vars() Vars { return c.vars }

func (c *Ctx) lookupName(name string) any {
	if c.layout != nil {
		if v, ok := c.inheritanceName(name); ok {
			return v
		}
	}
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if v, ok := c.scopes[i].Get(name); ok {
			return v
		}
	}
	if v, ok := c.resolved[name]; ok {
		return v
	}
	raw, templated, ok := c.vars.Lookup(name)
	if d, isDep := raw.(DeprecatedVar); ok && isDep {
		w := diag.Deprecate(d.Msg, d.Version, nil)
		w.Help = d.Help
		c.warnAtValue(w)
		raw = d.Value
	}
	if !ok {
		if g, ok := c.eng.globals[name]; ok {
			return g
		}
		return undefinedName(name)
	}
	if !templated {
		switch x := raw.(type) {
		case value.Unsafe:
			return string(x)
		case value.Untrusted:
			return x.V
		case value.Vaulted:
			v, err := c.decrypt(x)
			if err != nil {
				return errUndefined(err)
			}
			return v
		}
		return raw
	}
	if c.resolving[name] {
		return errUndefined(c.atVar(name, nil, &recursionError{}))
	}
	c.resolving[name] = true
	v, err := c.resolveDeep(raw, true, &varRef{name: name})
	delete(c.resolving, name)
	if err != nil {
		v = errUndefined(err)
	}
	c.resolved[name] = v
	return v
}

// varRef names the variable (and the key path inside it) whose value is
// being resolved, to give errors its origin.
type varRef struct {
	name string
	path []any
}

func (r *varRef) child(key any) *varRef {
	if r == nil {
		return nil
	}
	return &varRef{name: r.name, path: append(append([]any(nil), r.path...), key)}
}

// atVar gives err the origin of the variable value it came from, when the
// variable source knows it and err has none yet.
func (c *Ctx) atVar(name string, path []any, err error) error {
	o, ok := c.vars.(Origins)
	if !ok {
		return err
	}
	var ve *VarError
	if errors.As(err, &ve) {
		return err
	}
	pos, ok := o.Origin(name, path)
	if !ok {
		return err
	}
	return &VarError{Pos: pos, Err: err}
}

// resolveDeep renders the templates inside a value from a playbook source.
// With lazy set, a failing element becomes an Undefined carrying the error,
// so that only its use fails, as with ansible-core's lazy containers.
func (c *Ctx) resolveDeep(v any, lazy bool, ref *varRef) (any, error) {
	switch x := v.(type) {
	case []any:
		if len(x) > 0 {
			return c.resolveShared(v, lazy, ref, map[any]any{})
		}
	case *value.Dict:
		return c.resolveShared(v, lazy, ref, map[any]any{})
	}
	return c.resolveShared(v, lazy, ref, nil)
}

// resolveShared is resolveDeep remembering, in memo, the result of each
// container it resolved: a container met again (a YAML alias shares its
// anchor's value) is resolved once, so nested aliases cost what their
// text costs rather than what their expansion would. memo is nil only
// for a scalar.
func (c *Ctx) resolveShared(v any, lazy bool, ref *varRef, memo map[any]any) (any, error) {
	var id any
	switch x := v.(type) {
	case string:
		if !HasMarkers(x) {
			return x, nil
		}
		sub := &Ctx{eng: c.eng, vars: c.vars, opt: c.opt, resolved: c.resolved, resolving: c.resolving, depth: c.depth + 1}
		if sub.depth > 200 {
			return nil, &recursionError{}
		}
		r, err := sub.render(x)
		if err == nil {
			r, err = sub.finalize(r)
		}
		if err != nil && ref != nil {
			err = c.atVar(ref.name, ref.path, err)
		}
		return r, err
	case value.Unsafe:
		return string(x), nil
	case value.Untrusted:
		// Data among trusted values: never rendered.
		return x.V, nil
	case value.Vaulted:
		return c.decrypt(x)
	case []any:
		if len(x) == 0 {
			return x, nil
		}
		id = [2]any{&x[0], len(x)}
	case *value.Dict:
		id = x
	default:
		return v, nil
	}
	if r, ok := memo[id]; ok {
		return r, nil
	}
	var r any
	var err error
	switch x := v.(type) {
	case []any:
		r, err = value.MapList(x, func(i int, e any) (any, error) {
			return c.resolveElem(e, lazy, ref.child(i), memo)
		})
	case *value.Dict:
		// ansible-core 2.19 templates dict values, never keys.
		r, err = value.MapDict(x, func(k string, e any) (any, error) {
			return c.resolveElem(e, lazy, ref.child(k), memo)
		})
	}
	if err != nil {
		return nil, err
	}
	memo[id] = r
	return r, nil
}

// resolveElem resolves a container element; in lazy mode a failing element
// becomes an undefined that fails only where it is used.
func (c *Ctx) resolveElem(e any, lazy bool, ref *varRef, memo map[any]any) (any, error) {
	r, err := c.resolveShared(e, lazy, ref, memo)
	if err != nil && lazy {
		return errUndefined(err), nil
	}
	return r, err
}

// decrypt returns the plaintext of a `!vault` value, or the error
// ansible-core raises where a value it cannot decrypt is used, at the
// value's origin. The plaintext is data, never a template.
func (c *Ctx) decrypt(x value.Vaulted) (any, error) {
	plain, err := c.eng.Vault.Decrypt([]byte(x.Text))
	if err != nil {
		return nil, &VaultError{Pos: x.Pos, Err: err, Expression: c.opt.Conditional}
	}
	return string(plain), nil
}

func errUndefined(err error) value.Undefined {
	return value.Undefined{Msg: err.Error(), Err: err}
}

// render evaluates a template in this context. As in ansible-core, a
// #jinja2: first line sets the options of the template and of those it
// loads, Jinja2 drops one trailing newline of the source, and the newlines
// a text result lost are added back in the newline sequence of the
// render's options (not of the header's).
func (c *Ctx) render(src string) (any, error) {
	cfg := syntax.Default()
	if c.syntax != nil {
		cfg = *c.syntax
	}
	newline := cfg.NewlineSequence
	body, cfg, err := splitHeader(src, cfg)
	if err != nil {
		return nil, err
	}
	if len(body) < len(src) {
		// The header's options are the environment's, in which the
		// templates this one includes or extends load too.
		header := cfg
		c.syntax = &header
	}
	nodes, err := c.eng.parseConfig(body, !c.jinjaEscapes, &cfg)
	if err != nil {
		return nil, err
	}
	var v any
	if o, ok := singleOutput(nodes); ok {
		if v, err = c.eval(o.Expr); err != nil {
			return nil, err
		}
	} else {
		var b sink
		if err := c.execBody(nodes, &b); err != nil {
			return nil, err
		}
		v = b.concatTemplate()
	}
	if s, ok := v.(string); ok {
		if missing := trailingNewlines(src) - trailingNewlines(s); missing > 0 {
			v = s + strings.Repeat(newline, missing)
		}
	}
	return v, nil
}

// singleOutput returns the output node of a template that is one {{ }}.
func singleOutput(nodes []syntax.Node) (*syntax.Output, bool) {
	if len(nodes) != 1 {
		return nil, false
	}
	o, ok := nodes[0].(*syntax.Output)
	return o, ok
}

func trailingNewlines(s string) int {
	return len(s) - len(strings.TrimRight(s, "\n"))
}

// Render renders a template file's text for a filter or lookup; as in
// ansible-core's template lookup, backslash escapes are Jinja2's.
func (c *Ctx) Render(src string) (any, error) { return c.RenderWith(src, nil) }

// RenderWith renders a template file's text with extra local variables.
func (c *Ctx) RenderWith(src string, locals *value.Dict) (any, error) {
	return c.renderFile("", src, locals, nil)
}

// RenderTemplateFile renders the text of the template file at path as the
// template lookup does: with locals (nil for none) on top of the
// variables, the environment options cfg (nil for the default), includes
// found beside the file first, and the file as the origin of an error
// without one. Its failure is the template's own, which lookup() returns
// as it is: neither wrapped in the lookup's plugin error nor hidden by
// errors='ignore' (ansible-core carries it as a marker value).
func (c *Ctx) RenderTemplateFile(path, src string, locals *value.Dict, cfg *syntax.Config) (any, error) {
	v, err := c.renderFile(path, src, locals, cfg)
	if err != nil {
		return nil, &passThrough{err}
	}
	return v, nil
}

// renderFile renders the text of the template file at path (empty when
// unknown) with locals (nil for none) on top of the variables and the
// environment options cfg (nil for the default). An error without an
// origin of its own gets the file as its origin.
func (c *Ctx) renderFile(path, src string, locals *value.Dict, cfg *syntax.Config) (any, error) {
	if !isTemplate(src, cfg) {
		return src, nil
	}
	sub := &Ctx{eng: c.eng, vars: c.vars, opt: c.opt, resolved: c.resolved, resolving: c.resolving, depth: c.depth + 1, jinjaEscapes: true, syntax: cfg}
	if path != "" {
		// ansible-core's template lookup searches the file's directory
		// first, then the task's search path.
		sub.includePaths = includePaths(append([]string{filepath.Dir(path)}, searchDirs(c.opt)...))
	}
	if locals != nil && locals.Len() > 0 {
		// Locals may shadow variables already resolved in this render.
		sub.resolved = map[string]any{}
		sub.scopes = []*value.Dict{locals}
	}
	v, err := sub.render(src)
	if err == nil {
		v, err = sub.finalize(v)
	}
	if err != nil && path != "" {
		return nil, AtFile(path, err)
	}
	return v, err
}

func (c *Ctx) pushScope() *value.Dict {
	d := value.NewDict(2)
	c.scopes = append(c.scopes, d)
	return d
}

func (c *Ctx) popScope() { c.scopes = c.scopes[:len(c.scopes)-1] }

// assign sets a template-local variable in the innermost scope.
func (c *Ctx) assign(name string, v any) {
	if len(c.scopes) == 0 {
		c.pushScope()
	}
	c.scopes[len(c.scopes)-1].Set(name, v)
}

// writeBack stores a mutated list or dict where the expression e reads it
// from, so that `{% do l.append(x) %}` inside a loop changes the outer
// variable for the rest of the render. Containers are shared
// copy-on-write (a variable, an alias of a YAML anchor, a registered
// result), so a container on the path is copied, changed and written back
// in its turn, never changed in place.
func (c *Ctx) writeBack(e syntax.Expr, v any) {
	switch x := e.(type) {
	case *syntax.Name:
		for i := len(c.scopes) - 1; i >= 0; i-- {
			if c.scopes[i].Has(x.Name) {
				c.scopes[i].Set(x.Name, v)
				return
			}
		}
		c.resolved[x.Name] = v
	case *syntax.Attr:
		switch o := c.evalQuiet(x.Obj).(type) {
		case *value.Dict:
			out := o.Copy()
			out.Set(x.Attr, v)
			c.writeBack(x.Obj, out)
		case *namespace:
			o.set(x.Attr, v)
		}
	case *syntax.Item:
		obj := c.evalQuiet(x.Obj)
		key := c.evalQuiet(x.Key)
		switch o := obj.(type) {
		case *value.Dict:
			out := o.Copy()
			out.Set(value.Str(key), v)
			c.writeBack(x.Obj, out)
		case []any:
			if i, ok := value.AsInt(key); ok && i >= 0 && i < len(o) {
				out := append([]any(nil), o...)
				out[i] = v
				c.writeBack(x.Obj, out)
			}
		}
	}
}

func (c *Ctx) evalQuiet(e syntax.Expr) any {
	v, err := c.eval(e)
	if err != nil {
		return nil
	}
	return v
}
