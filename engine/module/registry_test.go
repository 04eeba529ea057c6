package module

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/value"
)

func nop(*Request) (*value.Dict, error) { return Result(false), nil }

func TestRegistryNames(t *testing.T) {
	r, err := NewRegistry(
		[]Entry{{FQCN: "ansible.builtin.command", Module: Func(nop)}, {FQCN: "ansible.builtin.meta", Kind: KindMeta, Module: Func(nop)}},
		[]Entry{{FQCN: "kubernetes.core.k8s", Aliases: []string{"community.kubernetes.k8s"}, Module: Func(nop)}},
	)
	require.NoError(t, err)
	for _, name := range []string{"command", "ansible.builtin.command", "ansible.legacy.command"} {
		info, ok := r.Lookup(name)
		require.True(t, ok, name)
		require.Equal(t, Info{Name: "command", FQCN: "ansible.builtin.command"}, info)
	}
	for _, name := range []string{"k8s", "kubernetes.core.k8s", "community.kubernetes.k8s"} {
		info, ok := r.Lookup(name)
		require.True(t, ok, name)
		require.Equal(t, "kubernetes.core.k8s", info.FQCN)
	}
	info, _ := r.Lookup("meta")
	require.Equal(t, KindMeta, info.Kind)
	_, ok := r.Lookup("ansible.legacy.k8s")
	require.False(t, ok)
	require.NotNil(t, r.Module("k8s"))
	require.Contains(t, r.Names(), "ansible.builtin.command")
}

func TestRegistryRejectsDuplicates(t *testing.T) {
	_, err := NewRegistry([]Entry{{FQCN: "ansible.builtin.x", Module: Func(nop)}}, []Entry{{FQCN: "ansible.builtin.x", Module: Func(nop)}})
	require.Error(t, err)
	_, err = NewRegistry([]Entry{{FQCN: "x", Module: Func(nop)}})
	require.Error(t, err)
}

func TestBuiltinShortNameWins(t *testing.T) {
	r, err := NewRegistry([]Entry{{FQCN: "community.general.ping", Module: Func(nop)}, {FQCN: "ansible.builtin.ping", Module: Func(nop)}})
	require.NoError(t, err)
	info, _ := r.Lookup("ping")
	require.Equal(t, "ansible.builtin.ping", info.FQCN)
}

func TestEnviron(t *testing.T) {
	t.Setenv("CFZT_ENV_TEST", "process")
	req := &Request{Env: map[string]string{"CFZT_ENV_TEST": "task", "CFZT_ENV_ONLY_TASK": "x"}}
	env := req.Environ()
	require.Contains(t, env, "CFZT_ENV_TEST=task")
	require.NotContains(t, env, "CFZT_ENV_TEST=process")
	require.Contains(t, env, "CFZT_ENV_ONLY_TASK=x")
	v, ok := req.Getenv("CFZT_ENV_TEST")
	require.True(t, ok)
	require.Equal(t, "task", v)
}
