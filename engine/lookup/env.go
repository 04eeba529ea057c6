package lookup

import (
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// envLookups returns ansible-core's env lookup, which reads the run's
// environment (Engine.Getenv). It takes undefined terms and an undefined
// default as values.
func envLookups() template.Library {
	return template.Library{Collection: "ansible.builtin",
		Lookups:       map[string]template.LookupFunc{"env": lookupEnv},
		LookupOptions: optionsOf("env"),
		TakeUndefined: []string{"env"},
	}
}

// lookupEnv returns the value of the environment variable each term names
// (its first word); an unset one is the default option, or an undefined
// value when the default is undef().
func lookupEnv(c *template.Ctx, terms []any, a *template.Args) ([]any, error) {
	opts, err := c.LookupOptions("env", a)
	if err != nil {
		return nil, err
	}
	def := opts["default"]
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		if u, undefined := t.(value.Undefined); undefined {
			// An undefined term gives an undefined value.
			out = append(out, u)
			continue
		}
		s, ok := t.(string)
		if !ok {
			return nil, template.TypeErrorf("'%s' object has no attribute 'split'", value.TypeName(t))
		}
		fields := strings.Fields(s)
		if len(fields) == 0 {
			return nil, template.TypeErrorf("list index out of range")
		}
		name := fields[0]
		switch v, set := c.Engine().Getenv(name); {
		case set:
			out = append(out, v)
		case template.IsUndefWithoutHint(def):
			// default=undef(): an unset variable is undefined, with a
			// message that names it.
			out = append(out, value.Undefined{Msg: fmt.Sprintf("The environment variable %s is not set.", value.Repr(name))})
		default:
			out = append(out, def)
		}
	}
	return out, nil
}
