package run_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// hostile writes a playbook whose facts hold an attacker's template and
// expression: each runs `touch PWNED` through the pipe lookup if the
// engine ever renders or evaluates it. It returns the fixture and the
// path that must never exist.
func hostile(t *testing.T, tasks string) (*fixture, string) {
	t.Helper()
	dir := t.TempDir()
	pwned := filepath.Join(dir, "pwned")
	files := map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  vars:
    conf: {name: "{{ 'from the play' }}"}
  tasks:
    - name: a module returns data holding a template and an expression
      cfzt.test.facts:
        tmpl: "{{ '{{' }} lookup('pipe', 'touch ` + pwned + `') or 'RENDERED' {{ '}}' }}"
        expr: "lookup('pipe', 'touch ` + pwned + `') or true"
` + tasks}
	return newFixture(t, files), pwned
}

func requireNotRun(t *testing.T, pwned string, out string) {
	t.Helper()
	_, err := os.Stat(pwned)
	require.True(t, os.IsNotExist(err), "the attacker's command ran:\n%s", out)
}

// TestUntrustedConditionals: a conditional (or debug's var) that is one
// whole template resolving to data must fail with 2.19's trust error and
// never evaluate the data as an expression.
func TestUntrustedConditionals(t *testing.T) {
	f, pwned := hostile(t, `
    - {name: when, debug: {msg: reached}, when: "{{ expr }}", ignore_errors: true}
    - {name: changed_when, debug: {msg: reached}, changed_when: "{{ expr }}", ignore_errors: true}
    - {name: failed_when, debug: {msg: reached}, failed_when: "{{ expr }}", ignore_errors: true}
    - {name: until, debug: {msg: reached}, until: "{{ expr }}", retries: 1, delay: 0, ignore_errors: true}
    - {name: assert, assert: {that: ["{{ expr }}"]}, ignore_errors: true}
    - {name: debug var, debug: {var: "{{ expr }}"}, ignore_errors: true}
    - {name: debug var quoted, debug: {var: "'{{ tmpl }}'"}, ignore_errors: true}
    - {name: through hostvars, debug: {msg: reached}, when: "{{ hostvars.localhost.expr }}", ignore_errors: true}
    - {name: through vars, debug: {msg: reached}, when: "{{ vars.expr }}", ignore_errors: true}
    - {name: computed, debug: {msg: reached}, when: "{{ 'true' }}", ignore_errors: true}
`)
	f.opts.MergeHashes = true
	rec := f.run(t)
	out := f.out.String()
	requireNotRun(t, pwned, out)
	for _, task := range []string{"when", "until", "assert", "debug var", "debug var quoted", "through hostvars", "through vars", "computed"} {
		ev := rec.result(t, task, "localhost")
		require.Contains(t, ev.Result.Default("msg", "").(string), "Encountered untrusted template or expression.", task)
	}
	// changed_when and failed_when fail the result with the error.
	for _, task := range []string{"changed_when", "failed_when"} {
		ev := rec.result(t, task, "localhost")
		require.Equal(t, true, ev.Result.Default("failed", nil), task)
		require.Contains(t, ev.Result.Default(strings.ReplaceAll(task, " ", "_")+"_result", "").(string), "Encountered untrusted template or expression.", task)
	}
	// debug itself ran before changed_when/failed_when failed its
	// result; where the conditional comes first, it never did.
	require.Equal(t, 2, strings.Count(out, `"msg": "reached"`), out)
}

// TestUntrustedViews: vars, hostvars, extract, add_host variables and a
// hash_behaviour=merge combination give data as it is, never rendered.
func TestUntrustedViews(t *testing.T) {
	for _, merge := range []bool{false, true} {
		f, pwned := hostile(t, `
    - set_fact:
        conf: {extra: "{{ tmpl }}", nested: {deep: "{{ tmpl }}"}}
    - {name: vars, debug: {msg: "{{ vars['tmpl'] }}"}}
    - {name: hostvars, debug: {msg: "{{ hostvars['localhost'].tmpl }}"}}
    - {name: extract, debug: {msg: "{{ ['localhost'] | map('extract', hostvars, 'tmpl') | first }}"}}
    - {name: merged, debug: {msg: "{{ conf.nested.deep }}"}}
    - {name: merged vars, debug: {msg: "{{ vars.conf.extra }}"}}
    - {name: play value, debug: {msg: "{{ vars.conf.name | default('') }}"}}
    - add_host: {name: added, from_data: "{{ tmpl }}", nested: ["{{ tmpl }}"]}
    - {name: add_host var, debug: {msg: "{{ hostvars.added.from_data }}"}}
    - {name: add_host nested, debug: {msg: "{{ hostvars.added.nested[0] }}"}}
    - {name: loop, debug: {msg: "{{ item }}"}, loop: ["{{ tmpl }}"]}
`)
		f.opts.MergeHashes = merge
		rec := f.run(t)
		out := f.out.String()
		require.Equal(t, 0, f.rc, out)
		requireNotRun(t, pwned, out)
		attack := "{{ lookup('pipe', 'touch " + pwned + "') or 'RENDERED' }}"
		for _, task := range []string{"vars", "hostvars", "extract", "merged", "merged vars", "add_host var", "add_host nested"} {
			require.Equal(t, attack, rec.msg(t, task, "localhost"), "%s (merge=%v)", task, merge)
		}
		if merge {
			// The play's own template still renders in the merged view.
			require.Equal(t, "from the play", rec.msg(t, "play value", "localhost"))
		}
		require.Equal(t, attack, rec.items("loop", "localhost")[0].Result.Default("msg", nil))
		require.NotContains(t, out, "RENDERED\"")
	}
}

// TestTrustedIndirection: a conditional may still name an expression
// written in the playbook, through variables, vars, hostvars and a
// set_fact literal, as in ansible-core.
func TestTrustedIndirection(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  vars:
    cond: "1 == 1"
    indirect: "{{ cond }}"
    deep: {c: "{{ indirect }}"}
  tasks:
    - set_fact: {literal: "2 == 2"}
    - {name: direct, debug: {msg: ok}, when: "{{ cond }}"}
    - {name: twice, debug: {msg: ok}, when: "{{ indirect }}"}
    - {name: nested, debug: {msg: ok}, when: "{{ deep.c }}"}
    - {name: vars, debug: {msg: ok}, when: "{{ vars['cond'] }}"}
    - {name: literal, debug: {msg: ok}, when: "{{ literal }}"}
    - {name: hostvars literal, debug: {msg: ok}, when: "{{ hostvars[inventory_hostname].literal }}"}
    - {name: debug var, debug: {var: "{{ cond }}"}}
`})
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	for _, task := range []string{"direct", "twice", "nested", "vars", "literal", "hostvars literal"} {
		require.Equal(t, "ok", rec.msg(t, task, "localhost"), task)
	}
	require.Equal(t, true, rec.result(t, "debug var", "localhost").Result.Default("1 == 1", nil))
}

// TestUntrustedUnderCompatSwitches: ALLOW_BROKEN_CONDITIONALS and either
// setting of ALLOW_EMBEDDED_TEMPLATES never turn data into code. Data
// holding an expression or a template is only a truthy string in a bare
// conditional; a whole-template conditional over it is still refused; as
// the compared value of an embedded-template constant or a lookup term
// it is never rendered.
func TestUntrustedUnderCompatSwitches(t *testing.T) {
	for _, noEmbedded := range []bool{false, true} {
		f, pwned := hostile(t, `
    - {name: bare expr, debug: {msg: reached}, when: expr}
    - {name: bare tmpl, debug: {msg: reached}, when: tmpl}
    - {name: whole expr, debug: {msg: reached}, when: "{{ expr }}", ignore_errors: true}
    - {name: whole tmpl, debug: {msg: reached}, when: "{{ tmpl }}", ignore_errors: true}
    - {name: failed_when expr, debug: {msg: reached}, failed_when: "{{ expr }}", ignore_errors: true}
    - {name: assert tmpl, assert: {that: ["{{ tmpl }}"]}, ignore_errors: true}
    - {name: constant, debug: {msg: reached}, when: "tmpl != '{{ tmpl }}'"}
    - {name: lookup term, debug: {msg: "{{ lookup('env', tmpl) }}"}}
    - {name: with list, debug: {msg: "{{ item }}"}, loop: "{{ [tmpl, expr] }}", when: item}
`)
		f.opts.AllowBrokenConditionals = true
		f.noEmbedded = noEmbedded
		rec := f.run(t)
		out := f.out.String()
		requireNotRun(t, pwned, out)
		for _, task := range []string{"bare expr", "bare tmpl"} {
			require.Equal(t, "reached", rec.msg(t, task, "localhost"), "%s (noEmbedded=%v)", task, noEmbedded)
		}
		for _, task := range []string{"whole expr", "whole tmpl", "assert tmpl"} {
			ev := rec.result(t, task, "localhost")
			require.Contains(t, ev.Result.Default("msg", "").(string), "Encountered untrusted template or expression.", "%s (noEmbedded=%v)", task, noEmbedded)
		}
		ev := rec.result(t, "failed_when expr", "localhost")
		require.Contains(t, ev.Result.Default("failed_when_result", "").(string), "Encountered untrusted template or expression.")
		require.Equal(t, 2, len(rec.items("with list", "localhost")))
		require.Contains(t, out, "Conditional result (True) was derived from value of type 'str'")
		require.Contains(t, out, "Broken conditionals are currently allowed because the `ALLOW_BROKEN_CONDITIONALS` configuration option is enabled.")
		require.NotContains(t, out, `"msg": "RENDERED"`)
	}
}
