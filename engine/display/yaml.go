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

// dumpCommunityYAML renders a cleaned result as community.general's yaml
// callback does: changed= and skipped= on the header line, stdout_lines
// and stderr_lines omitted beside stdout and stderr, the rest as sorted
// two-space YAML (multi-line strings in literal block style), each line
// indented by two spaces.
func dumpCommunityYAML(v any) string {
	res, ok := v.(*value.Dict)
	if !ok {
		return value.JSON(v, value.JSONOptions{Indent: 4, SortKeys: true})
	}
	var b strings.Builder
	rest := value.NewDict(res.Len())
	res.Each(func(k string, e any) bool {
		if k != "changed" && k != "skipped" {
			rest.Set(k, e)
		}
		return true
	})
	for _, k := range []string{"changed", "skipped"} {
		if e, ok := res.Get(k); ok {
			b.WriteString(k + "=" + strings.ToLower(value.Str(e)) + " ")
		}
	}
	for _, k := range []string{"stdout", "stderr"} {
		if rest.Has(k) && rest.Has(k+"_lines") {
			rest.Set(k+"_lines", "<omitted>")
		}
	}
	if rest.Len() > 0 {
		out, err := py.YAMLDump(rest, py.YAMLDumpOptions{Indent: 2, Width: 1000, SortKeys: true, BlockMultiline: true, Lossy: true})
		if err != nil {
			return value.JSON(res, value.JSONOptions{Indent: 4, SortKeys: true})
		}
		b.WriteString("\n" + out)
	}
	return strings.TrimRightFunc(strings.ReplaceAll(b.String(), "\n", "\n  "), py.IsSpace)
}
