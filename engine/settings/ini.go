package settings

import (
	"strings"
	"unicode"
)

// File is an ansible.cfg read as Python's configparser reads it for
// ansible-core: section -> lower-cased key -> raw value.
type File map[string]map[string]string

// Get returns a key of a section, falling back to the DEFAULT section as
// configparser does.
func (f File) Get(section, key string) (string, bool) {
	key = strings.ToLower(key)
	if v, ok := f[section][key]; ok {
		return v, true
	}
	v, ok := f["DEFAULT"][key]
	return v, ok
}

// ParseINI reads src as configparser with inline ';' comments: "[section]"
// headers, "key = value" or "key: value" lines (the first '=' or ':'
// separates them), whole-line comments starting with '#' or ';', a ';'
// after whitespace starting an inline comment, and indented lines
// continuing the previous value.
func ParseINI(src string) File {
	out := File{}
	section, key := "", ""
	indent := 0
	for _, raw := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		line := stripInlineComment(raw)
		trimmed := strings.TrimSpace(line)
		lead := len(line) - len(strings.TrimLeftFunc(line, unicode.IsSpace))
		if trimmed == "" || trimmed[0] == '#' || trimmed[0] == ';' {
			continue
		}
		if key != "" && lead > indent {
			out[section][key] += "\n" + trimmed
			continue
		}
		key = ""
		if strings.HasPrefix(trimmed, "[") && strings.HasSuffix(trimmed, "]") {
			section = trimmed[1 : len(trimmed)-1]
			if out[section] == nil {
				out[section] = map[string]string{}
			}
			continue
		}
		i := strings.IndexAny(trimmed, "=:")
		if i < 0 || section == "" {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(trimmed[:i]))
		indent = lead
		out[section][key] = strings.TrimSpace(trimmed[i+1:])
	}
	return out
}

// stripInlineComment drops a ';' comment that follows whitespace.
func stripInlineComment(line string) string {
	for i := 1; i < len(line); i++ {
		if line[i] == ';' && (line[i-1] == ' ' || line[i-1] == '\t') {
			return line[:i]
		}
	}
	return line
}
