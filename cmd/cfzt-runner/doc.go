package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/lookup"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// docColumns is the width ansible-doc lays its text out for when its
// output is not a terminal (Display.columns: max(79, tty_size - 1)).
// cfzt-runner always uses it, so that its output is the same everywhere.
const docColumns = 79

// docUsage is `cfzt-runner doc`'s usage line, in ansible-doc's words.
const docUsage = "usage: cfzt-runner doc [-h] [-l] [-t {module,filter,lookup,test}] [NAME ...]"

// docHelpText follows the usage line in `cfzt-runner doc --help`.
const docHelpText = `Lists what cfzt-runner implements and shows a module's options, in
ansible-doc's layout. The options are the argument spec cfzt-runner
validates a task's arguments with; cfzt-runner carries no descriptions
(ansible-doc has them).`

// runDoc is `cfzt-runner doc`: ansible-doc's -l and MODULE for what this
// binary implements.
func runDoc(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doc", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	list := fs.Bool("l", false, "list the available plugins; a collection name (ansible.builtin) filters the list")
	fs.BoolVar(list, "list", false, "list the available plugins")
	kind := fs.String("t", "module", "plugin type: module, filter, lookup or test")
	fs.StringVar(kind, "type", "module", "plugin type")
	help := fs.Bool("h", false, "show this help message and exit")
	fs.BoolVar(help, "help", false, "show this help message and exit")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "%s\ncfzt-runner doc: error: %v\n", docUsage, err)
		return 2
	}
	if *help {
		writeFlagSetHelp(stdout, docUsage, docHelpText, fs)
		return 0
	}
	switch *kind {
	case "module", "filter", "lookup", "test":
	default:
		fmt.Fprintf(stderr, "%s\ncfzt-runner doc: error: argument -t/--type: invalid choice: '%s' (choose from 'module', 'filter', 'lookup', 'test')\n", docUsage, *kind)
		return 2
	}
	cat, err := newDocCatalog()
	if err != nil {
		return startupError(err)
	}
	names := fs.Args()
	if *list {
		prefix := ""
		if len(names) > 0 {
			prefix = strings.TrimSuffix(names[0], ".") + "."
		}
		writeDocList(stdout, cat.list(*kind, prefix))
		return 0
	}
	if len(names) == 0 {
		fmt.Fprintf(stderr, "%s\ncfzt-runner doc: error: give a plugin name, or -l to list them\n", docUsage)
		return 2
	}
	code := 0
	for i, n := range names {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if err := cat.writeDoc(stdout, *kind, n); err != nil {
			fmt.Fprintln(stderr, "[WARNING]:", err)
			code = 1
		}
	}
	return code
}

// docCatalog is what `doc` can describe: the module registry's entries
// with the argument specs of their packages, and the template plugins.
type docCatalog struct {
	entries []module.Entry
	specs   map[string]*argspec.Spec
	eng     *template.Engine
}

func newDocCatalog() (*docCatalog, error) {
	c := &docCatalog{specs: moduleSpecs(), eng: template.New(lookup.Libraries()...)}
	registerPlugins(c.eng, module.NewShared())
	for _, set := range moduleSets() {
		c.entries = append(c.entries, set...)
	}
	// The registry refuses duplicate names: building it checks the sets
	// as a run would.
	if _, err := module.NewRegistry(moduleSets()...); err != nil {
		return nil, err
	}
	return c, nil
}

// list returns name → short description of the plugins of kind whose
// name starts with prefix.
func (c *docCatalog) list(kind, prefix string) map[string]string {
	out := map[string]string{}
	if kind != "module" {
		for _, n := range c.eng.PluginNames(kind) {
			if strings.HasPrefix(n, prefix) {
				out[n] = "implemented natively"
			}
		}
		return out
	}
	for _, e := range c.entries {
		if strings.HasPrefix(e.FQCN, prefix) {
			out[e.FQCN] = docEntrySummary(e, c.specs[e.FQCN] != nil)
		}
	}
	return out
}

// docEntrySummary is a module's line in the list. cfzt-runner has no
// descriptions of its own, so the line says how the module runs here and
// whether `doc MODULE` can show its options.
func docEntrySummary(e module.Entry, hasSpec bool) string {
	var what string
	switch {
	case e.Kind != module.KindModule:
		what = "executor keyword"
	case e.Flags&module.ControllerAction != 0:
		what = "controller action"
	default:
		what = "native module"
	}
	if hasSpec {
		return what + ", options listed"
	}
	return what
}

// writeDocList prints a list as `ansible-doc -l` does: each name padded
// to the longest, then its description cut to the line's width.
func writeDocList(w io.Writer, results map[string]string) {
	names := make([]string, 0, len(results))
	displace := 0
	for n := range results {
		names = append(names, n)
		displace = max(displace, len(n))
	}
	sort.Strings(names)
	limit := docColumns - displace - 5
	for _, n := range names {
		desc := results[n]
		if len(desc) > limit {
			desc = desc[:limit] + "..."
		}
		fmt.Fprintf(w, "%-*s %-*s\n", displace, n, limit, desc)
	}
}

// find resolves a module name as a task may write it.
func (c *docCatalog) find(name string) (module.Entry, bool) {
	for _, e := range c.entries {
		if e.FQCN == name || slices.Contains(e.Aliases, name) {
			return e, true
		}
	}
	for _, prefix := range []string{"ansible.builtin.", "ansible.legacy."} {
		if short, ok := strings.CutPrefix(name, prefix); ok {
			name = short
		}
	}
	for _, e := range c.entries {
		if e.Short() == name {
			return e, true
		}
	}
	return module.Entry{}, false
}

// writeDoc prints one plugin's page in ansible-doc's layout (as with
// ANSIBLE_NOCOLOR: "=" marks a required option, "-" the others).
func (c *docCatalog) writeDoc(w io.Writer, kind, name string) error {
	if kind != "module" {
		for _, n := range c.eng.PluginNames(kind) {
			if n == name || strings.HasSuffix(n, "."+name) {
				fmt.Fprintf(w, "> %s %s (built into cfzt-runner)\n\n", strings.ToUpper(kind), n)
				docWrap(w, "  ", "cfzt-runner implements this "+kind+" natively. It carries no description of it and no description of its arguments: `ansible-doc -t "+kind+" "+n+"` has them.")
				return nil
			}
		}
		return fmt.Errorf("%s %s not found in cfzt-runner's %s plugins (cfzt-runner doc -t %s -l lists them)", kind, name, kind, kind)
	}
	e, ok := c.find(name)
	if !ok {
		return fmt.Errorf("module %s not found in cfzt-runner's modules (cfzt-runner doc -l lists them)", name)
	}
	fmt.Fprintf(w, "> MODULE %s (built into cfzt-runner)\n\n", e.FQCN)
	spec := c.specs[e.FQCN]
	if spec == nil {
		docWrap(w, "  ", "cfzt-runner implements this module ("+docEntrySummary(e, false)+") and checks its arguments in its own code, without an argument spec to show here. cfzt-runner carries no descriptions: `ansible-doc "+e.FQCN+"` has them.")
		return nil
	}
	docWrap(w, "  ", "cfzt-runner implements this module ("+docEntrySummary(e, false)+"). The options below are the argument spec it validates a task's arguments with; cfzt-runner carries no descriptions: `ansible-doc "+e.FQCN+"` has them.")
	fmt.Fprintf(w, "\nOPTIONS (= indicates it is required):\n")
	var lines []string
	docFields(&lines, spec.Options, "        ", "")
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return nil
}

// docFields lays out options as ansible-doc's add_fields does: a blank
// line, the name after its marker, then the option's keys in sorted order
// at indent, sub-options nested two spaces further. Options whose name
// starts with "_" are internal (ansible-core's own modules do not document
// them) and are left out.
func docFields(lines *[]string, opts []argspec.Option, indent, base string) {
	sorted := append([]argspec.Option(nil), opts...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, o := range sorted {
		if strings.HasPrefix(o.Name, "_") {
			continue
		}
		mark := "-"
		if o.Required {
			mark = "="
		}
		*lines = append(*lines, "", base+mark+" "+o.Name)
		fields := value.NewDict(0)
		if len(o.Aliases) > 0 {
			fields.Set("aliases", docAnyStrings(o.Aliases))
		}
		if len(o.Choices) > 0 {
			fields.Set("choices", o.Choices)
		}
		if o.Default != nil || !o.Required {
			fields.Set("default", o.Default)
		}
		if o.Elements != "" {
			fields.Set("elements", string(o.Elements))
		}
		typ := string(o.Type)
		if typ == "" {
			typ = "str"
		}
		fields.Set("type", typ)
		for _, k := range fields.Keys() {
			v, _ := fields.Get(k)
			*lines = append(*lines, indent+docYAML(k, v))
		}
		if len(o.Options) > 0 {
			*lines = append(*lines, indent+"suboptions:")
			docFields(lines, o.Options, indent+"  ", indent)
		}
	}
}

// docYAML is one `key: value` line as ansible-doc dumps it with PyYAML: a
// list in flow style, anything else as a one-key mapping.
func docYAML(k string, v any) string {
	if l, ok := v.([]any); ok {
		s, err := py.YAMLDump(l, py.YAMLDumpOptions{Indent: 2, Flow: 1})
		if err == nil {
			return k + ": " + strings.TrimRight(s, "\n")
		}
	}
	s, err := py.YAMLDump(value.DictOf(k, v), py.YAMLDumpOptions{Indent: 2})
	if err != nil {
		return k + ": " + value.Str(v)
	}
	return strings.TrimRight(s, "\n")
}

func docAnyStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// docWrap fills text to ansible-doc's width (79 less a fifth, at
// least 70), each line starting with indent.
func docWrap(w io.Writer, indent, text string) {
	limit := max(docColumns-docColumns/5, 70) // int(79*0.20) is 15, as 79/5
	line := indent
	for _, word := range strings.Fields(text) {
		if line != indent && len(line)+1+len(word) > limit {
			fmt.Fprintln(w, line)
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += word
	}
	if line != indent {
		fmt.Fprintln(w, line)
	}
}
