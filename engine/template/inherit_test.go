package template

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// TestTemplateInheritance renders template t of each case's files, which
// all lie in one directory of the search path. The expected renders are
// Jinja2 3.1's for the same files.
func TestTemplateInheritance(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
		err   string
	}{
		{name: "a block renders in place", files: map[string]string{"t": "<{% block a %}A{% endblock %}>"}, want: "<A>"},
		{name: "a child overrides a block and drops its text", files: map[string]string{
			"p": "<{% block a %}A{% endblock %}|{% block b %}B{% endblock %}>",
			"t": "{% extends 'p' %}dropped{{ never }}{% block a %}a{% endblock %}"}, want: "<a|B>"},
		{name: "output before extends is written", files: map[string]string{
			"p": "[{% block a %}A{% endblock %}]",
			"t": "before {{ x }} {% extends 'p' %}after"}, want: "before X [A]"},
		{name: "super and multi-level super", files: map[string]string{
			"g": "{% block a %}g{% endblock %}",
			"p": "{% extends 'g' %}{% block a %}p({{ super() }}){% endblock %}",
			"t": "{% extends 'p' %}{% block a %}t({{ super() }}){% endblock %}"}, want: "t(p(g))"},
		{name: "self renders the most derived block", files: map[string]string{
			"p": "{% block a %}A{% endblock %}/{{ self.a() }}",
			"t": "{% extends 'p' %}{% block a %}a{% endblock %}"}, want: "a/a"},
		{name: "super of super through the reference", files: map[string]string{
			"g": "{% block a %}g{% endblock %}",
			"p": "{% extends 'g' %}{% block a %}p{% endblock %}",
			"t": "{% extends 'p' %}{% block a %}{{ super.super() }}{% endblock %}"}, want: "g"},
		{name: "top-level sets of the child are seen by the parent's blocks", files: map[string]string{
			"p": "{% set y = 'py' %}{% block a %}{{ y }}{% endblock %}",
			"t": "{% set y = 'ty' %}{% extends 'p' %}{% set z = 'tz' %}{% block a %}{{ y }} {{ z }}{% endblock %}"}, want: "py tz"},
		{name: "a set in a block stays in the block", files: map[string]string{
			"t": "{% set v = 1 %}{% block a %}{% set v = 2 %}{{ v }}{% endblock %}{{ v }}"}, want: "21"},
		{name: "a block in a loop does not see the loop", files: map[string]string{
			"t": "{% for i in [1, 2] %}{% block a %}{{ i is defined }}{% endblock %}{% endfor %}"}, want: "FalseFalse"},
		{name: "a scoped block sees the loop", files: map[string]string{
			"t": "{% for i in [1, 2] %}{% block a scoped %}{{ i }}{{ loop.index }}{% endblock %}{% endfor %}"}, want: "1122"},
		{name: "a nested block is overridable", files: map[string]string{
			"p": "{% block o %}[{% block i %}I{% endblock %}]{% endblock %}",
			"t": "{% extends 'p' %}{% block i %}i{% endblock %}"}, want: "[i]"},
		{name: "an extends in a false if leaves the template alone", files: map[string]string{
			"p": "P",
			"t": "{% if false %}{% extends 'p' %}{% endif %}T{% block a %}a{% endblock %}"}, want: "Ta"},
		{name: "an extends in a true if", files: map[string]string{
			"p": "P{% block a %}{% endblock %}",
			"t": "{% if true %}{% extends 'p' %}{% endif %}T{% block a %}a{% endblock %}"}, want: "Pa"},
		{name: "the parent named by a variable", files: map[string]string{
			"p": "P{% block a %}{% endblock %}",
			"t": "{% extends name %}{% block a %}a{% endblock %}"}, want: "Pa"},
		{name: "an include after extends is still written", files: map[string]string{
			"p": "P", "i": "I",
			"t": "{% extends 'p' %}{% include 'i' %}"}, want: "IP"},
		{name: "a block in a loop of a child is still written", files: map[string]string{
			"p": "P",
			"t": "{% extends 'p' %}{% for i in [1] %}{% block a %}a{% endblock %}{% endfor %}"}, want: "aP"},
		{name: "macros of the child are seen by the parent's blocks", files: map[string]string{
			"p": "{% block a %}{% endblock %}",
			"t": "{% extends 'p' %}{% macro m() %}m{% endmacro %}{% block a %}{{ m() }}{% endblock %}"}, want: "m"},
		{name: "a required block filled by the child", files: map[string]string{
			"p": "{% block a required %}{% endblock %}",
			"t": "{% extends 'p' %}{% block a %}a{% endblock %}"}, want: "a"},
		{name: "an included template has blocks of its own", files: map[string]string{
			"p": "P{% block a %}pa{% endblock %}",
			"i": "{% extends 'p' %}{% block a %}ia{% endblock %}",
			"t": "{% extends 'p' %}{% block a %}ta {% include 'i' %}{% endblock %}"}, want: "Pta Pia"},
		{name: "a required block not filled", files: map[string]string{
			"t": "{% block a required %}{% endblock %}"}, err: "Error rendering template: Required block 'a' not found"},
		{name: "extended twice", files: map[string]string{
			"p": "P",
			"t": "{% extends 'p' %}{% extends 'p' %}"}, err: "Error rendering template: extended multiple times"},
		{name: "no parent block for super", files: map[string]string{
			"t": "{% block a %}{{ super() }}{% endblock %}"}, err: "there is no parent block called 'a'."},
		{name: "a missing parent", files: map[string]string{
			"t": "{% extends 'nowhere' %}"}, err: "Error rendering template: nowhere"},
		{name: "a list of parents", files: map[string]string{
			"p": "P",
			"t": "{% extends ['x', 'p'] %}"}, err: "Error rendering template: unhashable type: 'list'"},
		{name: "a number as parent", files: map[string]string{
			"t": "{% extends 1 %}"}, err: "Error rendering template: 'int' object has no attribute 'split'"},
		{name: "a template that extends itself", files: map[string]string{
			"t": "{% extends 't' %}"}, err: "Recursive loop detected in template: maximum recursion depth exceeded in comparison"},
		// ansible-core renders natively: Jinja2 joins a block as text for
		// super(), and a native output fails there.
		{name: "super joins native values", files: map[string]string{
			"p": "{% block a %}{{ 1 }}{% endblock %}",
			"t": "{% extends 'p' %}{% block a %}{{ super() }}{% endblock %}"}, err: "Error rendering template: sequence item 0: expected str instance, int found"},
	}
	e := New()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range c.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
			}
			vars := value.NewDict(2)
			vars.Set("x", "X")
			vars.Set("name", "p")
			got, err := e.RenderFile(filepath.Join(dir, "t"), c.files["t"], MapVars{D: vars}, Options{Search: search.Path{Base: dir}})
			if c.err != "" {
				require.EqualError(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}
