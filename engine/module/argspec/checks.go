package argspec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// unsupported records the given parameters the spec does not know, with
// the spec's names and aliases for the message.
func (v *validator) unsupported(opts []Option, params *value.Dict, aliases map[string]string, ctx []string) {
	legal := map[string]bool{}
	var names, als []string
	for _, o := range opts {
		legal[o.Name] = true
		names = append(names, o.Name)
	}
	for a := range aliases {
		legal[a] = true
		als = append(als, a)
	}
	for _, k := range params.Keys() {
		if legal[k] || strings.HasPrefix(k, "_ansible_") {
			continue
		}
		name := k
		if len(ctx) > 0 {
			name = strings.Join(ctx, ".") + "." + k
		}
		sort.Strings(names)
		sort.Strings(als)
		v.res.unsupported = append(v.res.unsupported, unsupportedParam{name: name, names: names, aliases: als})
	}
}

// finishUnsupported adds the one error that lists every unsupported
// parameter; it comes after all other errors, as in ansible-core.
func (v *validator) finishUnsupported() {
	u := v.res.unsupported
	if len(u) == 0 {
		return
	}
	var flat []string
	for _, p := range u {
		flat = append(flat, p.name)
	}
	sort.Strings(flat)
	last := u[len(u)-1]
	supported := strings.Join(last.names, ", ")
	if len(last.aliases) > 0 {
		supported += " (" + strings.Join(last.aliases, ", ") + ")"
	}
	v.res.Errors = append(v.res.Errors, &Error{
		Msg:         strings.Join(flat, ", ") + ". Supported parameters include: " + supported + ".",
		Unsupported: true,
	})
}

// noLogValues collects the values of no_log options, recursively, as
// _list_no_log_values does; like it, it reports a sub-option value that is
// not a dict.
func (v *validator) noLogValues(opts []Option, params *value.Dict) {
	for _, o := range opts {
		val, _ := params.Get(o.Name)
		if o.NoLog && value.Truthy(val) {
			v.noLog(leafStrings(val)...)
		}
		if o.Options == nil || val == nil || !(o.Type == Dict || (o.Type == List && o.Elements == Dict)) {
			continue
		}
		elems, isList := val.([]any)
		if !isList {
			elems = []any{val}
		}
		for _, e := range elems {
			if s, isStr := e.(string); isStr {
				conv, err := checkDict(s)
				if err != nil {
					v.check(err.Error())
					return
				}
				e = conv
			}
			d, ok := e.(*value.Dict)
			if !ok {
				v.check(fmt.Sprintf("Value '%s' in the sub parameter field '%s' must be a %s, not '%s'", value.Str(e), o.Name, o.Type.displayName(), value.TypeName(e)))
				return
			}
			v.noLogValues(o.Options, d)
		}
	}
}

// leafStrings lists the non-empty strings (and numbers as strings) inside
// a value, as _return_datastructure_name does.
func leafStrings(v any) []string {
	switch x := v.(type) {
	case string:
		if x == "" {
			return nil
		}
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, leafStrings(e)...)
		}
		return out
	case *value.Dict:
		var out []string
		x.Each(func(_ string, e any) bool {
			out = append(out, leafStrings(e)...)
			return true
		})
		return out
	case nil:
		return nil
	}
	return []string{value.Str(v)}
}

func inContext(msg string, ctx []string) string {
	if len(ctx) == 0 {
		return msg
	}
	return msg + " found in " + strings.Join(ctx, " -> ")
}

// countTerms counts how many of the names are keys of params (a key whose
// value is None counts).
func countTerms(names []string, params *value.Dict) int {
	seen := map[string]bool{}
	n := 0
	for _, k := range names {
		if !seen[k] && params.Has(k) {
			n++
		}
		seen[k] = true
	}
	return n
}

func checkMutuallyExclusive(groups [][]string, params *value.Dict, ctx []string) string {
	var bad []string
	for _, g := range groups {
		if countTerms(g, params) > 1 {
			bad = append(bad, strings.Join(g, "|"))
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return inContext("parameters are mutually exclusive: "+strings.Join(bad, ", "), ctx)
}

func checkRequired(opts []Option, params *value.Dict, ctx []string) string {
	var missing []string
	for _, o := range opts {
		if o.Required && !params.Has(o.Name) {
			missing = append(missing, o.Name)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	sort.Strings(missing)
	return inContext("missing required arguments: "+strings.Join(missing, ", "), ctx)
}

func checkRequiredTogether(groups [][]string, params *value.Dict, ctx []string) string {
	for _, g := range groups {
		n := countTerms(g, params)
		if n > 0 && n < len(g) {
			return inContext("parameters are required together: "+strings.Join(g, ", "), ctx)
		}
	}
	return ""
}

func checkRequiredOneOf(groups [][]string, params *value.Dict, ctx []string) string {
	for _, g := range groups {
		if countTerms(g, params) == 0 {
			return inContext("one of the following is required: "+strings.Join(g, ", "), ctx)
		}
	}
	return ""
}

func checkRequiredIf(reqs []RequiredIf, params *value.Dict, ctx []string) string {
	for _, r := range reqs {
		cur, ok := params.Get(r.Key)
		if !ok || !value.Equal(cur, r.Value) {
			continue
		}
		var missing []string
		for _, k := range r.Requires {
			if !params.Has(k) {
				missing = append(missing, k)
			}
		}
		enough := len(missing) > 0
		requires := "all"
		if r.Any {
			requires = "any"
			enough = len(missing) >= len(r.Requires)
		}
		if enough {
			return inContext(fmt.Sprintf("%s is %s but %s of the following are missing: %s",
				r.Key, value.Str(r.Value), requires, strings.Join(missing, ", ")), ctx)
		}
	}
	return ""
}

func checkRequiredBy(reqs []RequiredBy, params *value.Dict, ctx []string) string {
	for _, r := range reqs {
		if cur, ok := params.Get(r.Key); !ok || cur == nil {
			continue
		}
		var missing []string
		for _, k := range r.Requires {
			if cur, ok := params.Get(k); !ok || cur == nil {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return inContext(fmt.Sprintf("missing parameter(s) required by '%s': %s", r.Key, strings.Join(missing, ", ")), ctx)
		}
	}
	return ""
}

// validateTypes converts every given parameter to its type, and the
// elements of lists to their element type.
func (v *validator) validateTypes(opts []Option, params *value.Dict, ctx []string) {
	for _, o := range opts {
		cur, ok := params.Get(o.Name)
		if !ok || (cur == nil && !o.Required && o.Default == nil) {
			continue
		}
		conv, err := o.convert(cur)
		if err != nil {
			msg := fmt.Sprintf("argument '%s' is of type %s", o.Name, value.TypeName(cur))
			if len(ctx) > 0 {
				msg += " found in '" + strings.Join(ctx, " -> ") + "'."
			}
			v.check(msg + fmt.Sprintf(" and we were unable to convert to %s: %s", o.Type.displayName(), err))
			continue
		}
		if o.Elements != "" {
			list, isList := conv.([]any)
			if !isList {
				msg := fmt.Sprintf("Invalid type %s for option '%s'", o.Type.displayName(), value.Str(conv))
				if len(ctx) > 0 {
					msg += " found in '" + strings.Join(ctx, " -> ") + "'."
				}
				v.check(msg + ", elements value check is supported only with 'list' type")
				continue
			}
			conv = v.validateElements(o, list, ctx)
		}
		params.Set(o.Name, conv)
	}
}

func (v *validator) validateElements(o Option, list []any, ctx []string) []any {
	out := make([]any, 0, len(list))
	for _, e := range list {
		ce, err := Convert(o.Elements, e)
		if err != nil {
			msg := fmt.Sprintf("Elements value for option '%s'", o.Name)
			if len(ctx) > 0 {
				msg += " found in '" + strings.Join(ctx, " -> ") + "'"
			}
			v.check(msg + fmt.Sprintf(" is of type %s and we were unable to convert to %s: %s", value.TypeName(e), o.Elements.displayName(), err))
			continue
		}
		out = append(out, ce)
	}
	return out
}

// validateValues checks choices; a list must hold only choices.
func (v *validator) validateValues(opts []Option, params *value.Dict, ctx []string) {
	for _, o := range opts {
		if o.Choices == nil {
			continue
		}
		cur, ok := params.Get(o.Name)
		if !ok {
			continue
		}
		choices := joinChoices(o.Choices)
		if list, isList := cur.([]any); isList {
			var bad []string
			for _, e := range list {
				if !inChoices(e, o.Choices) {
					bad = append(bad, value.Str(e))
				}
			}
			if len(bad) > 0 {
				v.check(inContext(fmt.Sprintf("value of %s must be one or more of: %s. Got no match for: %s", o.Name, choices, strings.Join(bad, ", ")), ctx))
			}
			continue
		}
		if inChoices(cur, o.Choices) {
			continue
		}
		// A YAML boolean written where the choices are strings maps back to
		// the one boolean string among them, as ansible-core does.
		if s, isStr := cur.(string); isStr && (s == "True" || s == "False") {
			if alt, ok := boolChoice(s == "True", o.Choices); ok {
				params.Set(o.Name, alt)
				continue
			}
		}
		v.check(inContext(fmt.Sprintf("value of %s must be one of: %s, got: %s", o.Name, choices, value.Str(cur)), ctx))
	}
}

func inChoices(v any, choices []any) bool {
	for _, c := range choices {
		if value.Equal(v, c) {
			return true
		}
	}
	return false
}

func joinChoices(choices []any) string {
	parts := make([]string, len(choices))
	for i, c := range choices {
		parts[i] = value.Str(c)
	}
	return strings.Join(parts, ", ")
}

// boolChoice finds the single choice that means the wanted truth value.
func boolChoice(want bool, choices []any) (any, bool) {
	var found []any
	for _, c := range choices {
		if b, known := LenientBoolean(c); known && b == want {
			found = append(found, c)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return nil, false
}
