package template

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// configParser is an INI file as Python's configparser.ConfigParser reads
// it with its defaults (the ini lookup's view of a file): sections in
// order, a DEFAULT section whose options every section inherits, '=' or
// ':' between an option and its value, whole-line '#' and ';' comments,
// and indented lines continuing the value before them.
type configParser struct {
	defaults *iniSection
	sections map[string]*iniSection
}

// iniSection is one section's options, in file order; a nil value is an
// option written without one (allow_no_value).
type iniSection struct {
	keys   []string
	values map[string]*string
	// defaults is the DEFAULT section (nil for DEFAULT itself).
	defaults *iniSection
}

// errDuplicateOption is an option given twice in one section.
var errDuplicateOption = errors.New("duplicate option")

// iniOptionRe splits an option line at its first '=' or ':'.
var iniOptionRe = regexp.MustCompile(`^(.*?)\s*[=:]\s*(.*)$`)

// parseConfigParser reads src; keys are lowercased unless caseSensitive.
func parseConfigParser(src string, caseSensitive, allowNoValue bool) (*configParser, error) {
	cp := &configParser{defaults: newIniSection(nil), sections: map[string]*iniSection{}}
	var cur *iniSection
	var lastKey string
	var lastVal *string
	for i, line := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		stripped := strings.TrimSpace(line)
		if strings.HasPrefix(stripped, "#") || strings.HasPrefix(stripped, ";") {
			continue
		}
		if stripped == "" {
			lastVal = nil
			continue
		}
		indented := len(line) > len(strings.TrimLeft(line, " \t"))
		if indented && cur != nil && lastVal != nil {
			*lastVal += "\n" + stripped
			continue
		}
		if strings.HasPrefix(stripped, "[") && strings.HasSuffix(stripped, "]") && len(stripped) > 2 {
			name := stripped[1 : len(stripped)-1]
			if name == "DEFAULT" {
				cur = cp.defaults
			} else {
				if _, dup := cp.sections[name]; dup {
					return nil, fmt.Errorf("While reading from '<???>' [line %2d]: section %s already exists", i+1, value.Repr(name))
				}
				cur = newIniSection(cp.defaults)
				cp.sections[name] = cur
			}
			lastVal = nil
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("File contains no section headers.\nfile: '<???>', line: %d\n%s", i+1, value.Repr(line+"\n"))
		}
		key, val, hasVal := stripped, "", false
		if m := iniOptionRe.FindStringSubmatch(stripped); m != nil {
			key, val, hasVal = m[1], m[2], true
		} else if !allowNoValue {
			return nil, fmt.Errorf("Source contains parsing errors: '<???>'\n\t[line %2d]: %s", i+1, value.Repr(line+"\n"))
		}
		if !caseSensitive {
			key = strings.ToLower(key)
		}
		if _, dup := cur.values[key]; dup {
			return nil, errDuplicateOption
		}
		cur.keys = append(cur.keys, key)
		lastKey = key
		if hasVal {
			v := val
			cur.values[lastKey] = &v
			lastVal = &v
		} else {
			cur.values[lastKey] = nil
			lastVal = nil
		}
	}
	return cp, nil
}

func newIniSection(defaults *iniSection) *iniSection {
	return &iniSection{values: map[string]*string{}, defaults: defaults}
}

// section returns a section by name (DEFAULT is not one, as in Python).
func (cp *configParser) section(name string) (*iniSection, bool) {
	s, ok := cp.sections[name]
	return s, ok
}

// has reports whether the section or DEFAULT has the option.
func (s *iniSection) has(key string) bool {
	if _, ok := s.values[key]; ok {
		return true
	}
	return s.defaults != nil && s.defaults.has(key)
}

// raw returns an option's value as written, looking in DEFAULT too.
func (s *iniSection) raw(key string) (*string, bool) {
	if v, ok := s.values[key]; ok {
		return v, true
	}
	if s.defaults != nil {
		return s.defaults.raw(key)
	}
	return nil, false
}

// get returns an option's value (nil for one without a value), with
// BasicInterpolation's %(name)s and %% applied when interp is set.
func (cp *configParser) get(s *iniSection, key string, interp bool) (any, error) {
	v, _ := s.raw(key)
	if v == nil {
		return nil, nil
	}
	if !interp {
		return *v, nil
	}
	out, err := interpolate(s, key, *v, 1)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// maxInterpolationDepth is configparser's MAX_INTERPOLATION_DEPTH.
const maxInterpolationDepth = 10

// interpolate expands %(name)s references and %% in the value of key.
func interpolate(s *iniSection, key, v string, depth int) (string, error) {
	if depth > maxInterpolationDepth {
		return "", Errorf("Recursion limit exceeded in value substitution: option %s in section %s contains an interpolation key which cannot be substituted in %d steps. Raw value: %s", value.Repr(key), value.Repr("?"), maxInterpolationDepth, value.Repr(v))
	}
	var b strings.Builder
	for rest := v; rest != ""; {
		i := strings.IndexByte(rest, '%')
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		rest = rest[i:]
		switch {
		case strings.HasPrefix(rest, "%%"):
			b.WriteByte('%')
			rest = rest[2:]
		case strings.HasPrefix(rest, "%("):
			end := strings.Index(rest, ")s")
			if end < 0 {
				return "", Errorf("bad interpolation variable reference %s", value.Repr(rest))
			}
			name := strings.ToLower(rest[2:end])
			ref, ok := s.raw(name)
			if !ok {
				return "", Errorf("Bad value substitution: option %s in section %s contains an interpolation key %s which is not a valid option name. Raw value: %s", value.Repr(key), value.Repr("?"), value.Repr(name), value.Repr(v))
			}
			if ref != nil {
				sub, err := interpolate(s, name, *ref, depth+1)
				if err != nil {
					return "", err
				}
				b.WriteString(sub)
			}
			rest = rest[end+2:]
		default:
			return "", Errorf("'%%' must be followed by '%%' or '(', found: %s", value.Repr(rest))
		}
	}
	return b.String(), nil
}
