package template

import (
	"math"
	"time"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// dateFilters returns ansible-core's date filters.
func dateFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"strftime":    filterStrftime,
		"to_datetime": filterToDatetime,
	}}
}

func filterToDatetime(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("to_datetime", py.Opt("format", "%Y-%m-%d %H:%M:%S")).Bind(a)
	if err != nil {
		return nil, err
	}
	s, ok := in.(string)
	if !ok {
		return nil, TypeErrorf("strptime() argument 1 must be str, not %s", value.TypeName(in))
	}
	f, ok := v[0].(string)
	if !ok {
		return nil, TypeErrorf("strptime() argument 2 must be str, not %s", value.TypeName(v[0]))
	}
	return py.Strptime(s, f)
}

func filterStrftime(c *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("strftime", py.OptNone("second"), py.Opt("utc", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	f, ok := in.(string)
	if !ok {
		return nil, TypeErrorf("strftime() argument 1 must be str, not %s", value.TypeName(in))
	}
	t := c.Engine().Now()
	if v[0] != nil {
		sec, err := py.Float(v[0])
		if err != nil {
			return nil, Detachedf("Invalid value for epoch value (%s)", value.Str(v[0]))
		}
		whole := math.Floor(sec)
		t = time.Unix(int64(whole), 0)
	}
	if value.Truthy(v[1]) {
		t = t.UTC()
	} else {
		t = t.Local()
	}
	return py.Strftime(t, f), nil
}
