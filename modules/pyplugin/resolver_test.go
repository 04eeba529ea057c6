package pyplugin

import (
	"errors"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/lookup"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// needPython skips a test that runs the helper when python3 is missing.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
}

// fixture writes files (relative path -> text) under a new directory.
func fixture(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return dir
}

// engineFor returns an engine whose plugins are those of base's
// filter_plugins, test_plugins and lookup_plugins and of the collections
// under base/collections, and the resolver behind it, closed at the end.
func engineFor(t *testing.T, base string) (*template.Engine, *Resolver) {
	t.Helper()
	r := New(Dirs{
		Loaded: func(kind string) []string {
			d := filepath.Join(base, kind+"_plugins")
			if _, err := os.Stat(d); err != nil {
				return nil
			}
			return []string{d}
		},
		CollectionRoots: func() []string { return []string{filepath.Join(base, "collections")} },
	})
	t.Cleanup(r.Close)
	return template.New(lookup.Libraries()...).WithResolver(r), r
}

func render(t *testing.T, e *template.Engine, src string, vars *value.Dict) (any, []*diag.Diagnostic, error) {
	t.Helper()
	if vars == nil {
		vars = value.NewDict(0)
	}
	var warns []*diag.Diagnostic
	v, err := e.Render(src, template.MapVars{D: vars}, template.Options{Warn: func(w *diag.Diagnostic, _ bool) { warns = append(warns, w) }})
	return v, warns, err
}

const identity = `
import os
class FilterModule:
    def filters(self):
        return {'same': lambda v: v, 'pid': lambda v: os.getpid(), 'kinds': lambda v: [type(x).__name__ for x in v]}
`

func TestValuesKeepTheirTypes(t *testing.T) {
	needPython(t)
	e, _ := engineFor(t, fixture(t, map[string]string{"filter_plugins/id.py": identity}))
	big1, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	odd := value.NewDict(2)
	odd.Set("$t", "not a tag")
	odd.SetKey(1, "one")
	in := []any{nil, true, 7, big1, 1.0, 2.5, "héllo\x00\n", value.Tuple{1, "a"}, []any{}, value.DictOf("a", 1, "b", []any{2}), odd}
	vars := value.DictOf("inp", in)
	got, _, err := render(t, e, "{{ inp | same }}", vars)
	require.NoError(t, err)
	want := append([]any(nil), in...)
	want[7] = []any{1, "a"} // a template's result has lists for tuples, as ansible-core's
	require.Equal(t, want, got)
	kinds, _, err := render(t, e, "{{ inp | kinds }}", vars)
	require.NoError(t, err)
	require.Equal(t, []any{"NoneType", "bool", "int", "int", "float", "float", "str", "tuple", "list", "dict", "dict"}, kinds)
	for _, f := range []float64{math.Inf(1), math.Inf(-1)} {
		got, _, err := render(t, e, "{{ x | same }}", value.DictOf("x", f))
		require.NoError(t, err)
		require.Equal(t, f, got)
	}
	got, _, err = render(t, e, "{{ x | same }}", value.DictOf("x", math.NaN()))
	require.NoError(t, err)
	require.True(t, math.IsNaN(got.(float64)))
}

func TestOneHelperPerRun(t *testing.T) {
	needPython(t)
	e, r := engineFor(t, fixture(t, map[string]string{"filter_plugins/id.py": identity}))
	first, _, err := render(t, e, "{{ 1 | pid }}", nil)
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		again, _, err := render(t, e, "{{ 1 | pid }}", nil)
		require.NoError(t, err)
		require.Equal(t, first, again, "every call goes to the same process")
	}
	pid := first.(int)
	require.NoError(t, syscall.Kill(pid, 0), "the helper runs during the run")
	r.Close()
	require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "Close ends the helper")
}

func TestNoHelperForBuiltins(t *testing.T) {
	// A plugin directory whose files do not name the filter: the built-in
	// runs and no python starts (LookPath is never asked).
	e, r := engineFor(t, fixture(t, map[string]string{"filter_plugins/id.py": identity}))
	r.LookPath = func(string) (string, error) { t.Fatal("python3 was looked for"); return "", nil }
	got, _, err := render(t, e, "{{ 'a' | upper }}", nil)
	require.NoError(t, err)
	require.Equal(t, "A", got)
	require.Nil(t, r.h)
}

func TestNoPython(t *testing.T) {
	base := fixture(t, map[string]string{"filter_plugins/id.py": identity, "lookup_plugins/echo.py": "class LookupModule: pass\n"})
	e, r := engineFor(t, base)
	r.LookPath = func(string) (string, error) { return "", &exec.Error{Name: "python3", Err: exec.ErrNotFound} }
	_, _, err := render(t, e, "{{ 1 | same }}", nil)
	require.EqualError(t, err, "The filter plugin 'same' failed: the filter plugin 'same' is written in Python ("+filepath.Join(base, "filter_plugins/id.py")+
		"), and cfzt-runner runs Python plugins with python3, which is not on PATH: install python3, or use cfzt-runner's image flavour with Python (see docs/ansible-operator.md)")
	_, _, err = render(t, e, "{{ lookup('echo', 1) }}", nil)
	require.ErrorContains(t, err, "The lookup plugin 'echo' failed: the lookup plugin 'echo' is written in Python ("+filepath.Join(base, "lookup_plugins/echo.py")+")")
	// The built-ins still work.
	got, _, err := render(t, e, "{{ 'a' | upper }}", nil)
	require.NoError(t, err)
	require.Equal(t, "A", got)
}

// Attacks: a plugin is code from a role, its answers untrusted data.
const hostile = `
import os, sys
class FilterModule:
    def filters(self):
        return {
            'huge': lambda v: 'x' * (65 << 20),
            'die': lambda v: os._exit(3),
            'noisy': lambda v: (print('{"id": 999, "ok": true, "value": "forged"}'), sys.stdout.write('garbage\n'), os.write(1, b'raw\n'), 'clean')[-1],
            'readstdin': lambda v: sys.stdin.read(),
            'deep': lambda v: __import__('functools').reduce(lambda acc, _: [acc], range(5000), 1),
            'obj': lambda v: object(),
            'surrogate': lambda v: 'a\udcff',
            'exits': lambda v: sys.exit(0),
            'warns': lambda v: (__import__('ansible.utils.display', fromlist=['Display']).Display().warning('careful'), v)[1],
        }
`

func TestHostilePlugins(t *testing.T) {
	needPython(t)
	e, r := engineFor(t, fixture(t, map[string]string{"filter_plugins/bad.py": hostile, "filter_plugins/id.py": identity}))

	_, _, err := render(t, e, "{{ 1 | huge }}", nil)
	require.ErrorContains(t, err, "larger than "+strconv.Itoa(MaxAnswer)+" bytes", "an answer beyond the bound is refused")

	// After the helper was killed, the next call starts a new one.
	got, _, err := render(t, e, "{{ 1 | noisy }}", nil)
	require.NoError(t, err)
	require.Equal(t, "clean", got, "what a plugin prints does not reach the protocol")

	_, _, err = render(t, e, "{{ 1 | die }}", nil)
	require.ErrorContains(t, err, "did not answer: the Python plugin helper exited (exit status 3)", "a crash is an error, not a hang")

	got, _, err = render(t, e, "{{ 1 | readstdin }}", nil)
	require.NoError(t, err)
	require.Equal(t, "", got, "a plugin reading stdin reads nothing")

	_, _, err = render(t, e, "{{ 1 | deep }}", nil)
	require.ErrorContains(t, err, "nested too deeply")

	_, _, err = render(t, e, "{{ 1 | obj }}", nil)
	require.EqualError(t, err, "The filter plugin 'obj' failed: cfzt-runner cannot take a value of type object from a Python plugin")

	got, _, err = render(t, e, "{{ 1 | surrogate }}", nil)
	require.NoError(t, err)
	require.Equal(t, "a\uFFFD", got, "a lone surrogate does not break the protocol")

	_, _, err = render(t, e, "{{ 1 | exits }}", nil)
	require.EqualError(t, err, "The filter plugin 'exits' failed: the plugin tried to exit")

	got, warns, err := render(t, e, "{{ 1 | warns }}", nil)
	require.NoError(t, err)
	require.Equal(t, 1, got)
	require.Len(t, warns, 1)
	require.Equal(t, "careful", warns[0].Summary)

	// The helper still answers after all that.
	got, _, err = render(t, e, "{{ 'ok' | same }}", nil)
	require.NoError(t, err)
	require.Equal(t, "ok", got)
	require.NotNil(t, r.h)
}

func TestDataIsNeverRendered(t *testing.T) {
	// A module's output that looks like a template reaches the plugin,
	// and comes back, as the text it is: neither side renders it.
	needPython(t)
	base := fixture(t, map[string]string{"filter_plugins/id.py": identity, "lookup_plugins/vars_of.py": lookups})
	e, _ := engineFor(t, base)
	marker := filepath.Join(base, "rendered")
	attack := "{{ lookup('pipe', 'touch " + marker + "') }}"
	vars := value.DictOf("out", value.DictOf("stdout", attack), "mixed", value.Untrusted{V: attack})
	got, _, err := render(t, e, "{{ out | same }}", vars)
	require.NoError(t, err)
	require.Equal(t, value.DictOf("stdout", attack), got)
	got, _, err = render(t, e, "{{ lookup('vars_of', 'mixed', prefix='') }}", vars)
	require.NoError(t, err)
	require.Equal(t, attack, got)
	_, err = os.Stat(marker)
	require.True(t, os.IsNotExist(err), "the data was rendered")
}

func TestUndefinedInsideAValue(t *testing.T) {
	needPython(t)
	e, _ := engineFor(t, fixture(t, map[string]string{"filter_plugins/id.py": identity}))
	_, _, err := render(t, e, "{{ [1, missing] | same }}", nil)
	require.Error(t, err)
	require.True(t, template.IsUndefined(err), err.Error())
}

const lookups = `
from ansible.plugins.lookup import LookupBase
from ansible.errors import AnsibleLookupError

DOCUMENTATION = '''
name: vars_of
options:
  prefix:
    default: "p-"
'''

class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        out = []
        for t in terms:
            if t not in variables:
                raise AnsibleLookupError('no variable %s' % t)
            out.append(self.get_option('prefix') + str(variables[t]))
        return out
`

func TestLookupVariablesAndOptions(t *testing.T) {
	needPython(t)
	e, _ := engineFor(t, fixture(t, map[string]string{"lookup_plugins/vars_of.py": lookups, "filter_plugins/id.py": identity}))
	vars := value.DictOf("a", "{{ 'x' | same }}", "b", 2)
	got, err := e.Render("{{ lookup('vars_of', 'a', 'b') }}", template.MapVars{D: vars}, template.Options{})
	require.NoError(t, err)
	require.Equal(t, "p-{{ 'x' | same }},p-2", got, "MapVars holds data, not templates")
	got, _, err = render(t, e, "{{ query('vars_of', 'b', prefix='q-') }}", vars)
	require.NoError(t, err)
	require.Equal(t, []any{"q-2"}, got)
	_, _, err = render(t, e, "{{ lookup('vars_of', 'nope') }}", vars)
	require.EqualError(t, err, "The lookup plugin 'vars_of' failed: no variable nope")
}

// templatedVars are variables whose values are templates, rendered on use.
type templatedVars struct{ d *value.Dict }

func (v templatedVars) Lookup(name string) (any, bool, bool) {
	x, ok := v.d.Get(name)
	return x, true, ok
}

func TestNestedCallWhileALookupReadsAVariable(t *testing.T) {
	// The variable the lookup reads is a template that calls a Python
	// filter: the runner calls the helper while the helper waits for it.
	needPython(t)
	e, _ := engineFor(t, fixture(t, map[string]string{"lookup_plugins/vars_of.py": lookups, "filter_plugins/id.py": identity}))
	vars := templatedVars{value.DictOf("a", "{{ 'inner' | same }}")}
	got, err := e.Render("{{ lookup('vars_of', 'a') }}", vars, template.Options{})
	require.NoError(t, err)
	require.Equal(t, "p-inner", got)
}

func TestLoadFailureIsAWarning(t *testing.T) {
	needPython(t)
	e, _ := engineFor(t, fixture(t, map[string]string{
		"filter_plugins/broken.py":  "raise RuntimeError('broken on purpose')\n# 'same'\n",
		"filter_plugins/test_id.py": "import unittest\n",
		"filter_plugins/id.py":      identity,
	}))
	got, warns, err := render(t, e, "{{ 3 | same }}", nil)
	require.NoError(t, err)
	require.Equal(t, 3, got)
	require.Len(t, warns, 2)
	require.True(t, strings.HasPrefix(warns[0].Summary, "Skipping plugin ("), warns[0].Summary)
	require.True(t, strings.HasSuffix(warns[0].Summary, "broken.py), cannot load: broken on purpose"), warns[0].Summary)
	require.Regexp(t, `^Skipping plugin \(.*/filter_plugins/test_id.py\) as it seems to be invalid: module 'ansible.plugins.filter.test_id_[0-9]+' has no attribute 'FilterModule'$`, warns[1].Summary)
	// Said once, at the first call.
	_, warns, err = render(t, e, "{{ 3 | same }}", nil)
	require.NoError(t, err)
	require.Empty(t, warns)
}

func TestRoleLoadedLaterIsSeen(t *testing.T) {
	needPython(t)
	base := fixture(t, map[string]string{"role/filter_plugins/id.py": identity})
	var dirs []string
	r := New(Dirs{Loaded: func(kind string) []string {
		if kind == Filter {
			return dirs
		}
		return nil
	}, CollectionRoots: func() []string { return nil }})
	t.Cleanup(r.Close)
	e := template.New(lookup.Libraries()...).WithResolver(r)
	_, _, err := render(t, e, "{{ 1 | same }}", nil)
	require.EqualError(t, err, "Syntax error in template: No filter named 'same'.")
	dirs = append(dirs, filepath.Join(base, "role", "filter_plugins"))
	got, _, err := render(t, e, "{{ 1 | same }}", nil)
	require.NoError(t, err)
	require.Equal(t, 1, got)
}

func TestConfiguredPathsSearchSubdirectories(t *testing.T) {
	needPython(t)
	base := fixture(t, map[string]string{"conf/team/id.py": identity})
	r := New(Dirs{Loaded: func(string) []string { return nil }, Configured: map[string][]string{Filter: {filepath.Join(base, "conf")}},
		CollectionRoots: func() []string { return nil }})
	t.Cleanup(r.Close)
	got, _, err := render(t, template.New(lookup.Libraries()...).WithResolver(r), "{{ 2 | same }}", nil)
	require.NoError(t, err)
	require.Equal(t, 2, got)
}

func TestHelperGone(t *testing.T) {
	needPython(t)
	e, r := engineFor(t, fixture(t, map[string]string{"filter_plugins/id.py": identity}))
	pid, _, err := render(t, e, "{{ 1 | pid }}", nil)
	require.NoError(t, err)
	// Killed from outside (OOM killer): the next call fails, the one after
	// runs in a new helper.
	require.NoError(t, syscall.Kill(pid.(int), syscall.SIGKILL))
	<-r.h.done
	_, _, err = render(t, e, "{{ 1 | pid }}", nil)
	require.Error(t, err)
	require.True(t, errors.As(err, new(*template.PluginError)))
	again, _, err := render(t, e, "{{ 1 | pid }}", nil)
	require.NoError(t, err)
	require.NotEqual(t, pid, again)
}

// TestWithAnsibleCore runs plugins under a python that imports ansible-core
// (the oracle's, from hack/install-oracle.sh): the helper uses it instead
// of the compatibility package, and lookups' documented options work.
func TestWithAnsibleCore(t *testing.T) {
	needPython(t)
	home, _ := os.UserHomeDir()
	core := filepath.Join(home, ".cache", "ansible-oracle", "root", "usr", "lib", "python3", "dist-packages")
	if _, err := os.Stat(filepath.Join(core, "ansible", "release.py")); err != nil {
		t.Skip("ansible-core is not installed (hack/install-oracle.sh)")
	}
	t.Setenv("PYTHONPATH", core)
	e, r := engineFor(t, fixture(t, map[string]string{"lookup_plugins/vars_of.py": lookups, "filter_plugins/id.py": identity,
		"filter_plugins/raise.py": "from ansible.errors import AnsibleFilterError\nclass FilterModule:\n    def filters(self):\n        def f(v):\n            try:\n                int(v)\n            except ValueError:\n                raise AnsibleFilterError('not a number: %s' % v)\n        return {'num': f}\n"}))
	got, _, err := render(t, e, "{{ query('vars_of', 'b') + query('vars_of', 'b', prefix='q-') }}", value.DictOf("b", 2))
	require.NoError(t, err)
	require.Equal(t, []any{"p-2", "q-2"}, got)
	require.True(t, r.h.real, "the helper imported ansible-core")
	_, _, err = render(t, e, "{{ 'x' | num }}", nil)
	require.Equal(t, []diag.Diagnostic{{Summary: "The filter plugin 'num' failed."}, {Summary: "not a number: x", Detached: true}}, diag.Links(err))
}

func TestCloseDuringACall(t *testing.T) {
	// A plugin that never returns: Close, from another goroutine (a
	// signal, the operator stopping), ends the call with an error.
	needPython(t)
	e, r := engineFor(t, fixture(t, map[string]string{"filter_plugins/hang.py": `
import time
from ansible.utils.display import Display
class FilterModule:
    def filters(self):
        def hang(v):
            Display().warning('hanging')
            while True:
                time.sleep(60)
        return {'hang': hang}
`}))
	hanging := make(chan struct{})
	result := make(chan error)
	go func() {
		_, err := e.Render("{{ 1 | hang }}", template.MapVars{D: value.NewDict(0)}, template.Options{Warn: func(*diag.Diagnostic, bool) { close(hanging) }})
		result <- err
	}()
	<-hanging
	r.Close()
	err := <-result
	require.ErrorContains(t, err, "The filter plugin 'hang' failed: the filter plugin 'hang' (")
	require.ErrorContains(t, err, "did not answer: the Python plugin helper exited (signal: killed)")
	_, _, err = render(t, e, "{{ 1 | hang }}", nil)
	require.ErrorContains(t, err, "the run is ending", "no helper starts after Close")
}

// BenchmarkBuiltinThroughResolver is the cost the resolver adds to a
// built-in filter in a run with plugin directories.
func BenchmarkBuiltinThroughResolver(b *testing.B) {
	dir := b.TempDir()
	require.NoError(b, os.MkdirAll(filepath.Join(dir, "filter_plugins"), 0o755))
	require.NoError(b, os.WriteFile(filepath.Join(dir, "filter_plugins", "id.py"), []byte(identity), 0o644))
	r := New(Dirs{Loaded: func(kind string) []string { return []string{filepath.Join(dir, kind+"_plugins")} }, CollectionRoots: func() []string { return nil }})
	defer r.Close()
	e := template.New(lookup.Libraries()...).WithResolver(r)
	vars := template.MapVars{D: value.DictOf("x", "abc")}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := e.Render("{{ x | upper }}", vars, template.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestNamesAndPrecedence(t *testing.T) {
	needPython(t)
	e, _ := engineFor(t, fixture(t, map[string]string{
		"filter_plugins/a.py":    "class FilterModule:\n    def filters(self):\n        return {'upper': lambda v: 'plugin', 'dup': lambda v: 'a'}\n",
		"filter_plugins/b.py":    "class FilterModule:\n    def filters(self):\n        return {'dup': lambda v: 'b'}\n",
		"lookup_plugins/file.py": "from ansible.plugins.lookup import LookupBase\nclass LookupModule(LookupBase):\n    def run(self, terms, variables=None, **kw):\n        return ['plugin file']\n",
		"collections/ansible_collections/ns/coll/plugins/filter/one.py": "class FilterModule:\n    def filters(self):\n        return {'x': lambda v: 'one', 'upper': lambda v: 'coll'}\n",
		"collections/ansible_collections/ns/coll/plugins/filter/two.py": "class FilterModule:\n    def filters(self):\n        return {'x': lambda v: 'two'}\n",
	}))
	for src, want := range map[string]any{
		"{{ 'a' | upper }}":                                   "plugin", // the plugin directories come before ansible-core's package
		"{{ 'a' | ansible.legacy.upper }}":                    "plugin",
		"{{ 'a' | ansible.builtin.upper }}":                   "A",   // never a plugin's
		"{{ 1 | dup }}":                                       "a",   // the first file (by name) providing a name wins
		"{{ 1 | ns.coll.x }}":                                 "two", // in a collection, the last
		"{{ 'a' | ns.coll.upper }}":                           "coll",
		"{{ lookup('file', 'x') }}":                           "plugin file",
		"{{ lookup('ansible.builtin.env', 'NOPE_NOT_SET') }}": "",
	} {
		got, _, err := render(t, e, src, nil)
		require.NoError(t, err, src)
		require.Equal(t, want, got, src)
	}
	_, _, err := render(t, e, "{{ 1 | ns.coll.nope }}", nil)
	require.EqualError(t, err, "Syntax error in template: No filter named 'ns.coll.nope'.")
	_, _, err = render(t, e, "{{ 1 | other.coll.x }}", nil)
	require.EqualError(t, err, "Syntax error in template: No filter named 'other.coll.x'.")
}

// TestInterpreterSetting: CFZT_PYTHON chooses the helper's interpreter (a
// path, or a command on PATH); without it, python3 on PATH.
func TestInterpreterSetting(t *testing.T) {
	needPython(t)
	real, err := exec.LookPath("python3")
	require.NoError(t, err)
	bin := t.TempDir()
	marker := filepath.Join(bin, "used")
	// A wrapper that records that it ran, then runs python3.
	wrapper := filepath.Join(bin, "mypython")
	require.NoError(t, os.WriteFile(wrapper, []byte("#!/bin/sh\necho \"$0\" >> "+marker+"\nexec "+real+" \"$@\"\n"), 0o755))
	base := fixture(t, map[string]string{"filter_plugins/id.py": identity})

	for _, c := range []struct{ name, setting, path string }{
		{"absolute path", wrapper, ""},
		{"command on PATH", "mypython", bin},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.NoError(t, os.RemoveAll(marker))
			if c.path != "" {
				t.Setenv("PATH", c.path+string(filepath.ListSeparator)+os.Getenv("PATH"))
			}
			e, r := engineFor(t, base)
			r.Getenv = func(k string) (string, bool) {
				if k == PythonEnv {
					return c.setting, true
				}
				return "", false
			}
			got, _, err := render(t, e, "{{ 'x' | same }}", nil)
			require.NoError(t, err)
			require.Equal(t, "x", got)
			used, err := os.ReadFile(marker)
			require.NoError(t, err, "the helper ran under %s", PythonEnv)
			require.Equal(t, wrapper+"\n", string(used))
		})
	}

	t.Run("unset or empty: python3 on PATH", func(t *testing.T) {
		for _, env := range []map[string]string{{}, {PythonEnv: ""}} {
			e, r := engineFor(t, base)
			r.Getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
			var asked []string
			r.LookPath = func(name string) (string, error) { asked = append(asked, name); return exec.LookPath(name) }
			_, _, err := render(t, e, "{{ 'x' | same }}", nil)
			require.NoError(t, err)
			require.Equal(t, []string{"python3"}, asked)
		}
	})

	t.Run("names no executable", func(t *testing.T) {
		for _, setting := range []string{filepath.Join(bin, "missing"), marker + ".txt", "no-such-python"} {
			if setting == marker+".txt" {
				require.NoError(t, os.WriteFile(setting, []byte("not a program"), 0o644))
			}
			e, r := engineFor(t, base)
			r.Getenv = func(k string) (string, bool) { return setting, k == PythonEnv }
			_, _, err := render(t, e, "{{ 'x' | same }}", nil)
			require.ErrorContains(t, err, "The filter plugin 'same' failed: the filter plugin 'same' is written in Python ("+
				filepath.Join(base, "filter_plugins/id.py")+"), and cfzt-runner runs Python plugins with the interpreter CFZT_PYTHON names, "+setting+", which is not an executable file (")
			require.ErrorContains(t, err, "): correct CFZT_PYTHON, or unset it to use python3 from PATH (see docs/ansible-operator.md)")
			require.Nil(t, r.h, "no helper started")
		}
	})
}

// TestInterpreterNotFromVariables: in an operator the variables come from
// the custom resource's spec, so an attacker who writes one sets
// ansible_python_interpreter (or discovered_interpreter_python) to a
// program of their choosing; the plugin helper must not run it.
func TestInterpreterNotFromVariables(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "pwned")
	evil := filepath.Join(dir, "evil")
	require.NoError(t, os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+marker+"\nexec python3 \"$@\"\n"), 0o755))
	e, r := engineFor(t, fixture(t, map[string]string{"filter_plugins/id.py": identity}))
	r.Getenv = func(string) (string, bool) { return "", false }
	vars := value.DictOf("ansible_python_interpreter", evil, "discovered_interpreter_python", evil,
		"ansible_playbook_python", evil, "CFZT_PYTHON", evil)
	got, _, err := render(t, e, "{{ 'x' | same }}", vars)
	require.NoError(t, err)
	require.Equal(t, "x", got)
	_, err = os.Stat(marker)
	require.ErrorIs(t, err, os.ErrNotExist, "a variable chose the helper's interpreter")
}

// TestExportedEnvironment: a plugin sees what the run exports (the
// operator's flags, which ansible-operator exports to ansible-core's own
// process, where plugins run) over the process environment.
func TestExportedEnvironment(t *testing.T) {
	needPython(t)
	t.Setenv("CFZT_TEST_FROM_PROCESS", "process")
	t.Setenv("CFZT_TEST_OVERRIDDEN", "process")
	e, r := engineFor(t, fixture(t, map[string]string{"filter_plugins/env.py": `
import os
class FilterModule:
    def filters(self):
        return {'getenv': lambda n: os.environ.get(n, 'UNSET')}
`}))
	r.Exported = map[string]string{"CFZT_TEST_OVERRIDDEN": "exported", "ANSIBLE_ROLES_PATH": "/opt/roles"}
	got, _, err := render(t, e, "{{ ['CFZT_TEST_FROM_PROCESS', 'CFZT_TEST_OVERRIDDEN', 'ANSIBLE_ROLES_PATH'] | map('getenv') | list }}", nil)
	require.NoError(t, err)
	require.Equal(t, []any{"process", "exported", "/opt/roles"}, got)
}
