package template

import (
	"errors"

	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Link is one event of a template error as ansible-core 2.19 displays it:
// consecutive events without their own origin are joined with ": " into
// one section; an event with an origin (or Detached) starts a new
// "<<< caused by >>>" section. An error's Error() is every link's message
// joined that way.
type Link struct {
	Msg string
	// Origin is where the event happened: nil when it has none of its own,
	// a zero Pos for "Origin: <unknown>".
	Origin *value.Pos
	// Note is shown under an unknown origin (the offending value's repr).
	Note string
	// Help is advice shown after the message in its section.
	Help string
	// Detached starts a new section although the event has no origin: the
	// exception was raised while handling another one.
	Detached bool
}

// Links returns the events of a template error, outermost first.
func Links(err error) []Link {
	switch e := err.(type) {
	case nil:
		return nil
	case *VarError:
		l := Links(e.Err)
		if len(l) > 0 && l[0].Origin == nil {
			p := e.Pos
			l[0].Origin = &p
		}
		return l
	case *PluginError:
		cause := causeLinks(e.Cause)
		if len(cause) > 0 && e.Detached() {
			cause[0].Detached = true
		}
		return append([]Link{{Msg: e.Message()}}, cause...)
	case *RuntimeError:
		inner := Link{Msg: e.Msg}
		if e.UnknownOrigin {
			inner.Origin, inner.Note = &value.Pos{}, e.Value
		}
		return []Link{{Msg: "Error rendering template."}, inner}
	case *FilterError:
		switch {
		case e.Value != "":
			return []Link{{Msg: e.Msg, Origin: &value.Pos{}, Note: e.Value}}
		case e.Help != "":
			return []Link{{Msg: e.Msg, Help: e.Help}}
		}
	case *recursionError:
		return []Link{{Msg: "Recursive loop detected in template."}, {Msg: "maximum recursion depth exceeded", Detached: true}}
	}
	var ve *VarError
	if errors.As(err, &ve) {
		return Links(ve)
	}
	return []Link{{Msg: err.Error()}}
}

// causeLinks are the events of a plugin's own error, whose Python
// exceptions have no "Error rendering template" wrapper.
func causeLinks(err error) []Link {
	switch e := err.(type) {
	case *RuntimeError:
		return []Link{{Msg: e.Msg}}
	case *TemplateSyntaxError:
		return []Link{{Msg: e.Msg}}
	}
	return Links(err)
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
