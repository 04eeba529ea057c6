package template

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// jinjaNumFilters returns Jinja2's built-in filters on numbers.
func jinjaNumFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"abs":            filterAbs,
		"filesizeformat": filterFilesizeformat,
		"float":          filterFloat,
		"int":            filterInt,
		"round":          filterRound,
	}}
}

func filterAbs(_ *Ctx, in any, a *Args) (any, error) {
	if err := py.OneArg("abs", a); err != nil {
		return nil, err
	}
	switch x := in.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case int:
		if x < 0 {
			return -x, nil
		}
		return x, nil
	case float64:
		return math.Abs(x), nil
	}
	return nil, TypeErrorf("bad operand type for abs(): '%s'", value.TypeName(in))
}

func filterFloat(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_float", py.Opt("default", 0.0)).Bind(a)
	if err != nil {
		return nil, err
	}
	f, err := py.Float(in)
	if err != nil {
		return v[0], nil
	}
	return f, nil
}

func filterInt(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_int", py.Opt("default", 0), py.Opt("base", 10)).Bind(a)
	if err != nil {
		return nil, err
	}
	switch x := in.(type) {
	case string:
		// int(value, base) failing with a TypeError or ValueError (a bad
		// base included) falls back to int(float(value)), then the default.
		base, ok := value.AsInt(v[1])
		if ok && (base == 0 || (base >= 2 && base <= 36)) {
			if n, ok := py.ParseInt(x, base); ok {
				return n, nil
			}
		}
		f, ok := py.ParseFloat(x)
		if !ok || math.IsNaN(f) {
			return v[0], nil
		}
		if math.IsInf(f, 0) {
			return nil, TypeErrorf("cannot convert float infinity to integer")
		}
		return py.FloatToInt(f), nil
	case bool, int:
		n, _ := value.AsInt(x)
		return n, nil
	case float64:
		if math.IsNaN(x) {
			return v[0], nil
		}
		if math.IsInf(x, 0) {
			return nil, TypeErrorf("cannot convert float infinity to integer")
		}
		return py.FloatToInt(x), nil
	case *big.Int:
		return x, nil
	}
	return v[0], nil
}

func filterRound(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_round", py.Opt("precision", 0), py.Opt("method", "common")).Bind(a)
	if err != nil {
		return nil, err
	}
	method, _ := v[1].(string)
	if method != "common" && method != "ceil" && method != "floor" {
		return nil, Errorf("method must be common, ceil or floor")
	}
	if !value.IsNumber(in) {
		return nil, TypeErrorf("type %s doesn't define __round__ method", value.TypeName(in))
	}
	prec, ok := value.AsInt(v[0])
	if !ok {
		return nil, TypeErrorf("'%s' object cannot be interpreted as an integer", value.TypeName(v[0]))
	}
	if method == "common" {
		if f, isF := in.(float64); isF {
			return py.RoundFloat(f, prec), nil
		}
		i, _ := value.AsInt(in)
		return py.RoundInt(i, prec), nil
	}
	f, _ := value.AsFloat(in)
	p := math.Pow(10, float64(prec))
	var r float64
	if method == "ceil" {
		r = math.Ceil(f * p)
	} else {
		r = math.Floor(f * p)
	}
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return nil, TypeErrorf("cannot convert float infinity to integer")
	}
	return r / p, nil
}

func filterFilesizeformat(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("do_filesizeformat", py.Opt("binary", false)).Bind(a)
	if err != nil {
		return nil, err
	}
	bytes, err := py.Float(in)
	if err != nil {
		return nil, err
	}
	binary := value.Truthy(v[0])
	base := 1000.0
	prefixes := []string{"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"}
	if binary {
		base = 1024
		prefixes = []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"}
	}
	switch {
	case bytes == 1:
		return "1 Byte", nil
	case bytes < base:
		return fmt.Sprintf("%d Bytes", int(bytes)), nil
	}
	var unit float64
	var prefix string
	for i, p := range prefixes {
		unit = math.Pow(base, float64(i+2))
		prefix = p
		if bytes < unit {
			break
		}
	}
	return strconv.FormatFloat(base*bytes/unit, 'f', 1, 64) + " " + prefix, nil
}
