package run

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/value"
)

func TestNamespaceAndCleanFacts(t *testing.T) {
	facts := value.DictOf("ansible_os_family", "Debian", "ansible_local", value.DictOf("x", 1), "gather_subset", []any{"all"},
		"ansible_host", "h", "ansible_ssh_host_key_rsa_public", "k", "ansible_ssh_user", "u", "ansible_docker0_bridge", "br",
		"ansible_winrm_thing", 1, "ansible_python_interpreter", "/p", "ansible_become_x", 1, "_ansible_facts_gathered", true,
		"nested", value.DictOf("_ansible_no_log", true, "kept", 1))
	ns := namespaceFacts(facts)
	require.Equal(t, []string{"os_family", "ansible_local", "gather_subset", "host", "ssh_host_key_rsa_public", "ssh_user",
		"docker0_bridge", "winrm_thing", "python_interpreter", "become_x", "_ansible_facts_gathered", "nested"}, ns.Keys())
	var warned []string
	clean := cleanFacts(facts, func(m string) { warned = append(warned, m) })
	require.Equal(t, []string{"ansible_os_family", "ansible_local", "gather_subset", "ansible_ssh_host_key_rsa_public", "ansible_docker0_bridge", "nested"}, clean.Keys())
	require.Equal(t, `{"kept": 1}`, value.JSON(clean.Default("nested", nil), value.JSONOptions{}))
	require.Equal(t, []string{
		"Removed restricted key from module data: ansible_host",
		"Removed restricted key from module data: ansible_ssh_user",
		"Removed restricted key from module data: ansible_winrm_thing",
		"Removed restricted key from module data: ansible_python_interpreter",
		"Removed restricted key from module data: ansible_become_x",
	}, warned)
}

func TestFactCacheVars(t *testing.T) {
	c := newFactCache()
	require.Equal(t, `{"ansible_facts": {}, "ansible_local": {}}`, value.JSON(c.vars(false), value.JSONOptions{}))
	c.update(value.DictOf("ansible_system", "Linux", "_ansible_facts_gathered", true))
	require.True(t, c.gathered())
	require.Equal(t, `{"ansible_facts": {"system": "Linux", "_ansible_facts_gathered": true}, "ansible_system": "Linux"}`,
		value.JSON(c.vars(true), value.JSONOptions{}))
	c.clear()
	require.False(t, c.gathered())
	require.Equal(t, `{"ansible_facts": {}}`, value.JSON(c.vars(true), value.JSONOptions{}))
}

func TestAggregateStat(t *testing.T) {
	cur := value.NewDict(0)
	for _, step := range []struct {
		k string
		v any
	}{
		{"n", 1}, {"n", 2}, {"n", true}, {"n", "x"}, {"n", 1.5},
		{"s", "a"}, {"s", "b"}, {"s", 3},
		{"l", []any{1}}, {"l", []any{2}},
		{"d", value.DictOf("a", value.DictOf("x", 1), "b", 1)}, {"d", value.DictOf("a", value.DictOf("y", 2), "b", []any{2})},
		{"f", 1.5}, {"f", 1.0}, {"f", 1},
		{"b", true}, {"b", true},
	} {
		aggregateStat(cur, step.k, step.v)
	}
	require.Equal(t, `{"n": 4, "s": "ab", "l": [1, 2], "d": {"a": {"x": 1, "y": 2}, "b": [2]}, "f": 2.5, "b": 2}`,
		value.JSON(cur, value.JSONOptions{}))
}
