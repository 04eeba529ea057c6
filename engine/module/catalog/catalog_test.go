package catalog

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name        string
		collections []string
		want        string
		ok          bool
	}{
		{name: "apt", want: "ansible.builtin.apt", ok: true},
		{name: "ansible.legacy.yum", want: "ansible.builtin.dnf", ok: true},
		{name: "ansible.builtin.yum_repository", want: "ansible.builtin.yum_repository", ok: true},
		{name: "ansible.legacy.systemd", want: "ansible.builtin.systemd", ok: true},
		{name: "docker_container", want: "community.docker.docker_container", ok: true},
		{name: "community.general.ini_file", want: "community.general.ini_file", ok: true},
		{name: "redis", collections: []string{"community.general"}, want: "community.general.redis", ok: true},
		{name: "community.general.no_such_module"},
		{name: "no_such_module"},
		{name: "ansible.legacy.no_such_module"},
		{name: "not.fqcn"},
	} {
		got, ok := Resolve(tc.name, tc.collections)
		require.Equal(t, tc.ok, ok, tc.name)
		if tc.ok {
			require.Equal(t, tc.want, got, tc.name)
		}
	}
}
