package argspec

import (
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Error is one validation error.
type Error struct {
	Msg string
	// Unsupported marks the error listing unknown parameters, which
	// callers prefix with "Unsupported parameters for (X) module: ".
	Unsupported bool
}

func (e *Error) Error() string { return e.Msg }

// Result is the outcome of one validation.
type Result struct {
	// Params are the arguments after validation: aliases resolved,
	// fallbacks and defaults applied, values converted. Every option of
	// the spec is present (None when unset without a default).
	Params *value.Dict
	// Errors are in the order ansible-core finds them; the first one is
	// the task's message.
	Errors []*Error
	// Warnings are "Both option X and its alias Y are set." messages.
	Warnings []string
	// NoLogValues are the strings of no_log parameters, to mask.
	NoLogValues []string

	aliases     map[string]string
	unsupported []unsupportedParam
}

type unsupportedParam struct {
	name           string
	names, aliases []string
}

// Message is the first error as ansible-core reports it; loadName is the
// module's name in "Unsupported parameters for (NAME) module".
func (r *Result) Message(loadName string) string {
	if len(r.Errors) == 0 {
		return ""
	}
	e := r.Errors[0]
	if e.Unsupported {
		return "Unsupported parameters for (" + loadName + ") module: " + e.Msg
	}
	return e.Msg
}

// ActionError is the error an action plugin raises for the result (nil
// when valid): an AnsibleActionFail with the first error's message.
func (r *Result) ActionError(loadName string) error {
	if len(r.Errors) == 0 {
		return nil
	}
	return module.ActionFail(r.Message(loadName), nil)
}

// Params are validated parameters; the getters return the zero value for
// a parameter that is None or of another type.
type Params struct{ *value.Dict }

// P wraps the result's parameters for typed access.
func (r *Result) P() Params { return Params{r.Params} }

// Str returns a string parameter ("" when None).
func (p Params) Str(k string) string {
	if s, ok := p.Default(k, nil).(string); ok {
		return s
	}
	return ""
}

// Bool returns a bool parameter.
func (p Params) Bool(k string) bool { b, _ := p.Default(k, nil).(bool); return b }

// Int returns an int parameter.
func (p Params) Int(k string) int { i, _ := p.Default(k, nil).(int); return i }

// Float returns a float parameter.
func (p Params) Float(k string) float64 { f, _ := p.Default(k, nil).(float64); return f }

// List returns a list parameter.
func (p Params) List(k string) []any { l, _ := p.Default(k, nil).([]any); return l }

// Strs returns a list parameter as strings.
func (p Params) Strs(k string) []string {
	l := p.List(k)
	out := make([]string, 0, len(l))
	for _, e := range l {
		out = append(out, value.Str(e))
	}
	return out
}

// Map returns a dict parameter.
func (p Params) Map(k string) *value.Dict { d, _ := p.Default(k, nil).(*value.Dict); return d }

// IsSet reports whether a parameter is present and not None.
func (p Params) IsSet(k string) bool { return p.Default(k, nil) != nil }

// Failure is the result a module's fail_json gives for the result (nil
// when valid): failed, with the first error's message.
func (r *Result) Failure(loadName string) *value.Dict {
	if len(r.Errors) == 0 {
		return nil
	}
	return module.Failed(r.Message(loadName))
}

// AsMap returns the parameters as a Go map, for modules that read them by
// name with type assertions.
func (p Params) AsMap() map[string]any {
	out := make(map[string]any, p.Len())
	p.Each(func(k string, v any) bool {
		out[k] = v
		return true
	})
	return out
}

// noLogMask is what ansible-core shows instead of a no_log value.
const noLogMask = "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"

// Invocation is the invocation key AnsibleModule adds to a module's
// result: module_args, the validated parameters in their order, with the
// values of the spec's no_log options masked. ansible-core keeps it on
// the items of a loop's registered result.
func (p Params) Invocation(s *Spec) *value.Dict {
	args := p.Copy()
	for _, o := range s.Options {
		if v, ok := args.Get(o.Name); ok && v != nil && o.NoLog {
			args.Set(o.Name, noLogMask)
		}
	}
	return value.DictOf("module_args", args)
}
