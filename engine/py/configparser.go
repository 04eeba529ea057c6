package py

import (
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// ConfigParser is an INI text as Python's configparser.ConfigParser reads
// it with its defaults: [sections] in order, "key = value" or
// "key: value" (keys lowercased unless case-sensitive), indented
// continuation lines and blank lines inside a value, whole-line # and ;
// comments, and a DEFAULT section whose options every section inherits.
// The ini lookup and local facts read INI files through it.
type ConfigParser struct {
	Defaults *ConfigSection
	Sections []*ConfigSection
}

// ConfigSection is one section's options in file order; a nil value is
// an option written without one (allow_no_value).
type ConfigSection struct {
	Name     string
	Keys     []string
	values   map[string]*string
	defaults *ConfigSection
}

// ConfigError is a configparser parsing error; Duplicate marks a
// DuplicateOptionError.
type ConfigError struct {
	Msg       string
	Duplicate bool
}

func (e *ConfigError) Error() string { return e.Msg }

// InterpolationError is an error in a value's %-references.
type InterpolationError struct{ Msg string }

func (e *InterpolationError) Error() string { return e.Msg }

// ParseConfig reads text. allowNoValue accepts an option line without a
// delimiter (its value is nil).
func ParseConfig(text string, caseSensitive, allowNoValue bool) (*ConfigParser, error) {
	cp := &ConfigParser{Defaults: newConfigSection("DEFAULT", nil)}
	seen := map[string]bool{}
	var cur *ConfigSection
	var lastKey string
	lastIndent := -1
	for _, raw := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		stripped := strings.TrimSpace(raw)
		indent := len(raw) - len(strings.TrimLeft(raw, " \t"))
		if strings.HasPrefix(stripped, "#") || strings.HasPrefix(stripped, ";") {
			continue
		}
		if stripped == "" {
			if v := cur.value(lastKey); v != nil {
				*v += "\n"
			}
			continue
		}
		if v := cur.value(lastKey); v != nil && indent > lastIndent {
			*v += "\n" + stripped
			continue
		}
		if strings.HasPrefix(stripped, "[") && strings.HasSuffix(stripped, "]") {
			name := stripped[1 : len(stripped)-1]
			if seen[name] {
				return nil, &ConfigError{Msg: fmt.Sprintf("section %q already exists", name)}
			}
			seen[name], lastKey = true, ""
			if name == "DEFAULT" {
				cur = cp.Defaults
				continue
			}
			cur = newConfigSection(name, cp.Defaults)
			cp.Sections = append(cp.Sections, cur)
			continue
		}
		if cur == nil {
			return nil, &ConfigError{Msg: "File contains no section headers."}
		}
		key, val, hasVal := stripped, "", false
		if i := strings.IndexAny(stripped, "=:"); i >= 0 {
			key, val, hasVal = strings.TrimSpace(stripped[:i]), strings.TrimSpace(stripped[i+1:]), true
		} else if !allowNoValue {
			return nil, &ConfigError{Msg: "Source contains parsing errors"}
		}
		if !caseSensitive {
			key = strings.ToLower(key)
		}
		if _, dup := cur.values[key]; dup {
			return nil, &ConfigError{Msg: fmt.Sprintf("option %q already exists", key), Duplicate: true}
		}
		cur.Keys = append(cur.Keys, key)
		cur.values[key] = nil
		if hasVal {
			cur.values[key] = &val
		}
		lastKey, lastIndent = key, indent
	}
	return cp, nil
}

func newConfigSection(name string, defaults *ConfigSection) *ConfigSection {
	return &ConfigSection{Name: name, values: map[string]*string{}, defaults: defaults}
}

// value is the value being read for key, nil when there is none to
// continue.
func (s *ConfigSection) value(key string) *string {
	if s == nil || key == "" {
		return nil
	}
	return s.values[key]
}

// Section returns a section by name (DEFAULT is not one, as in Python).
func (cp *ConfigParser) Section(name string) (*ConfigSection, bool) {
	for _, s := range cp.Sections {
		if s.Name == name {
			return s, true
		}
	}
	return nil, false
}

// Has reports whether the section, or DEFAULT, has the option.
func (s *ConfigSection) Has(key string) bool {
	_, ok := s.raw(key)
	return ok
}

// Items lists the section's options, then DEFAULT's it does not override.
func (s *ConfigSection) Items() []string {
	out := append([]string(nil), s.Keys...)
	if s.defaults != nil {
		for _, k := range s.defaults.Keys {
			if _, own := s.values[k]; !own {
				out = append(out, k)
			}
		}
	}
	return out
}

func (s *ConfigSection) raw(key string) (*string, bool) {
	if v, ok := s.values[key]; ok {
		return v, true
	}
	if s.defaults != nil {
		return s.defaults.raw(key)
	}
	return nil, false
}

// Get returns an option's value (nil for one without a value), trailing
// newlines dropped, with BasicInterpolation's %(name)s and %% applied
// when interp is set.
func (s *ConfigSection) Get(key string, interp bool) (any, error) {
	v, _ := s.raw(key)
	if v == nil {
		return nil, nil
	}
	text := strings.TrimRight(*v, "\n")
	if !interp {
		return text, nil
	}
	return s.interpolate(text, 0)
}

// maxInterpolationDepth is configparser's MAX_INTERPOLATION_DEPTH.
const maxInterpolationDepth = 10

// interpolate applies BasicInterpolation: %% is a percent sign and
// %(name)s the value of another option of the section.
func (s *ConfigSection) interpolate(text string, depth int) (string, error) {
	if depth > maxInterpolationDepth {
		return "", &InterpolationError{"Recursion limit exceeded in value substitution"}
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(text, '%')
		if i < 0 {
			b.WriteString(text)
			return b.String(), nil
		}
		b.WriteString(text[:i])
		rest := text[i:]
		switch {
		case strings.HasPrefix(rest, "%%"):
			b.WriteByte('%')
			text = rest[2:]
		case strings.HasPrefix(rest, "%("):
			end := strings.Index(rest, ")s")
			if end < 0 {
				return "", &InterpolationError{"bad interpolation variable reference " + value.Repr(rest)}
			}
			name := strings.ToLower(rest[2:end])
			ref, ok := s.raw(name)
			if !ok {
				return "", &InterpolationError{"Bad value substitution: option " + value.Repr(name)}
			}
			if ref != nil {
				sub, err := s.interpolate(strings.TrimRight(*ref, "\n"), depth+1)
				if err != nil {
					return "", err
				}
				b.WriteString(sub)
			}
			text = rest[end+2:]
		default:
			return "", &InterpolationError{"'%' must be followed by '%' or '(', found: " + value.Repr(rest)}
		}
	}
}
