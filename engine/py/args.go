package py

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Args are the evaluated arguments of a filter, test, lookup or call.
type Args struct {
	Pos []any
	Kw  *value.Dict
}

// Len returns the number of positional arguments.
func (a *Args) Len() int { return len(a.Pos) }

// Get returns positional argument i, or else the keyword argument name.
func (a *Args) Get(i int, name string) (any, bool) {
	if i >= 0 && i < len(a.Pos) {
		return a.Pos[i], true
	}
	if a.Kw != nil && name != "" {
		return a.Kw.Get(name)
	}
	return nil, false
}

// Default returns argument i/name, or def when it is absent.
func (a *Args) Default(i int, name string, def any) any {
	if v, ok := a.Get(i, name); ok {
		return v
	}
	return def
}

// Bool returns argument i/name as a Python truth value, or def.
func (a *Args) Bool(i int, name string, def bool) bool {
	if v, ok := a.Get(i, name); ok {
		return value.Truthy(v)
	}
	return def
}

// String returns argument i/name as a string (str()), or def.
func (a *Args) String(i int, name string, def string) string {
	if v, ok := a.Get(i, name); ok {
		return value.Str(v)
	}
	return def
}

// Param is one parameter of a Python function after the filtered value.
type Param struct {
	Name     string
	Default  any
	Required bool
}

// Req is a required parameter.
func Req(name string) Param { return Param{Name: name, Required: true} }

// Opt is a parameter with a default value.
func Opt(name string, def any) Param { return Param{Name: name, Default: def} }

// OptNone is a parameter whose default is None.
func OptNone(name string) Param { return Param{Name: name} }

// Sig is the signature of the Python function fn with parameters ps.
func Sig(fn string, ps ...Param) Signature { return Signature{Fn: fn, Params: ps} }

// Signature describes a Python function so that arguments bind, and fail,
// the way CPython reports it.
type Signature struct {
	Fn string
	// Hidden counts implicit leading parameters (Jinja2's environment or
	// context), which CPython counts in its messages.
	Hidden int
	// InOpt reports that the filtered value itself has a default.
	InOpt  bool
	Params []Param
	// VarKw accepts **kwargs, which BindKw returns.
	VarKw bool
}

// Implicit returns s with one implicit leading parameter (see Hidden).
func (s Signature) Implicit() Signature { s.Hidden = 1; return s }

// Bind returns the value of every parameter, defaults filled in.
func (s Signature) Bind(a *Args) ([]any, error) {
	vals, _, err := s.BindKw(a)
	return vals, err
}

// BindKw is Bind that also returns the keyword arguments no parameter
// takes, when the signature has **kwargs.
func (s Signature) BindKw(a *Args) ([]any, *value.Dict, error) {
	vals := make([]any, len(s.Params))
	var setBuf [8]bool // no allocation for the usual few parameters
	var set []bool
	if len(s.Params) <= len(setBuf) {
		set = setBuf[:len(s.Params)]
	} else {
		set = make([]bool, len(s.Params))
	}
	for i := range a.Pos {
		if i < len(s.Params) {
			vals[i], set[i] = a.Pos[i], true
		}
	}
	var extra *value.Dict
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			v, _ := a.Kw.Get(k)
			idx := -1
			for i, p := range s.Params {
				if p.Name == k {
					idx = i
					break
				}
			}
			if idx < 0 {
				if !s.VarKw {
					return nil, nil, Errorf("%s() got an unexpected keyword argument '%s'", s.Fn, k)
				}
				if extra == nil {
					extra = value.NewDict(1)
				}
				extra.Set(k, v)
				continue
			}
			if set[idx] {
				return nil, nil, Errorf("%s() got multiple values for argument '%s'", s.Fn, k)
			}
			vals[idx], set[idx] = v, true
		}
	}
	if len(a.Pos) > len(s.Params) {
		total := s.Hidden + 1 + len(s.Params)
		min := s.Hidden + 1
		if s.InOpt {
			min = s.Hidden
		}
		for _, p := range s.Params {
			if p.Required {
				min++
			}
		}
		given := s.Hidden + 1 + len(a.Pos)
		if min == total {
			plural := "s"
			if total == 1 {
				plural = ""
			}
			return nil, nil, Errorf("%s() takes %d positional argument%s but %d were given", s.Fn, total, plural, given)
		}
		return nil, nil, Errorf("%s() takes from %d to %d positional arguments but %d were given", s.Fn, min, total, given)
	}
	var missing []string
	for i, p := range s.Params {
		if !set[i] {
			if p.Required {
				missing = append(missing, "'"+p.Name+"'")
			}
			vals[i] = p.Default
		}
	}
	if len(missing) > 0 {
		plural := "s"
		if len(missing) == 1 {
			plural = ""
		}
		var names string
		switch len(missing) {
		case 1:
			names = missing[0]
		case 2:
			names = missing[0] + " and " + missing[1]
		default:
			names = strings.Join(missing[:len(missing)-1], ", ") + ", and " + missing[len(missing)-1]
		}
		return nil, nil, Errorf("%s() missing %d required positional argument%s: %s", s.Fn, len(missing), plural, names)
	}
	return vals, extra, nil
}

// OneArg checks the arguments of a C builtin taking exactly one argument.
func OneArg(fn string, a *Args) error {
	if a.Kw != nil && a.Kw.Len() > 0 {
		return Errorf("%s() takes no keyword arguments", fn)
	}
	if len(a.Pos) > 0 {
		return Errorf("%s() takes exactly one argument (%d given)", fn, len(a.Pos)+1)
	}
	return nil
}
