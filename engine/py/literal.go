package py

import (
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// LiteralEval reads s as ansible's INI inventory reads a value: as Python's
// ast.literal_eval would (True, False, None, numbers, quoted strings, lists
// and dicts, the latter read as YAML flow collections), falling back to s
// itself.
func LiteralEval(s string) any {
	switch s {
	case "True":
		return true
	case "False":
		return false
	case "None":
		return nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && strings.ContainsAny(s, ".eE") && !strings.ContainsAny(s, "xX") {
		return f
	}
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	if len(s) >= 2 && (s[0] == '[' || s[0] == '{') {
		if docs, _, err := value.DecodeYAML("", []byte(s)); err == nil && len(docs) == 1 {
			return docs[0]
		}
	}
	return s
}
