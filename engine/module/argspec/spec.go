// Package argspec validates module arguments the way ansible-core's
// ArgumentSpecValidator does (module_utils/common/arg_spec.py): aliases,
// fallbacks, unsupported parameters, mutually exclusive groups, defaults,
// required arguments, type coercion, choices, the required_* checks and
// sub-options, in that order and with the same messages. Every module and
// action plugin of cfzt-runner validates through it.
package argspec

import (
	"slices"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Option describes one parameter, as an argument_spec entry does.
type Option struct {
	Name string
	// Type is the wanted type; "" means "str", as in ansible-core.
	Type Type
	// Elements is the element type of a list.
	Elements Type
	Default  any
	Required bool
	// Choices are the accepted values (compared with Python's ==).
	Choices []any
	Aliases []string
	// NoLog marks values that must never be shown.
	NoLog bool
	// EnvFallback names environment variables consulted, in order, when
	// the parameter is not given (env_fallback).
	EnvFallback []string
	// Options are the sub-options of a dict, or of each dict of a list
	// whose Elements is "dict".
	Options []Option
	// ApplyDefaults creates an absent dict so its sub-options' defaults apply.
	ApplyDefaults bool
	// Rules are the checks among the sub-options.
	Rules Rules
	// Check, when set, is a custom type checker (a callable type in
	// Python); Type is then only its name in messages.
	Check func(any) (any, error)
}

// convert applies the option's type checker.
func (o *Option) convert(v any) (any, error) {
	if o.Check != nil {
		return o.Check(v)
	}
	return Convert(o.Type, v)
}

// Rules are the checks that relate parameters to each other.
type Rules struct {
	MutuallyExclusive [][]string
	RequiredTogether  [][]string
	RequiredOneOf     [][]string
	RequiredIf        []RequiredIf
	RequiredBy        []RequiredBy
}

// RequiredIf is one required_if entry: when Key equals Value, the Requires
// parameters must be given (any one of them when Any is set).
type RequiredIf struct {
	Key      string
	Value    any
	Requires []string
	Any      bool
}

// RequiredBy is one required_by entry: when Key is given (and not None),
// every Requires parameter must be too.
type RequiredBy struct {
	Key      string
	Requires []string
}

// Spec is a module's argument specification.
type Spec struct {
	Options []Option
	Rules
}

// Validate checks args against the spec. args is not modified. The
// result holds every parameter of the spec (None when unset without a
// default) and the errors in the order ansible-core finds them.
func (s *Spec) Validate(args *value.Dict) *Result {
	res := &Result{Params: args.Copy(), aliases: map[string]string{}}
	v := &validator{res: res}
	v.validate(s.Options, s.Rules, res.Params, nil)
	return res
}

// validator carries one validation's result through the recursion into
// sub-options.
type validator struct {
	res *Result
}

func (v *validator) validate(opts []Option, rules Rules, params *value.Dict, ctx []string) {
	res := v.res
	top := len(ctx) == 0
	v.fallbacks(opts, params)
	aliases := v.handleAliases(opts, params, ctx)
	if top {
		res.aliases = aliases
	}
	v.noLogValues(opts, params)
	v.unsupported(opts, params, aliases, ctx)
	v.check(checkMutuallyExclusive(rules.MutuallyExclusive, params, ctx))
	v.setDefaults(opts, params, false)
	v.check(checkRequired(opts, params, ctx))
	v.validateTypes(opts, params, ctx)
	v.validateValues(opts, params, ctx)
	v.check(checkRequiredTogether(rules.RequiredTogether, params, ctx))
	v.check(checkRequiredOneOf(rules.RequiredOneOf, params, ctx))
	v.check(checkRequiredIf(rules.RequiredIf, params, ctx))
	v.check(checkRequiredBy(rules.RequiredBy, params, ctx))
	v.setDefaults(opts, params, true)
	v.subOptions(opts, params, ctx)
	if top {
		v.finishUnsupported()
	}
}

func (v *validator) check(msg string) {
	if msg != "" {
		v.res.Errors = append(v.res.Errors, &Error{Msg: msg})
	}
}

// fallbacks fills absent parameters from their environment variables.
func (v *validator) fallbacks(opts []Option, params *value.Dict) {
	for _, o := range opts {
		if params.Has(o.Name) || len(o.EnvFallback) == 0 {
			continue
		}
		for _, name := range o.EnvFallback {
			if s, ok := lookupEnv(name); ok {
				if o.NoLog && s != "" {
					v.noLog(s)
				}
				params.Set(o.Name, s)
				break
			}
		}
	}
}

// handleAliases copies each given alias to its option's name and returns
// alias → name. Both an option and its alias given is a warning.
func (v *validator) handleAliases(opts []Option, params *value.Dict, ctx []string) map[string]string {
	out := map[string]string{}
	prefix := contextPrefix(ctx)
	for _, o := range opts {
		for _, a := range o.Aliases {
			out[a] = o.Name
			if val, ok := params.Get(a); ok {
				if params.Has(o.Name) {
					v.res.Warnings = append(v.res.Warnings, "Both option "+prefix+o.Name+" and its alias "+prefix+a+" are set.")
				}
				params.Set(o.Name, val)
			}
		}
	}
	return out
}

// setDefaults gives absent parameters their default; without all, only
// non-None defaults are set (ansible-core's first pass, before the
// required check).
func (v *validator) setDefaults(opts []Option, params *value.Dict, all bool) {
	for _, o := range opts {
		if params.Has(o.Name) || (o.Default == nil && !all) {
			continue
		}
		if o.NoLog && value.Truthy(o.Default) {
			v.noLog(value.Str(o.Default))
		}
		params.Set(o.Name, o.Default)
	}
}

// subOptions validates the sub-options of dict and list-of-dict options.
func (v *validator) subOptions(opts []Option, params *value.Dict, ctx []string) {
	for _, o := range opts {
		isDict := o.Type == Dict || (o.Type == List && o.Elements == Dict)
		if !isDict || o.Options == nil {
			continue
		}
		cur, given := params.Get(o.Name)
		if o.ApplyDefaults {
			if cur == nil {
				cur = value.NewDict(0)
				params.Set(o.Name, cur)
			}
		} else if !given || cur == nil {
			continue
		}
		sub := append(append([]string(nil), ctx...), o.Name)
		// The values may be shared with the loaded playbook, so each dict
		// is copied before validation fills it in.
		elems, isList := cur.([]any)
		if isList {
			elems = append([]any(nil), elems...)
			params.Set(o.Name, elems)
		} else {
			elems = []any{cur}
		}
		for i, e := range elems {
			d, ok := e.(*value.Dict)
			if !ok {
				v.check("value of '" + o.Name + "' must be of type dict or list of dicts")
				continue
			}
			d = d.Copy()
			if isList {
				elems[i] = d
			} else {
				params.Set(o.Name, d)
			}
			v.validate(o.Options, o.Rules, d, sub)
		}
	}
}

// noLog records values to mask, once each (ansible-core keeps a set).
func (v *validator) noLog(vals ...string) {
	for _, s := range vals {
		if !slices.Contains(v.res.NoLogValues, s) {
			v.res.NoLogValues = append(v.res.NoLogValues, s)
		}
	}
}

func contextPrefix(ctx []string) string {
	p := ""
	for _, c := range ctx {
		p += c + "."
	}
	return p
}
