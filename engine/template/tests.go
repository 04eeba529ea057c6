package template

import "github.com/cfzt/cfzt-runner/engine/value"

// builtinTests returns Jinja2's and Ansible's tests.
func builtinTests() map[string]TestFunc {
	return map[string]TestFunc{
		"defined": func(_ *Ctx, in any, _ *Args) (bool, error) {
			_, u := in.(value.Undefined)
			return !u, nil
		},
		"undefined": func(_ *Ctx, in any, _ *Args) (bool, error) {
			_, u := in.(value.Undefined)
			return u, nil
		},
		"none": func(_ *Ctx, in any, _ *Args) (bool, error) { return in == nil, nil },
	}
}
