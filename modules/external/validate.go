package external

import (
	"fmt"
	"io"

	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ValidateArgs is cfzt-runner's internal __validate-args command: it reads
// a JSON request {"argument_spec": ..., "rules": {...}, "params": {...}}
// from in, validates the params with engine/module/argspec (the validator
// of every built-in module, a port of ansible-core's
// ArgumentSpecValidator), and writes the JSON answer the compatibility
// package's AnsibleModule applies: the validated params, the no_log
// values, the alias map, the alias warnings, and the first error (with
// unsupported set when it lists unknown parameters, which AnsibleModule
// prefixes with the module's name).
func ValidateArgs(in io.Reader, out io.Writer) error {
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	v, err := py.JSONLoads(string(data))
	if err != nil {
		return fmt.Errorf("%s: the request is not JSON: %w", ValidateCommand, err)
	}
	req, ok := v.(*value.Dict)
	if !ok {
		return fmt.Errorf("%s: the request is not a JSON object", ValidateCommand)
	}
	answer, err := validateRequest(req)
	if err != nil {
		return err
	}
	_, err = io.WriteString(out, value.JSON(answer, value.JSONOptions{}))
	return err
}

// validateRequest validates one decoded request.
func validateRequest(req *value.Dict) (*value.Dict, error) {
	specData, _ := req.Default("argument_spec", nil).(*value.Dict)
	if specData == nil {
		specData = value.NewDict(0)
	}
	rules, _ := req.Default("rules", nil).(*value.Dict)
	params, _ := req.Default("params", nil).(*value.Dict)
	if params == nil {
		params = value.NewDict(0)
	}
	spec, err := argspec.FromData(specData, rules)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ValidateCommand, err)
	}
	res := spec.Validate(params)
	answer := value.DictOf("params", res.Params)
	answer.Set("no_log_values", stringsAsList(res.NoLogValues))
	answer.Set("warnings", stringsAsList(res.Warnings))
	if len(res.Errors) > 0 {
		answer.Set("error", res.Errors[0].Msg)
		answer.Set("unsupported", res.Errors[0].Unsupported)
	}
	return answer, nil
}

// stringsAsList is a []string as a list value.
func stringsAsList(l []string) []any {
	out := make([]any, 0, len(l))
	for _, s := range l {
		out = append(out, s)
	}
	return out
}
