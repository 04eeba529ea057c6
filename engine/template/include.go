package template

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// includePaths is the search path of a template file's {% include %}s, as
// ansible-core gives Jinja2's FileSystemLoader: each directory's
// templates/ subdirectory, then the directory itself.
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
	v, err := c.evalDefined(x.Template)
	if err != nil {
		return err
	}
	var names []string
	if s, ok := v.(string); ok {
		names = []string{s}
	} else {
		items, err := iterate(v)
		if err != nil {
			return err
		}
		for _, it := range items {
			names = append(names, value.Str(it))
		}
	}
	for _, name := range names {
		if p, ok := c.findInclude(name); ok {
			return c.renderInclude(x, p, b)
		}
	}
	switch {
	case x.IgnoreMissing:
		return nil
	case len(names) == 1:
		return &RuntimeError{Msg: names[0]}
	}
	return &RuntimeError{Msg: "none of the templates given were found: " + strings.Join(names, ", ")}
}

// renderInclude renders the template file at path into b, in the
// including template's environment (its options, not a #jinja2: header of
// its own) and with Jinja2's escapes.
func (c *Ctx) renderInclude(x *syntax.Include, path string, b *sink) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return &RuntimeError{Msg: err.Error()}
	}
	nodes, err := c.eng.parseConfig(string(src), false, c.syntax)
	if err != nil {
		return err
	}
	sub := &Ctx{eng: c.eng, vars: c.vars, opt: c.opt, resolved: c.resolved, resolving: c.resolving, depth: c.depth + 1,
		jinjaEscapes: true, syntax: c.syntax, includePaths: c.includePaths}
	if sub.depth > 200 {
		return &recursionError{}
	}
	if !x.WithContext {
		sub.vars, sub.resolved = MapVars{D: value.NewDict(0)}, map[string]any{}
	} else if len(c.scopes) > 0 {
		locals := value.NewDict(8)
		for _, s := range c.scopes {
			locals.Update(s)
		}
		sub.scopes = []*value.Dict{locals}
	}
	return sub.execBody(nodes, b)
}
