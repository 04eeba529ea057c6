package template

import (
	"github.com/cfzt/cfzt-runner/engine/diag"

	"github.com/cfzt/cfzt-runner/engine/template/syntax"
)

// Diagnose implements diag.Diagnoser: the error of the template a
// variable holds, with that variable's position as the origin of its
// first link that has none.
func (e *VarError) Diagnose() *diag.Diagnostic {
	d := diag.Of(e.Err)
	if d == nil || d.Origin != nil || (!e.File && pluginFailure(e.Err)) {
		// A plugin's failure shows at the value being resolved, not at
		// the variable whose template called the plugin.
		return d
	}
	c := *d
	p := e.Pos
	c.Origin = &p
	return &c
}

// pluginFailure reports a filter or lookup failure, through the
// variables whose templates led to it.
func pluginFailure(err error) bool {
	for {
		switch e := err.(type) {
		case *VarError:
			err = e.Err
		case *PluginError:
			return true
		default:
			return false
		}
	}
}

// Diagnose implements diag.Diagnoser: "The filter plugin 'X' failed."
// caused by the plugin's own error, in a section of its own when Python
// raised it while handling another exception.
func (e *PluginError) Diagnose() *diag.Diagnostic {
	cause := pluginCause(e.Cause)
	if cause != nil && cause.Summary == "" && cause.Cause == nil && cause.Origin == nil {
		cause = nil // an exception with no message (MemoryError)
	}
	if cause != nil && e.Detached() {
		c := *cause
		c.Detached = true
		cause = &c
	}
	return &diag.Diagnostic{Summary: e.Message(), Cause: cause}
}

// pluginCause is the diagnostic of a plugin's own error, whose Python
// exceptions have no "Error rendering template" wrapper.
func pluginCause(err error) *diag.Diagnostic {
	switch e := err.(type) {
	case *RuntimeError:
		return &diag.Diagnostic{Summary: e.Msg}
	case *TemplateSyntaxError:
		return &diag.Diagnostic{Summary: e.Msg}
	}
	return diag.Of(err)
}

// Diagnose implements diag.Diagnoser: "Error rendering template." caused
// by the Python exception, which has an unknown origin of its own when
// ansible-core shows the offending value.
func (e *RuntimeError) Diagnose() *diag.Diagnostic {
	if e.Msg == "" && !e.UnknownOrigin {
		// An exception with no message (MemoryError) adds nothing.
		return &diag.Diagnostic{Summary: "Error rendering template."}
	}
	inner := &diag.Diagnostic{Summary: e.Msg}
	if e.UnknownOrigin {
		inner.Origin, inner.Note = diag.Unknown(), e.Value
	}
	return &diag.Diagnostic{Summary: "Error rendering template.", Cause: inner}
}

// Diagnose implements diag.Diagnoser: the plugin's message, with the
// offending value under an unknown origin, or its help.
func (e *FilterError) Diagnose() *diag.Diagnostic {
	d := &diag.Diagnostic{Summary: e.Msg}
	switch {
	case e.Value != "":
		d.Origin, d.Note = diag.Unknown(), e.Value
	case e.Help != "":
		d.Help = e.Help
	}
	return d
}

// Diagnose implements diag.Diagnoser: Python's RecursionError from a
// macro is one message (the oracle's limit-macro-recursion).
func (*macroRecursionError) Diagnose() *diag.Diagnostic {
	return &diag.Diagnostic{Summary: "Recursive loop detected in template: maximum recursion depth exceeded"}
}

// Diagnose implements diag.Diagnoser.
func (*recursionError) Diagnose() *diag.Diagnostic {
	return &diag.Diagnostic{Summary: "Recursive loop detected in template.",
		Cause: &diag.Diagnostic{Summary: "maximum recursion depth exceeded", Detached: true}}
}

// ExprVarRef reports whether expression is a plain variable reference —
// a name followed by constant attribute or item accesses, as in
// `cfg.db['port']` — and returns the variable and the key path. Its value
// then has the origin of that variable element (see Origins), as
// ansible-core reports for a conditional's non-boolean result.
func (e *Engine) ExprVarRef(expression string) (name string, path []any, ok bool) {
	nodes, err := e.parse("{{ "+expression+" }}", false)
	if err != nil {
		return "", nil, false
	}
	o, ok := singleOutput(nodes)
	if !ok {
		return "", nil, false
	}
	var walk func(x syntax.Expr) bool
	walk = func(x syntax.Expr) bool {
		switch n := x.(type) {
		case *syntax.Name:
			name = n.Name
			return true
		case *syntax.Attr:
			if !walk(n.Obj) {
				return false
			}
			path = append(path, n.Attr)
			return true
		case *syntax.Item:
			lit, isLit := n.Key.(*syntax.Literal)
			if !isLit || !walk(n.Obj) {
				return false
			}
			path = append(path, lit.Value)
			return true
		}
		return false
	}
	if !walk(o.Expr) {
		return "", nil, false
	}
	return name, path, true
}

// Diagnose implements diag.Diagnoser: "Error rendering template." (or
// expression) caused by the use of the undecryptable value, at the
// `!vault` tag that holds it.
func (e *VaultError) Diagnose() *diag.Diagnostic {
	p := e.Pos
	return &diag.Diagnostic{Summary: "Error rendering " + e.what() + ".",
		Cause: &diag.Diagnostic{Summary: e.use(), Origin: &p, Wrapped: e.Err}}
}
