package template

import (
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/settings"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// varLookups returns ansible-core's lookups of variables.
func varLookups() Library {
	return Library{Collection: "ansible.builtin",
		Lookups: map[string]LookupFunc{
			"vars":     lookupVars,
			"varnames": lookupVarnames,
		},
		LookupOptions: map[string]map[string]settings.Def{"vars": {"default": {}}},
	}
}

// lookupVars returns the variables the terms name. A missing one is the
// default option when it is set, or an undefined value that fails where
// it is used (so that a default filter can still catch it).
func lookupVars(c *Ctx, terms []any, a *Args) ([]any, error) {
	opts, err := c.LookupOptions("vars", a)
	if err != nil {
		return nil, err
	}
	def := opts["default"]
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		name, ok := t.(string)
		if !ok {
			return nil, &FilterError{Msg: fmt.Sprintf("Variable name must be 'str' not %s.", value.Repr(value.TypeName(t))), Value: value.Repr(t)}
		}
		v := c.lookupName(name)
		_, isGlobal := c.eng.globals[name]
		if u, isU := v.(value.Undefined); isU && !isGlobal && u.Msg != undefinedName(name).Msg {
			return nil, UndefinedErr(u)
		}
		switch v.(type) {
		case value.Undefined, globalFunc:
			if def != nil {
				v = def
			} else {
				v = value.Undefined{Msg: "No variable named '" + name + "' was found."}
			}
		}
		out = append(out, v)
	}
	return out, nil
}

// lookupVarnames returns the names of the variables (all of them, as the
// `vars` variable holds them) that each term, a Python regular
// expression, finds a match in: term by term, in the variables' order.
func lookupVarnames(c *Ctx, terms []any, _ *Args) ([]any, error) {
	all, _ := c.lookupName("vars").(*value.Dict)
	var names []string
	if all != nil {
		names = all.Keys()
	}
	var out []any
	for _, t := range terms {
		pattern, ok := t.(string)
		if !ok {
			return nil, Errorf("Invalid setting identifier, \"%s\" is not a string, it is a <class '%s'>", value.Str(t), value.TypeName(t))
		}
		re, err := py.CompileRegex(pattern, false, false)
		if err != nil {
			return nil, Errorf("Unable to use \"%s\" as a search parameter: %s", pattern, err.Error())
		}
		for _, n := range names {
			matched, err := re.MatchString(n)
			if err != nil {
				return nil, Errorf("%s", err.Error())
			}
			if matched {
				out = append(out, n)
			}
		}
	}
	return out, nil
}
