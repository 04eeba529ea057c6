package template

import (
	"github.com/cfzt/cfzt-runner/engine/value"
)

// coreFilters returns Jinja2's built-in filters.
func coreFilters() map[string]FilterFunc {
	return map[string]FilterFunc{
		"default": filterDefault,
		"d":       filterDefault,
		"list":    filterList,
		"length":  filterLength,
		"count":   filterLength,
		"string":  func(_ *Ctx, in any, _ *Args) (any, error) { return value.Str(in), nil },
	}
}

func filterDefault(_ *Ctx, in any, a *Args) (any, error) {
	def := a.Default(0, "default_value", "")
	if _, ok := in.(value.Undefined); ok {
		return def, nil
	}
	if a.Bool(1, "boolean", false) && !value.Truthy(in) {
		return def, nil
	}
	return in, nil
}

func filterList(_ *Ctx, in any, _ *Args) (any, error) {
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	return append([]any{}, items...), nil
}

func filterLength(_ *Ctx, in any, _ *Args) (any, error) {
	switch x := in.(type) {
	case *value.Dict:
		return x.Len(), nil
	case string, []any, value.Tuple:
		return seqLen(x), nil
	case *rangeVal:
		return len(x.list()), nil
	}
	return nil, typeErrorf("object of type '%s' has no len()", value.TypeName(in))
}
