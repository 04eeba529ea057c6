package settings

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestParseINI(t *testing.T) {
	src := "# comment\n[defaults]\nRoles_Path = a:b ; inline\n; other\nforks: 3\nlist = one,\n  two\n" +
		"[inventory]\n host_pattern_mismatch=error \n[DEFAULT]\nshared = x\n"
	f := ParseINI(src)
	cases := []struct {
		section, key, want string
		found              bool
	}{
		{"defaults", "roles_path", "a:b", true},
		{"defaults", "ROLES_PATH", "a:b", true},
		{"defaults", "forks", "3", true},
		{"defaults", "list", "one,\ntwo", true},
		{"inventory", "host_pattern_mismatch", "error", true},
		{"inventory", "shared", "x", true},
		{"defaults", "missing", "", false},
	}
	for _, c := range cases {
		got, ok := f.Get(c.section, c.key)
		require.Equal(t, c.found, ok, c.key)
		require.Equal(t, c.want, got, c.key)
	}
}

func TestEnsureType(t *testing.T) {
	cases := []struct {
		in   any
		typ  string
		want any
		err  string
	}{
		{"yes", "bool", true, ""},
		{"maybe", "boolean", false, ""},
		{"12", "integer", 12, ""},
		{"1.0", "int", 1, ""},
		{1.5, "int", nil, "Invalid value provided for 'int': 1.5"},
		{"a", "integer", nil, "Invalid value provided for 'integer': 'a'"},
		{"a, 'b' ,c", "list", []any{"a", "b", "c"}, ""},
		{[]any{1}, "list", []any{1}, ""},
		{"bob", "dict", nil, "Invalid value provided for 'dict': 'bob'"},
		{5, "str", "5", ""},
		{[]any{1}, "str", nil, "Invalid value provided for 'str': [1]"},
		{"/a/../b", "path", "/b", ""},
		{"/a:/b", "pathspec", []any{"/a", "/b"}, ""},
		{"None", "none", nil, ""},
		{[]any{1}, "raw", []any{1}, ""},
	}
	for _, c := range cases {
		got, err := EnsureType(c.in, c.typ, "")
		if c.err != "" {
			require.EqualError(t, err, c.err, value.Repr(c.in))
			continue
		}
		require.NoError(t, err, value.Repr(c.in))
		require.Equal(t, c.want, got, value.Repr(c.in))
	}
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "ansible.cfg")
	require.NoError(t, os.WriteFile(cfg, []byte("[defaults]\nforks = 7\nroles_path = roles:/abs\nhash_behaviour = 'merge'\ntimeout = x\n"), 0o644))
	env := map[string]string{"ANSIBLE_TIMEOUT": "", "ANSIBLE_HOME": "/h", "ANSIBLE_GATHERING": "sometimes"}
	src := &Source{Path: cfg, File: ParseINI(mustRead(t, cfg)), Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	cases := []struct {
		name   string
		want   any
		origin string
		err    string
	}{
		{name: "DEFAULT_FORKS", want: 7, origin: cfg},
		{name: "DEFAULT_ROLES_PATH", want: []any{filepath.Join(dir, "roles"), "/abs"}, origin: cfg},
		{name: "DEFAULT_HASH_BEHAVIOUR", want: "merge", origin: cfg},
		{name: "COLLECTIONS_PATHS", want: []any{"/h/collections", "/usr/share/ansible/collections"}, origin: "default"},
		{name: "DEFAULT_TIMEOUT", want: 10, origin: "default"},
		{name: "DEFAULT_REMOTE_USER", want: nil, origin: "default"},
		{name: "DEFAULT_GATHERING", err: "Invalid value 'sometimes' for config 'DEFAULT_GATHERING'."},
		{name: "NOT_A_SETTING", err: "No config definition exists for 'NOT_A_SETTING'."},
		{name: "CONFIG_FILE", want: cfg},
	}
	for _, c := range cases {
		got, origin, err := src.Core(c.name)
		if c.err != "" {
			require.EqualError(t, err, c.err, c.name)
			continue
		}
		require.NoError(t, err, c.name)
		require.Equal(t, c.want, got, c.name)
		require.Equal(t, c.origin, origin, c.name)
	}

	// A direct value wins; one its type rejects names where it came from.
	d := Def{Type: "dict", Default: nil}
	_, _, err := src.Resolve(Label("lookup", "template", "template_vars"), d, "bob", true)
	require.EqualError(t, err, "Config 'template_vars' for 'template' lookup plugin from 'Direct' has an invalid value: Invalid value provided for 'dict': 'bob'")
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}
