package template

import (
	"regexp"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// sequenceLookups returns ansible-core's sequence lookup.
func sequenceLookups() Library {
	return Library{Collection: "ansible.builtin", Lookups: map[string]LookupFunc{
		"sequence": lookupSequence,
	}}
}

var (
	seqNum      = `(0?x?[0-9a-f]+)`
	seqShortcut = regexp.MustCompile(`(?i)^(` + seqNum + `-)?` + seqNum + `(/` + seqNum + `)?(:(.+))?$`)
	kvRe        = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)
)

// seqInt converts a sequence option as Ansible's 'integer' option type does.
func seqInt(name, s string) (int, error) {
	n, ok := py.ParseInt(s, 10)
	if !ok {
		return 0, Errorf("Config '%s' for 'sequence' lookup plugin from 'Direct' has an invalid value: Invalid value provided for 'integer': %s", name, value.Repr(s))
	}
	return n, nil
}

func lookupSequence(_ *Ctx, terms []any, a *Args) ([]any, error) {
	if a.Kw != nil && a.Kw.Len() > 0 && len(terms) == 0 {
		terms = []any{""}
	}
	var out []any
	for _, t := range terms {
		opts := map[string]string{}
		if a.Kw != nil {
			for _, k := range a.Kw.Keys() {
				v, _ := a.Kw.Get(k)
				opts[k] = value.Str(v)
			}
		}
		term := value.Str(t)
		if m := seqShortcut.FindStringSubmatch(term); m != nil {
			if m[2] != "" {
				opts["start"] = m[2]
			}
			opts["end"] = m[3]
			if m[5] != "" {
				opts["stride"] = m[5]
			}
			if m[7] != "" {
				opts["format"] = m[7]
			}
		} else {
			var unknown []string
			for _, f := range strings.Fields(term) {
				kv := kvRe.FindStringSubmatch(f)
				if kv == nil {
					return nil, Errorf("unknown error parsing with_sequence arguments: %s. Error was: %s", value.Repr(term), "bad argument")
				}
				switch kv[1] {
				case "start", "end", "stride", "count", "format":
					opts[kv[1]] = kv[2]
				default:
					unknown = append(unknown, "'"+kv[1]+"'")
				}
			}
			if len(unknown) > 0 {
				return nil, Errorf("unrecognized arguments to with_sequence: [%s]", strings.Join(unknown, ", "))
			}
		}
		start, stride := 1, 1
		var end, count *int
		var err error
		for _, k := range []string{"start", "end", "stride", "count", "format"} {
			v, ok := opts[k]
			if !ok {
				continue
			}
			switch k {
			case "start":
				if start, err = seqInt(k, v); err != nil {
					return nil, err
				}
			case "stride":
				if stride, err = seqInt(k, v); err != nil {
					return nil, err
				}
			case "end", "count":
				n, err := seqInt(k, v)
				if err != nil {
					return nil, err
				}
				if k == "end" {
					end = &n
				} else {
					count = &n
				}
			case "format":
			default:
				return nil, Errorf("unrecognized arguments to with_sequence: ['%s']", k)
			}
		}
		format := "%d"
		if f, ok := opts["format"]; ok {
			format = f
		}
		switch {
		case count == nil && end == nil:
			return nil, Errorf("must specify count or end in with_sequence")
		case count != nil && end != nil:
			return nil, Errorf("can't specify both count and end in with_sequence")
		case count != nil:
			if *count == 0 {
				continue
			}
			e := start + *count*stride - 1
			end = &e
		}
		if stride > 0 && *end < start {
			return nil, Errorf("to count backwards make stride negative")
		}
		if stride < 0 && *end > start {
			return nil, Errorf("to count forward don't make stride negative")
		}
		if stride == 0 {
			continue
		}
		if strings.Count(format, "%") != 1 {
			return nil, Errorf("bad formatting string: %s", format)
		}
		adjust := 1
		if stride < 0 {
			adjust = -1
		}
		for i := start; (stride > 0 && i < *end+adjust) || (stride < 0 && i > *end+adjust); i += stride {
			s, err := py.Percent(format, i)
			if err != nil {
				return nil, Errorf("problem formatting %d with %s", i, value.Repr(format))
			}
			out = append(out, s)
		}
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
}
