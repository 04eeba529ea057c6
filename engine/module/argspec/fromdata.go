package argspec

import (
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// FromData builds a Spec from an argument_spec written as data, as role
// argument_specs and the validate_argument_spec action take it: a dict of
// option name → {type, elements, default, required, choices, aliases,
// no_log, options, apply_defaults, mutually_exclusive, ...}. Keys that
// only document an option (description, version_added...) are ignored.
func FromData(spec *value.Dict, rules *value.Dict) (*Spec, error) {
	opts, err := optionsFromData(spec)
	if err != nil {
		return nil, err
	}
	s := &Spec{Options: opts}
	if rules != nil {
		if s.Rules, err = rulesFromData(rules); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func optionsFromData(spec *value.Dict) ([]Option, error) {
	var out []Option
	var ferr error
	spec.Each(func(name string, raw any) bool {
		d, ok := raw.(*value.Dict)
		if !ok {
			if raw != nil {
				ferr = fmt.Errorf("argument spec entry %q is not a dict", name)
				return false
			}
			d = value.NewDict(0)
		}
		o := Option{Name: name, Default: d.Default("default", nil)}
		o.Type = Type(value.Str(d.Default("type", "str")))
		if e, ok := d.Get("elements"); ok && e != nil {
			o.Elements = Type(value.Str(e))
		}
		o.Required, _ = LenientBoolean(d.Default("required", false))
		o.NoLog, _ = LenientBoolean(d.Default("no_log", false))
		o.ApplyDefaults, _ = LenientBoolean(d.Default("apply_defaults", false))
		if c, ok := d.Default("choices", nil).([]any); ok {
			o.Choices = c
		}
		o.Aliases = stringList(d.Default("aliases", nil))
		if sub, ok := d.Default("options", nil).(*value.Dict); ok {
			if o.Options, ferr = optionsFromData(sub); ferr != nil {
				return false
			}
			if o.Options == nil {
				o.Options = []Option{}
			}
		}
		if o.Rules, ferr = rulesFromData(d); ferr != nil {
			return false
		}
		out = append(out, o)
		return true
	})
	return out, ferr
}

// rulesFromData reads mutually_exclusive, required_together,
// required_one_of, required_if and required_by from a dict.
func rulesFromData(d *value.Dict) (Rules, error) {
	var r Rules
	r.MutuallyExclusive = groups(d.Default("mutually_exclusive", nil))
	r.RequiredTogether = groups(d.Default("required_together", nil))
	r.RequiredOneOf = groups(d.Default("required_one_of", nil))
	if l, ok := d.Default("required_if", nil).([]any); ok {
		for _, e := range l {
			entry, ok := e.([]any)
			if !ok || len(entry) < 3 || len(entry) > 4 {
				return r, fmt.Errorf("required_if entries must be [key, value, [requirements], is_one_of]: %s", value.Repr(e))
			}
			ri := RequiredIf{Key: value.Str(entry[0]), Value: entry[1], Requires: stringList(entry[2])}
			if len(entry) == 4 {
				ri.Any, _ = LenientBoolean(entry[3])
			}
			r.RequiredIf = append(r.RequiredIf, ri)
		}
	}
	if m, ok := d.Default("required_by", nil).(*value.Dict); ok {
		m.Each(func(k string, v any) bool {
			r.RequiredBy = append(r.RequiredBy, RequiredBy{Key: k, Requires: stringList(v)})
			return true
		})
	}
	return r, nil
}

// stringList reads a string or list of strings.
func stringList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, value.Str(e))
		}
		return out
	}
	return nil
}

// groups reads a list of name lists (or one flat list, as one group).
func groups(v any) [][]string {
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return nil
	}
	if _, nested := l[0].([]any); !nested {
		return [][]string{stringList(l)}
	}
	out := make([][]string, 0, len(l))
	for _, e := range l {
		out = append(out, stringList(e))
	}
	return out
}
