package settings

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Source is where settings come from: the environment and the config
// file in use, found as cmd/cfzt-runner finds it.
type Source struct {
	// Path is the ansible.cfg in use ("" for none) and File its contents.
	Path string
	File File
	// Getenv reads the environment; nil means the process's.
	Getenv func(string) (string, bool)
}

// OptionError is a value that a setting's type or choices reject.
type OptionError struct {
	Msg string
	// Cause is the conversion's error, when there is one.
	Cause error
	// Help lists the valid values of a setting with choices.
	Help string
}

func (e *OptionError) Error() string {
	if e.Cause != nil {
		return strings.TrimSuffix(e.Msg, ".") + ": " + e.Cause.Error()
	}
	return e.Msg
}

// Unwrap returns the conversion's error.
func (e *OptionError) Unwrap() error { return e.Cause }

// UndefinedError is a setting that has no definition.
type UndefinedError struct{ Label string }

func (e *UndefinedError) Error() string { return "No config definition exists for " + e.Label + "." }

// Label names a setting in messages as ansible-core does: 'name', or
// 'name' for 'plugin' type plugin.
func Label(pluginType, pluginName, name string) string {
	label := value.Repr(name)
	if pluginType != "" {
		label += " for"
		if pluginName != "" {
			label += " " + value.Repr(pluginName)
		}
		label += " " + pluginType + " plugin"
	}
	return label
}

// Core returns a core setting's value and where it came from. The
// CONFIG_FILE pseudo-setting is the config file in use (None for none).
func (s *Source) Core(name string) (any, string, error) {
	if name == "CONFIG_FILE" {
		if s == nil || s.Path == "" {
			return nil, "", nil
		}
		return s.Path, "", nil
	}
	d, ok := coreDefs()[name]
	if !ok {
		return nil, "", &UndefinedError{Label: Label("", "", name)}
	}
	return s.Resolve(Label("", "", name), d, nil, false)
}

// Resolve returns the value of the setting d, labelled label in errors,
// and its origin: the direct value when one is given and not None, then
// the environment, the config file and the default. The value is
// converted to d's type and checked against its choices.
func (s *Source) Resolve(label string, d Def, direct any, hasDirect bool) (any, string, error) {
	return s.ResolveWithVars(label, d, direct, hasDirect, nil)
}

// ResolveWithVars is Resolve with the play's variables, which come after a
// direct value and before the environment for a setting that names some
// (Def.Vars); the last one defined wins.
func (s *Source) ResolveWithVars(label string, d Def, direct any, hasDirect bool, vars func(string) (any, bool)) (any, string, error) {
	v, origin, fromFile := direct, "Direct", false
	if !hasDirect || direct == nil {
		v = nil
		for _, name := range d.Vars {
			if vars == nil {
				break
			}
			if x, ok := vars(name); ok && x != nil {
				v, origin = x, "var: "+name
			}
		}
	}
	if v == nil {
		v, origin, fromFile = s.raw(d)
	}
	if v == nil {
		if u, ok := d.Default.(UnderHome); ok {
			home, _, err := s.Core("ANSIBLE_HOME")
			if err != nil {
				return nil, "", err
			}
			v = value.Str(home) + string(u)
		} else {
			v = d.Default
		}
		origin = "default"
	}
	out, err := s.convert(v, d, origin, fromFile)
	if err != nil && strings.HasPrefix(origin, "env:") && v == "" {
		// An empty environment variable that does not convert leaves the
		// setting at its default.
		origin = "default"
		out, err = EnsureType(d.Default, d.Type, "")
	}
	if err != nil {
		return nil, "", &OptionError{Msg: "Config " + label + " from " + value.Repr(origin) + " has an invalid value.", Cause: err}
	}
	if out != nil && len(d.Choices) > 0 && !allowed(out, d) {
		return nil, "", &OptionError{Msg: "Invalid value " + value.Repr(out) + " for config " + label + ".",
			Help: "Valid values are: " + strings.Join(d.Choices, ", ")}
	}
	return out, origin, nil
}

// raw reads a setting from the environment, then the config file; the
// last source listed that is set wins.
func (s *Source) raw(d Def) (v any, origin string, fromFile bool) {
	getenv := os.LookupEnv
	if s != nil && s.Getenv != nil {
		getenv = s.Getenv
	}
	for _, name := range d.Env {
		if e, ok := getenv(name); ok {
			v, origin = e, "env: "+name
		}
	}
	if v != nil || s == nil || s.Path == "" {
		return v, origin, false
	}
	for _, k := range d.Ini {
		if e, ok := s.File.Get(k.Section, k.Key); ok {
			v, origin, fromFile = e, s.Path, true
		}
	}
	return v, origin, fromFile
}

// convert applies EnsureType with the base directory ansible-core uses
// for relative paths (the config file's directory for its values) and
// unquotes strings from the config file.
func (s *Source) convert(v any, d Def, origin string, fromFile bool) (any, error) {
	if v == nil {
		return nil, nil
	}
	base := ""
	if fromFile {
		base = filepath.Dir(origin)
	}
	out, err := EnsureType(v, d.Type, base)
	if str, ok := out.(string); ok && fromFile {
		out = Unquote(str)
	}
	return out, err
}

// allowed checks a value (or each item of a list) against the choices.
func allowed(v any, d Def) bool {
	in := func(x any) bool {
		for _, c := range d.Choices {
			if value.Str(x) == c {
				if _, isStr := x.(string); isStr {
					return true
				}
			}
		}
		return false
	}
	if l, ok := v.([]any); ok && strings.ToLower(d.Type) == "list" {
		for _, x := range l {
			if !in(x) {
				return false
			}
		}
		return true
	}
	return in(v)
}
