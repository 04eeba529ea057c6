package display

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Mask hides values that must never reach a terminal or log even without
// no_log: Authorization headers and a Secret's data. This is a deliberate
// improvement on ansible-playbook, documented in the README.
func Mask(v any) any {
	switch x := v.(type) {
	case *value.Dict:
		isSecret := value.Str(x.Default("kind", "")) == "Secret"
		out := value.NewDict(x.Len())
		x.Each(func(k string, e any) bool {
			switch {
			case strings.EqualFold(k, "authorization"):
				out.Set(k, "********")
			case isSecret && (k == "data" || k == "stringData"):
				out.Set(k, maskAll(e))
			default:
				out.Set(k, Mask(e))
			}
			return true
		})
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Mask(e)
		}
		return out
	}
	return v
}

func maskAll(v any) any {
	if d, ok := v.(*value.Dict); ok {
		out := value.NewDict(d.Len())
		d.Each(func(k string, _ any) bool { out.Set(k, "********"); return true })
		return out
	}
	return "********"
}
