package template

import "github.com/cfzt/cfzt-runner/engine/value"

// ansibleFilters returns the filters Ansible adds to Jinja2's.
func ansibleFilters() map[string]FilterFunc {
	return map[string]FilterFunc{
		"mandatory": func(_ *Ctx, in any, a *Args) (any, error) {
			if u, ok := in.(value.Undefined); ok {
				if msg, ok := a.Get(0, "msg"); ok && msg != nil {
					return nil, Errorf("%s", value.Str(msg))
				}
				return nil, Errorf("Mandatory variable %s not defined.", u.Msg)
			}
			return in, nil
		},
	}
}
