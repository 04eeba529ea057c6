package builtin

import (
	"errors"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// setStatsModule is the set_stats action: it returns the custom stats to
// record under ansible_stats (data, per_host, aggregate), which the
// executor adds to the run's custom stats. Keys of data may be templates
// and must be valid variable names.
func setStatsModule(req *module.Request) (*value.Dict, error) {
	stats := value.DictOf("data", value.NewDict(0), "per_host", false, "aggregate", true)
	if req.Args.Len() > 0 {
		var bad []string
		req.Args.Each(func(k string, _ any) bool {
			if k != "aggregate" && k != "data" && k != "per_host" {
				bad = append(bad, k)
			}
			return true
		})
		if len(bad) > 0 {
			return nil, module.ActionFail("Invalid options for "+req.Action+": "+joinComma(bad), nil)
		}
		data, ok := req.Args.Default("data", value.NewDict(0)).(*value.Dict)
		if !ok {
			return value.DictOf("failed", true, "msg", "The 'data' option needs to be a dictionary/hash"), nil
		}
		for _, opt := range []string{"per_host", "aggregate"} {
			v, ok := req.Args.Get(opt)
			if !ok || v == nil {
				continue
			}
			if b, isBool := v.(bool); isBool {
				stats.Set(opt, b)
			} else {
				b, _ := argspec.LenientBoolean(v)
				stats.Set(opt, b)
			}
		}
		out := value.NewDict(data.Len())
		var ferr error
		data.Each(func(k string, v any) bool {
			name, err := varName(req, data.Key(k), "data")
			var pe *diag.Diagnostic
			if errors.As(err, &pe) {
				// The error is about the key inside data, when its
				// position is known.
				if pos, ok := playbook.KeyOriginOf(data, k); ok {
					pe.Origin = &pos
				}
			}
			if err != nil {
				ferr = err
				return false
			}
			out.Set(name, v)
			return true
		})
		if ferr != nil {
			return nil, ferr
		}
		stats.Set("data", out)
	}
	return value.DictOf("changed", false, "ansible_stats", stats), nil
}

func joinComma(l []string) string {
	out := ""
	for i, s := range l {
		if i > 0 {
			out += ","
		}
		out += s
	}
	return out
}
