package template

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

func attrParts(attr any) []any {
	if attr == nil {
		return nil
	}
	if s, ok := attr.(string); ok {
		parts := strings.Split(s, ".")
		out := make([]any, len(parts))
		for i, p := range parts {
			if p != "" && strings.Trim(p, "0123456789") == "" {
				n, err := strconv.Atoi(p)
				if err == nil {
					out[i] = n
					continue
				}
			}
			out[i] = p
		}
		return out
	}
	return []any{attr}
}

func lookupParts(item any, parts []any, def any) (any, error) {
	var err error
	for _, p := range parts {
		if item, err = getItem(item, p); err != nil {
			return nil, err
		}
		if def != nil {
			if _, u := item.(value.Undefined); u {
				item = def
			}
		}
	}
	return item, nil
}

// attrGetter returns Jinja2's make_attrgetter(attribute, postprocess, default).
func attrGetter(attribute any, lower bool, def any) func(any) (any, error) {
	parts := attrParts(attribute)
	return func(item any) (any, error) {
		v, err := lookupParts(item, parts, def)
		if err != nil {
			return nil, err
		}
		if lower {
			v = ignoreCase(v)
		}
		return v, nil
	}
}

// multiAttrGetter returns Jinja2's make_multi_attrgetter: a list of keys.
func multiAttrGetter(attribute any, lower bool) func(any) (any, error) {
	var split []any
	if s, ok := attribute.(string); ok {
		for _, p := range strings.Split(s, ",") {
			split = append(split, p)
		}
	} else {
		split = []any{attribute}
	}
	getters := make([]func(any) (any, error), len(split))
	for i, s := range split {
		getters[i] = attrGetter(s, lower, nil)
	}
	return func(item any) (any, error) {
		out := make([]any, len(getters))
		for i, g := range getters {
			v, err := g(item)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
}

func ignoreCase(v any) any {
	if s, ok := v.(string); ok {
		return strings.ToLower(s)
	}
	return v
}

// getAttr implements Jinja2's obj.attr: a Python attribute (a method) wins
// over a dict key, then the key, else an Undefined.
func getAttr(obj any, attr string) any {
	switch o := obj.(type) {
	case value.Undefined:
		return o
	case *value.Dict:
		if py.HasMethod(obj, attr) {
			return &boundMethod{recv: obj, name: attr}
		}
		if v, ok := o.Get(attr); ok {
			return v
		}
	case *namespace:
		if v, ok := o.get(attr); ok {
			return v
		}
	case *templateModule:
		if v, ok := o.exports.Get(attr); ok {
			return v
		}
	case *templateRef:
		return o.block(attr)
	case blockRef:
		if attr == "super" {
			return o.super()
		}
	case *loopInfo:
		if v, ok := o.attr(attr); ok {
			return v
		}
		if attr == "cycle" {
			return &boundMethod{recv: obj, name: attr}
		}
	case *groupTuple:
		switch attr {
		case "grouper":
			return o.t[0]
		case "list":
			return o.t[1]
		}
	case *py.Datetime, *py.Timedelta:
		if v, ok := py.Attr(obj, attr); ok {
			return v
		}
		if py.HasMethod(obj, attr) {
			return &boundMethod{recv: obj, name: attr}
		}
	case markup:
		return getAttr(string(o), attr)
	default:
		if py.HasMethod(obj, attr) {
			return &boundMethod{recv: obj, name: attr}
		}
		if attr == "real" && value.IsNumber(obj) {
			return obj
		}
	}
	return noAttr(obj, attr)
}

// getItem implements Jinja2's obj[key]: the item first, then an attribute.
func getItem(obj, key any) (any, error) {
	obj = plain(obj)
	switch o := obj.(type) {
	case value.Undefined:
		return o, nil
	case *value.Dict:
		if k, ok := key.(string); ok {
			if v, ok := o.Get(k); ok {
				return v, nil
			}
			return noAttr(obj, k), nil
		}
		if v, ok := o.Get(value.Str(key)); ok && value.IsNumber(key) {
			return v, nil
		}
		return value.Undefined{Msg: "object of type 'dict' has no attribute " + value.Repr(key)}, nil
	case []any, value.Tuple, string:
		i, ok := value.AsInt(key)
		if !ok {
			if s, isStr := key.(string); isStr {
				return getAttr(obj, s), nil
			}
			return nil, TypeErrorf("list indices must be integers or slices, not %s", value.TypeName(key))
		}
		n := seqLen(obj)
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return value.Undefined{Msg: "object of type '" + value.TypeName(obj) + "' has no attribute " + value.Repr(key)}, nil
		}
		return seqIndex(obj, i), nil
	case *loopInfo, *namespace:
		if s, ok := key.(string); ok {
			return getAttr(obj, s), nil
		}
	}
	if s, ok := key.(string); ok {
		return getAttr(obj, s), nil
	}
	return value.Undefined{Msg: "object of type '" + value.TypeName(obj) + "' has no attribute " + value.Repr(key)}, nil
}

func seqLen(v any) int {
	switch x := v.(type) {
	case []any:
		return len(x)
	case value.Tuple:
		return len(x)
	case string:
		return utf8.RuneCountInString(x)
	}
	return 0
}

func seqIndex(v any, i int) any {
	switch x := v.(type) {
	case []any:
		return x[i]
	case value.Tuple:
		return x[i]
	case string:
		return string([]rune(x)[i])
	}
	return nil
}
