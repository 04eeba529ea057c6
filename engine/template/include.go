package template

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// includePaths is the search path of a template file's {% include %}s, as
// ansible-core gives Jinja2's FileSystemLoader: each directory's
// templates/ subdirectory, then the directory itself.
// searchDirs are the directories of a task's search path, the play's
// directory last.
func searchDirs(o Options) []string {
	dirs := append([]string(nil), o.Search.Dirs...)
	if o.Search.Base != "" {
		dirs = append(dirs, o.Search.Base)
	}
	return dirs
}

func includePaths(dirs []string) []string {
	out := make([]string, 0, 2*len(dirs))
	for _, d := range dirs {
		out = append(out, filepath.Join(d, "templates"), d)
	}
	return out
}

// findInclude looks a template name up as FileSystemLoader does: the name
// is split on "/", a ".." piece is never found, and the pieces are joined
// under each directory of the search path in turn.
func (c *Ctx) findInclude(name string) (string, bool) {
	var pieces []string
	for _, piece := range strings.Split(name, "/") {
		switch piece {
		case "..":
			return "", false
		case "", ".":
		default:
			pieces = append(pieces, piece)
		}
	}
	for _, dir := range c.includePaths {
		p := filepath.Join(append([]string{dir}, pieces...)...)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// execInclude renders the first template found of those {% include %}
// names into b: with the context, it sees the variables and the local
// names of the including template; its own assignments stay its own.
func (c *Ctx) execInclude(x *syntax.Include, b *sink) error {
	nodes, sub, err := c.loadTemplate(x.Template, x.WithContext, x.IgnoreMissing)
	if err != nil || nodes == nil {
		return err
	}
	if b.root == nil {
		return sub.execBody(nodes, b)
	}
	// An include's output is written even after its template extends
	// another, as Jinja2 writes it.
	var inner sink
	err = sub.execBody(nodes, &inner)
	if terr := b.take(&inner); err == nil {
		err = terr
	}
	return err
}

// loadTemplate finds and parses the template (a name or a list of names,
// the first found wins) that a tag loads, and makes the context it runs
// in: with the context, the loading template's variables and local names;
// without, none. It is parsed in the loading template's environment (its
// options, not a #jinja2: header of its own) and with Jinja2's escapes. A
// missing template is nil when ignoreMissing is set.
func (c *Ctx) loadTemplate(name syntax.Expr, withContext, ignoreMissing bool) ([]syntax.Node, *Ctx, error) {
	path, err := c.findTemplate(name, ignoreMissing)
	if err != nil || path == "" {
		return nil, nil, err
	}
	return c.parseLoaded(path, withContext)
}

// findTemplate evaluates the template name (or list of names) of a tag
// that loads one and returns the path of the first found; a missing
// template is an error, or "" when ignoreMissing is set.
func (c *Ctx) findTemplate(name syntax.Expr, ignoreMissing bool) (string, error) {
	v, err := c.evalDefined(name)
	if err != nil {
		return "", err
	}
	var names []string
	if s, ok := v.(string); ok {
		names = []string{s}
	} else {
		items, err := Iterate(v)
		if err != nil {
			return "", err
		}
		for _, it := range items {
			names = append(names, value.Str(it))
		}
	}
	for _, n := range names {
		if p, ok := c.findInclude(n); ok {
			return p, nil
		}
	}
	switch {
	case ignoreMissing:
		return "", nil
	case len(names) == 1:
		return "", &RuntimeError{Msg: names[0]}
	}
	return "", &RuntimeError{Msg: "none of the templates given were found: " + strings.Join(names, ", ")}
}

// readTemplate parses the template file at path in the loading template's
// environment, with Jinja2's escapes.
func (c *Ctx) readTemplate(path string) ([]syntax.Node, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, &RuntimeError{Msg: err.Error()}
	}
	return c.eng.parseConfig(string(src), false, c.syntax)
}

func (c *Ctx) parseLoaded(path string, withContext bool) ([]syntax.Node, *Ctx, error) {
	nodes, err := c.readTemplate(path)
	if err != nil {
		return nil, nil, err
	}
	sub := &Ctx{eng: c.eng, vars: c.vars, opt: c.opt, resolved: c.resolved, resolving: c.resolving, depth: c.depth + 1,
		jinjaEscapes: true, syntax: c.syntax, includePaths: c.includePaths}
	if sub.depth > 200 {
		return nil, nil, &recursionError{}
	}
	if !withContext {
		sub.vars, sub.resolved = MapVars{D: value.NewDict(0)}, map[string]any{}
	} else if len(c.scopes) > 0 {
		locals := value.NewDict(8)
		for _, s := range c.scopes {
			locals.Update(s)
		}
		sub.scopes = []*value.Dict{locals}
	}
	return nodes, sub, nil
}

// templateModule is what {% import %} binds: the names a template sets
// and the macros it defines at its top level (but those starting with an
// underscore), and its output as its str().
type templateModule struct {
	exports *value.Dict
	output  string
}

func (m *templateModule) String() string { return m.output }

// PyType is the module's type name in error messages.
func (m *templateModule) PyType() string { return "TemplateModule" }

// loadModule runs the template an import names and collects its exports.
func (c *Ctx) loadModule(name syntax.Expr, withContext bool) (*templateModule, error) {
	nodes, sub, err := c.loadTemplate(name, withContext, false)
	if err != nil {
		return nil, err
	}
	top := sub.pushScope()
	var b sink
	if err := sub.execBody(nodes, &b); err != nil {
		return nil, err
	}
	m := &templateModule{exports: value.NewDict(top.Len()), output: concatText(b.concat())}
	top.Each(func(k string, v any) bool {
		if !strings.HasPrefix(k, "_") {
			m.exports.Set(k, v)
		}
		return true
	})
	return m, nil
}

// execImport binds the module of {% import %} to its name.
func (c *Ctx) execImport(x *syntax.Import) error {
	m, err := c.loadModule(x.Template, x.WithContext)
	if err != nil {
		return err
	}
	c.assign(x.Name, m)
	return nil
}

// execFromImport binds the names {% from %} imports; a name the template
// does not export is an undefined value that fails where it is used.
func (c *Ctx) execFromImport(x *syntax.FromImport) error {
	m, err := c.loadModule(x.Template, x.WithContext)
	if err != nil {
		return err
	}
	tmpl, _ := c.eval(x.Template)
	for i, name := range x.Names {
		v, ok := m.exports.Get(name)
		if !ok {
			v = value.Undefined{Msg: fmt.Sprintf("the template %s (imported on line %d) does not export the requested name %s",
				value.Repr(tmpl), x.Pos.Line, value.Repr(name))}
		}
		c.assign(x.Aliases[i], v)
	}
	return nil
}
