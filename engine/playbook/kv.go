package playbook

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// ParseKV splits Ansible's free-form `k=v k2="v 2" raw words` arguments as
// ansible-core's parse_kv does: escape sequences are decoded, a word with
// an unescaped `=` (not first) is a key and value, and the other words are
// joined into _raw_params.
// A line whose quotes or Jinja2 delimiters do not balance is kept whole as
// _raw_params.
func ParseKV(s string) *value.Dict {
	d, err := parseKV(s, false)
	if err != nil {
		return value.DictOf("_raw_params", s)
	}
	return d
}

// ParseCommandLine is parse_kv with check_raw, for command, shell, raw
// and script: only the words that set one of commandLineOptions become
// options; every other word, k=v or not, stays in _raw_params.
func ParseCommandLine(s string) (*value.Dict, error) { return parseKV(s, true) }

// commandLineOptions are the options parse_kv(check_raw=True) takes out
// of a command line.
var commandLineOptions = map[string]bool{
	"creates": true, "removes": true, "chdir": true, "executable": true,
	"warn": true, "stdin": true, "stdin_add_newline": true, "strip_empty_ends": true,
}

func parseKV(s string, checkRaw bool) (*value.Dict, error) {
	words, err := splitArgs(s)
	if err != nil {
		return nil, err
	}
	d := value.NewDict(2)
	var raw []string
	for _, orig := range words {
		x := decodeEscapes(orig)
		if !strings.Contains(x, "=") {
			raw = append(raw, orig)
			continue
		}
		pos := -1
		for i := 1; i < len(x); i++ {
			if x[i] == '=' && x[i-1] != '\\' {
				pos = i
				break
			}
		}
		if pos < 0 {
			raw = append(raw, strings.ReplaceAll(x, `\=`, "="))
			continue
		}
		if checkRaw && !commandLineOptions[x[:pos]] {
			raw = append(raw, orig)
			continue
		}
		d.Set(strings.TrimSpace(x[:pos]), unquote(strings.TrimSpace(x[pos+1:])))
	}
	if len(raw) > 0 {
		d.Set("_raw_params", joinArgs(raw))
	}
	return d, nil
}

// escapeRE matches the escape sequences parse_kv decodes.
var escapeRE = regexp.MustCompile(`\\U[0-9a-fA-F]{8}|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\[\\'"abfnrtv]`)

// decodeEscapes decodes backslash escapes like Python's unicode-escape
// codec does for the sequences parse_kv recognises.
func decodeEscapes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return escapeRE.ReplaceAllStringFunc(s, func(m string) string {
		switch m[1] {
		case 'U', 'u', 'x':
			n, err := strconv.ParseUint(m[2:], 16, 32)
			if err != nil {
				return m
			}
			return string(rune(n))
		}
		return map[byte]string{'\\': `\`, '\'': "'", '"': `"`, 'a': "\a", 'b': "\b", 'f': "\f", 'n': "\n", 'r': "\r", 't': "\t", 'v': "\v"}[m[1]]
	})
}

// unquote strips matching outer quotes, as ansible-core's unquote does.
func unquote(s string) string {
	if len(s) > 1 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] && s[len(s)-2] != '\\' {
		return s[1 : len(s)-1]
	}
	return s
}
