package template

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// varLookups returns ansible-core's lookups of variables and the environment.
func varLookups() family {
	return family{collection: "ansible.builtin", lookups: map[string]LookupFunc{
		"env":  lookupEnv,
		"vars": lookupVars,
	}}
}

func lookupEnv(c *Ctx, terms []any, a *Args) ([]any, error) {
	def, hasDef := "", false
	var defV any
	if a.Kw != nil {
		if v, ok := a.Kw.Get("default"); ok {
			defV, hasDef = v, true
		}
	}
	_ = def
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		s, ok := t.(string)
		if !ok {
			return nil, typeErrorf("'%s' object has no attribute 'split'", value.TypeName(t))
		}
		fields := strings.Fields(s)
		if len(fields) == 0 {
			return nil, typeErrorf("list index out of range")
		}
		name := fields[0]
		if v, ok := c.Engine().Getenv(name); ok {
			out = append(out, v)
		} else if hasDef {
			out = append(out, defV)
		} else {
			out = append(out, "")
		}
	}
	return out, nil
}

func lookupVars(c *Ctx, terms []any, a *Args) ([]any, error) {
	kw, err := lookupOptions("vars", a, "default")
	if err != nil {
		return nil, err
	}
	def, hasDef := kw.Get("default")
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		name, ok := t.(string)
		if !ok {
			return nil, Errorf("Variable name must be 'str' not %s.", value.Repr(value.TypeName(t)))
		}
		v := c.lookupName(name)
		if u, isU := v.(value.Undefined); isU {
			if _, isGlobal := c.eng.globals[name]; isGlobal || u.Msg == undefinedName(name).Msg {
				if hasDef && def != nil {
					out = append(out, def)
					continue
				}
				return nil, &UndefinedError{Msg: "No variable named '" + name + "' was found."}
			}
			return nil, undefinedErr(u)
		}
		if _, isGlobal := v.(globalFunc); isGlobal {
			if hasDef && def != nil {
				out = append(out, def)
				continue
			}
			return nil, &UndefinedError{Msg: "No variable named '" + name + "' was found."}
		}
		out = append(out, v)
	}
	return out, nil
}
