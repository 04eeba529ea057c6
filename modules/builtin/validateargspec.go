package builtin

import (
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// validateArgumentSpecModule is ansible.builtin.validate_argument_spec,
// which also runs, as a task of its own, at the start of every role with
// an argument spec for its entry point. It validates provided_arguments,
// over the task's variables of the same names, against argument_spec; the
// converted values are not handed back.
func validateArgumentSpecModule(req *module.Request) (*value.Dict, error) {
	res := value.NewDict(6)
	res.Set("validate_args_context", req.Args.Default("validate_args_context", value.NewDict(0)))
	// These are AnsibleErrors, not AnsibleActionFail: the result's msg
	// is the whole "Task failed: ..." message. The wrong values come from
	// the task as written, so they are named as tagged YAML values.
	raw, ok := req.Args.Get("argument_spec")
	if !ok {
		return nil, fmt.Errorf(`"argument_spec" arg is required in args: %s`, value.Repr(req.Args))
	}
	spec, ok := raw.(*value.Dict)
	if !ok {
		return nil, fmt.Errorf("Incorrect type for argument_spec, expected dict and got %s", playbook.TaggedClass(raw))
	}
	provided := req.Args.Default("provided_arguments", value.NewDict(0))
	given, ok := provided.(*value.Dict)
	if !ok {
		return nil, fmt.Errorf("Incorrect type for provided_arguments, expected dict and got %s", playbook.TaggedClass(provided))
	}
	params := value.NewDict(spec.Len())
	spec.Each(func(name string, _ any) bool {
		if v, ok := req.Host.Var(name); ok {
			params.Set(name, v)
		}
		return true
	})
	params.Update(given)
	s, err := argspec.FromData(spec, nil)
	if err != nil {
		return nil, &module.ActionFail{Msg: err.Error()}
	}
	result := s.Validate(params)
	res.Set("changed", false)
	if len(result.Errors) == 0 {
		res.Set("msg", "The arg spec validation passed")
		return res, nil
	}
	msgs := make([]string, len(result.Errors))
	list := make([]any, len(result.Errors))
	for i, e := range result.Errors {
		msgs[i], list[i] = e.Msg, e.Msg
	}
	res.Set("failed", true)
	res.Set("msg", "Validation of arguments failed:\n"+strings.Join(msgs, "\n"))
	res.Set("argument_spec_data", spec)
	res.Set("argument_errors", list)
	return res, nil
}
