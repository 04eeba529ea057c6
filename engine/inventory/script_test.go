package inventory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/stretchr/testify/require"
)

// writeScript writes an executable inventory script.
func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755))
	return p
}

func TestScriptIsRunNotReadAsINI(t *testing.T) {
	dir := t.TempDir()
	// Read as INI, this script would create hosts called "if" and "fi".
	p := writeScript(t, dir, "inv", `if [ "$1" = "--list" ]; then
  echo '{"web": {"hosts": ["w1"], "vars": {"g": 1}}, "_meta": {"hostvars": {"w1": {"h": "x"}}}}'
fi
`)
	inv := New()
	require.NoError(t, inv.AddSource(p))
	require.Equal(t, []string{"w1"}, inv.Hosts())
	require.Equal(t, "x", inv.HostVars("w1").Default("h", nil))
	require.Equal(t, 1, inv.HostVars("w1").Default("g", nil))
	require.Contains(t, inv.ParsedMessage(p), "inventory source with script plugin")
}

func TestScriptHostCallsWithoutMeta(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	p := writeScript(t, dir, "inv", `case "$1" in
--list) echo '{"g": {"hosts": ["a", "b"]}}' ;;
--host) echo "$2" >> `+calls+`; echo "{\"who\": \"$2\"}" ;;
esac
`)
	var deps []string
	inv := New()
	inv.Deprecate = func(d *diag.Diagnostic) { deps = append(deps, d.Summary) }
	require.NoError(t, inv.AddSource(p))
	require.Equal(t, "a", inv.HostVars("a").Default("who", nil))
	require.Equal(t, "b", inv.HostVars("b").Default("who", nil))
	data, err := os.ReadFile(calls)
	require.NoError(t, err)
	require.Equal(t, "a\nb\n", string(data))
	require.Len(t, deps, 1)
	require.Contains(t, deps[0], "Inventory scripts should always provide 'meta.hostvars'.")
}

// TestHostileScriptOutput feeds the script plugin what a broken or
// hostile script may print: each is a parse failure with ansible-core's
// wording, never a crash and never hosts made from the text.
func TestHostileScriptOutput(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"not JSON", "echo 'if [ x ]; then'\n", "Unable to get JSON decoder for inventory script result: Value could not be parsed as JSON: Expecting value: line 1 column 1 (char 0)"},
		{"a list", "echo '[1, 2]'\n", "Unable to get JSON decoder for inventory script result: Value is 'list' instead of 'dict'."},
		{"_meta not a dict", `echo '{"_meta": 3}'` + "\n", "Unable to get JSON decoder for inventory script result: Value contains '_meta' which is 'int' instead of 'dict'."},
		{"hostvars not a dict", `echo '{"_meta": {"hostvars": []}}'` + "\n", "Value contains '_meta.hostvars' which is 'list' instead of 'dict'."},
		{"hosts not a list", `echo '{"g": {"hosts": "a,b"}, "_meta": {"hostvars": {}}}'` + "\n", "Value contains 'g.hosts' which is 'str' instead of 'list'."},
		{"vars not a dict", `echo '{"g": {"vars": [1]}, "_meta": {"hostvars": {}}}'` + "\n", "Value contains 'g.vars' which is 'list' instead of 'dict'."},
		{"exit status", "echo 'secret-ish' >&2; exit 3\n", "Inventory script returned non-zero exit code 3."},
		{"bad UTF-8", "printf '\\377'\n", "Inventory script result contained characters that cannot be interpreted as UTF-8."},
		{"bad --host answer", `case "$1" in --list) echo '{"g": ["a"]}';; *) echo '{oops';; esac` + "\n", "Inventory script result for host 'a' could not be parsed as JSON: Expecting property name enclosed in double quotes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeScript(t, t.TempDir(), "inv", tc.body)
			inv := New()
			err := inv.AddSource(p)
			var se *SourceError
			require.True(t, errors.As(err, &se), "%v", err)
			require.False(t, se.Refused)
			require.Len(t, se.Failures, 1)
			w := se.Failures[0].Warning()
			require.True(t, strings.HasPrefix(w, "Failed to parse inventory with 'script' plugin: "+tc.want), w)
			require.Contains(t, w, "Origin: <inventory plugin 'script' with source '"+p+"'>")
			require.NotContains(t, inv.Hosts(), "if")
		})
	}
}

func TestPluginConfigIsRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "aws_ec2.yml")
	require.NoError(t, os.WriteFile(p, []byte("---\nplugin: amazon.aws.aws_ec2\nregions: [x]\n"), 0o644))
	inv := New()
	err := inv.AddSource(p)
	var se *SourceError
	require.True(t, errors.As(err, &se))
	require.True(t, se.Refused)
	require.Len(t, se.Failures, 3)
	require.Equal(t, "Failed to parse inventory with 'auto' plugin: inventory config '"+p+"' specifies unknown plugin 'amazon.aws.aws_ec2'", strings.SplitN(se.Failures[0].Warning(), "\n", 2)[0])
	require.Contains(t, se.Failures[2].Warning(), "Invalid host pattern 'plugin:' supplied")
	require.Empty(t, inv.Hosts(), "no group called plugin, no hosts")

	// In an inventory directory the other files still count, and the
	// refused file is reported.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hosts.ini"), []byte("h1\n"), 0o644))
	inv = New()
	require.NoError(t, inv.AddSource(dir))
	require.Equal(t, []string{"h1"}, inv.Hosts())
	errs := inv.SourceErrors()
	require.Len(t, errs, 1)
	require.True(t, errs[0].Refused)
	require.Empty(t, inv.SourceErrors(), "reported once")
}

func TestLimitFile(t *testing.T) {
	dir := t.TempDir()
	ini := filepath.Join(dir, "hosts.ini")
	require.NoError(t, os.WriteFile(ini, []byte("a\nb\nc\n"), 0o644))
	lim := filepath.Join(dir, "limit")
	require.NoError(t, os.WriteFile(lim, []byte("c\n\n  a  \n"), 0o644))
	inv := New()
	require.NoError(t, inv.AddSource(ini))
	got, err := inv.Limit(inv.Hosts(), "@"+lim)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "c"}, got, "inventory order")
	require.NoError(t, inv.CheckLimit("b"))
	require.EqualError(t, inv.CheckLimit("nomatch"), NoHostsError)
	require.EqualError(t, inv.CheckLimit("@"+filepath.Join(dir, "nope")), "Unable to find limit file b'"+filepath.Join(dir, "nope")+"'")
	require.EqualError(t, inv.CheckLimit("@"+dir), `Limit starting with "@" must be a file, not a directory: b'`+dir+"'")
	require.NoError(t, New().CheckLimit("nomatch"), "an empty inventory leaves the implicit localhost alone")
}

// TestImplicitLocalhostPython: the implicit localhost has
// ansible_python_interpreter, as under ansible-core (its own Python there,
// the python3 on PATH here).
func TestImplicitLocalhostPython(t *testing.T) {
	inv := New()
	hosts, err := inv.Match("localhost")
	require.NoError(t, err)
	require.Equal(t, []string{"localhost"}, hosts)
	v, ok := inv.HostVars("localhost").Get("ansible_python_interpreter")
	require.True(t, ok)
	require.Equal(t, LocalPython(), v)
	require.True(t, filepath.IsAbs(LocalPython()))
}
