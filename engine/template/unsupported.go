package template

import (
	"fmt"
	"reflect"

	"github.com/cfzt/cfzt-runner/engine/template/syntax"
)

// HasLookup reports whether the engine implements a lookup plugin (by
// short or fully qualified name).
func (e *Engine) HasLookup(name string) bool {
	if _, ok := e.lookups[name]; ok {
		return true
	}
	_, ok := e.lookupPlugin(name)
	return ok
}

// Unsupported lists the filters, tests and lookups src uses that the
// engine does not implement ("filter 'x'", "test 'y'", "lookup 'z'"),
// each once, in the order they are written. With expression, src is a
// bare expression (a conditional). A source that does not parse lists
// nothing: running it reports the syntax error.
func (e *Engine) Unsupported(src string, expression bool) []string {
	if expression {
		src = "{{ " + src + " }}"
	}
	nodes, err := e.parse(src, false)
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(kind, name string) {
		s := fmt.Sprintf("%s '%s'", kind, name)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	walkAST(reflect.ValueOf(nodes), func(v any) {
		switch x := v.(type) {
		case *syntax.FilterCall:
			if _, ok := e.lookupFilter(x.Name); !ok {
				add("filter", x.Name)
			}
		case *syntax.Test:
			if _, ok := e.lookupTest(x.Name); !ok {
				add("test", x.Name)
			}
		case *syntax.Call:
			fn, ok := x.Fn.(*syntax.Name)
			if !ok || (fn.Name != "lookup" && fn.Name != "query" && fn.Name != "q") || len(x.Args) == 0 {
				return
			}
			if lit, ok := x.Args[0].(*syntax.Literal); ok {
				if name, ok := lit.Value.(string); ok && !e.HasLookup(name) {
					add("lookup", name)
				}
			}
		}
	})
	return out
}

// walkAST calls visit for every pointer to a struct reachable from v
// (the parsed template's nodes and expressions), parents first.
func walkAST(v reflect.Value, visit func(any)) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			walkAST(v.Elem(), visit)
		}
	case reflect.Pointer:
		if v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return
		}
		visit(v.Interface())
		walkAST(v.Elem(), visit)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				walkAST(v.Field(i), visit)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			walkAST(v.Index(i), visit)
		}
	}
}
