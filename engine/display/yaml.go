package display

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// dumpYAML renders a cleaned result as _dump_results does with
// result_format=yaml and the default pretty_results: stdout_lines and
// stderr_lines are omitted beside stdout and stderr, keys are sorted,
// strings with line breaks take the literal block style, and the YAML
// starts on its own line, indented by four spaces.
func dumpYAML(v any) string {
	res, ok := v.(*value.Dict)
	if !ok {
		return value.JSON(v, value.JSONOptions{Indent: 4, SortKeys: true})
	}
	for _, k := range []string{"stdout", "stderr"} {
		if res.Has(k) && res.Has(k+"_lines") {
			res.Set(k+"_lines", "<omitted>")
		}
	}
	out, err := py.YAMLDump(res, py.YAMLDumpOptions{Indent: 4, SortKeys: true, BlockMultiline: true, Lossy: true})
	if err != nil {
		return value.JSON(res, value.JSONOptions{Indent: 4, SortKeys: true})
	}
	// display() adds no line break after text that ends with one.
	return "\n" + strings.TrimSuffix(indentLines(out, "    "), "\n")
}

// indentLines is Python's textwrap.indent: prefix added to every line
// that is not only whitespace.
func indentLines(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			b.WriteString(prefix)
		}
		b.WriteString(l)
	}
	return b.String()
}
