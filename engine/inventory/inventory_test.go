package inventory

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestSourcesAndPatterns(t *testing.T) {
	dir := t.TempDir()
	ini := filepath.Join(dir, "hosts.ini")
	require.NoError(t, os.WriteFile(ini, []byte("[web]\nweb[1:3] port=80\n[db]\ndb1\n[prod:children]\nweb\ndb\n[prod:vars]\nenv=prod\n"), 0o644))
	inv := New()
	require.NoError(t, inv.AddSource(ini))
	require.Equal(t, []string{"web1", "web2", "web3", "db1"}, inv.Hosts())
	cases := []struct {
		pattern any
		want    []string
	}{
		{"all", []string{"web1", "web2", "web3", "db1"}},
		{"web", []string{"web1", "web2", "web3"}},
		{"prod:!db", []string{"web1", "web2", "web3"}},
		{"web:&prod", []string{"web1", "web2", "web3"}},
		{[]any{"db", "web2"}, []string{"db1", "web2"}},
	}
	for _, c := range cases {
		got, err := inv.Match(c.pattern)
		require.NoError(t, err, "%v", c.pattern)
		require.Equal(t, c.want, got, "%v", c.pattern)
	}
	vars := inv.HostVars("web2")
	require.Equal(t, "prod", vars.Default("env", nil))
	require.Equal(t, 80, vars.Default("port", nil))
}

// TestDynamicHostsAndGroups checks add_host's and group_by's changes: what
// counts as a change, group creation with the invalid-name warning, and
// the new membership seen by patterns.
func TestDynamicHostsAndGroups(t *testing.T) {
	inv := New()
	var warnings []string
	inv.SetWarn(func(msg string) { warnings = append(warnings, msg) })

	require.True(t, inv.AddDynamicHost("new1", value.DictOf("a", 1), []string{"extra"}), "a new host")
	require.False(t, inv.AddDynamicHost("new1", value.DictOf("a", 1), []string{"extra"}), "nothing new")
	require.True(t, inv.AddDynamicHost("new1", value.DictOf("a", 2), nil), "a changed variable")
	require.Equal(t, 2, inv.HostVars("new1").Default("a", nil))
	hosts, err := inv.Match("extra")
	require.NoError(t, err)
	require.Equal(t, []string{"new1"}, hosts)

	require.True(t, inv.AddDynamicGroup("new1", "os-linux", []string{"by_os"}))
	require.False(t, inv.AddDynamicGroup("new1", "os-linux", []string{"by_os"}))
	hosts, err = inv.Match("by_os")
	require.NoError(t, err)
	require.Equal(t, []string{"new1"}, hosts, "the parent group holds its child's hosts")
	require.Equal(t, []string{invalidGroupWarning}, warnings, "a group name with a dash is warned about once")
}
