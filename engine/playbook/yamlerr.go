package playbook

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
	"gopkg.in/yaml.v3"
)

// yamlContexts gives libyaml's context phrase for each problem, which
// PyYAML prints before it and yaml.v3 leaves out.
var yamlContexts = map[string]string{
	"did not find expected '-' indicator":                   "while parsing a block collection",
	"did not find expected key":                             "while parsing a block mapping",
	"did not find expected node content":                    "while parsing a block node",
	"did not find expected ',' or ']'":                      "while parsing a flow sequence",
	"did not find expected ',' or '}'":                      "while parsing a flow mapping",
	"found character that cannot start any token":           "while scanning for the next token",
	"found unexpected end of stream":                        "while scanning a quoted scalar",
	"could not find expected ':'":                           "while scanning a simple key",
	"found unknown escape character":                        "while parsing a quoted scalar",
	"did not find expected comment or line break":           "while scanning a block scalar",
	"did not find expected alphabetic or numeric character": "while scanning an anchor",
}

// yamlError turns a yaml.v3 error into 2.19's "YAML parsing failed" error
// at the position PyYAML (libyaml) reports, which yaml.v3 does not expose:
// it is found by parsing ever longer prefixes of the source.
func yamlError(path string, src []byte, err error) *diag.Diagnostic {
	problem := yamlProblemText(err)
	line, col := problemMark(src, problem)
	return yamlProblem(path, src, yamlContexts[problem], problem, line, col)
}

// yamlProblemText strips yaml.v3's "yaml: line N: " prefix.
func yamlProblemText(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if strings.HasPrefix(msg, "line ") {
		if _, rest, ok := strings.Cut(msg, ": "); ok {
			msg = rest
		}
	}
	return msg
}

// parseProblem parses src and returns its problem text ("" when it parses).
func parseProblem(src []byte) string {
	var n yaml.Node
	if err := yaml.Unmarshal(src, &n); err != nil {
		return yamlProblemText(err)
	}
	return ""
}

// eofMark is the 1-based line and column just past the end of src.
func eofMark(src []byte) (int, int) {
	line := bytes.Count(src, []byte("\n")) + 1
	last := bytes.LastIndexByte(src, '\n')
	return line, len(src) - last
}

// problemMark finds the problem position: the end of the shortest prefix
// of src that fails with the same problem. Problems raised by the end of
// the stream are at the end of the file.
func problemMark(src []byte, problem string) (int, int) {
	if strings.Contains(problem, "end of stream") {
		return eofMark(src)
	}
	if strings.HasPrefix(problem, "did not find expected ',' or") || problem == "could not find expected ':'" {
		// These also fail on any truncated prefix; only a failure that
		// survives closing the collection is positioned by prefixes.
		closer := "]"
		if strings.HasSuffix(problem, "'}'") {
			closer = "}"
		}
		if problem == "could not find expected ':'" || parseProblem(append(append([]byte{}, src...), closer...)) != problem {
			return eofMark(src)
		}
	}
	// Whole lines first, then characters within the first failing line.
	lines := bytes.SplitAfter(src, []byte("\n"))
	end := 0
	for _, l := range lines {
		if parseProblem(src[:end+len(l)]) == problem {
			break
		}
		end += len(l)
	}
	for k := end + 1; k <= len(src); k++ {
		if parseProblem(src[:k]) == problem {
			prefix := src[:k-1]
			line := bytes.Count(prefix, []byte("\n")) + 1
			return line, k - 1 - bytes.LastIndexByte(prefix, '\n')
		}
	}
	return eofMark(src)
}

var (
	reUnquotedTemplate = regexp.MustCompile(`^\s*(?:-\s+)*(?:[\w\s]+:\s+)?(\{\{.*}})`)
	reValue            = regexp.MustCompile(`^\s*(?:-\s+)*(?:[\w\s\[\]{}]+:\s+)?(.*)$`)
	reQuotedValue      = regexp.MustCompile(`^\s*('[^']*'|"[^"]*")\s*$`)
	reColon            = regexp.MustCompile(`:($| )`)
	reQuoteStart       = regexp.MustCompile(`^\s*(?:-\s+)*(?:[\w\s]+:\s+)?(["'].*?\s*)$`)
)

const (
	helpTemplate = "\nFor example:\n\n    raw: {{ some_var }}\n\nShould be:\n\n    raw: \"{{ some_var }}\""
	helpColon    = "\nFor example:\n\n    raw: echo 'name: ansible'\n\nShould be:\n\n    raw: \"echo 'name: ansible'\""
	helpQuote    = "\nFor example:\n\n    raw: \"foo\" in bar\n\nShould be:\n\n    raw: '\"foo\" in bar'"
	helpQuote2   = "\nFor example:\n\n    raw: \"foo\" in \"bar\"\n\nShould be:\n\n    raw: '\"foo\" in \"bar\"'"
)

// yamlProblem builds the error for a YAML problem at line:col, applying
// ansible-core's hints for tabs, unquoted templates, colons and quotes.
func yamlProblem(path string, src []byte, context, problem string, line, col int) *diag.Diagnostic {
	lines := strings.Split(string(src), "\n")
	target := ""
	if line >= 1 && line <= len(lines) {
		target = lines[line-1]
	}
	le := &diag.Diagnostic{Code: diag.ExitParse}
	msg := ""
	if i := strings.IndexByte(target, '\t'); i >= 0 {
		col, msg = i+1, "Tabs are usually invalid in YAML."
	} else if m := reUnquotedTemplate.FindStringSubmatchIndex(target); m != nil {
		col, msg, le.Help = m[2]+1, "This may be an issue with missing quotes around a template block.", helpTemplate
	} else if vm := reValue.FindStringSubmatchIndex(target); !strings.HasPrefix(strings.TrimLeft(target, " \t"), ":") && vm != nil {
		v := target[vm[2]:vm[3]]
		frag := reQuotedValue.ReplaceAllStringFunc(v, func(q string) string { return strings.Repeat(".", len(q)) })
		if cm := reColon.FindStringIndex(frag); frag != "" && cm != nil {
			col, msg, le.Help = vm[2]+cm[0]+1, "Colons in unquoted values must be followed by a non-space character.", helpColon
		}
	}
	if msg == "" {
		if m := reQuoteStart.FindStringSubmatchIndex(target); m != nil {
			v := target[m[2]:m[3]]
			first, last := v[0], v[len(v)-1]
			switch {
			case first != last:
				col, msg, le.Help = m[2]+1, "Values starting with a quote must end with the same quote.", helpQuote
			case strings.Count(target, string(first)) > 2:
				col, msg, le.Help = m[2]+1, "Values starting with a quote must end with the same quote, and not contain that quote.", helpQuote2
			}
		}
	}
	if msg == "" {
		msg = strings.TrimSpace(strings.Join(nonEmpty(context, problem), " "))
		if msg != "" {
			msg = strings.ToUpper(msg[:1]) + msg[1:]
		}
		if !strings.HasSuffix(msg, ".") {
			msg += "."
		}
		msg = strings.Join(strings.Fields(msg), " ")
	}
	le.Summary = "YAML parsing failed: " + msg
	le.Origin = &value.Pos{File: path, Line: line, Col: col}
	return le
}

func nonEmpty(s ...string) []string {
	var out []string
	for _, x := range s {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

// unhashableKey finds a mapping key that is itself a mapping or sequence,
// which PyYAML cannot construct (yaml.v3 accepts it).
func unhashableKey(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.MappingNode || k.Kind == yaml.SequenceNode {
				return k
			}
		}
	}
	for _, c := range n.Content {
		if bad := unhashableKey(c); bad != nil {
			return bad
		}
	}
	return nil
}
