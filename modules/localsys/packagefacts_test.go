package localsys

import (
	"os"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestPackageFactsFailures(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []any
		msg      string
		warnings int
	}{
		{"unknown managers are sorted", []any{"manager", []any{"zz", "foo"}}, "Unsupported package managers requested: foo, zz", 0},
		{"unknown next to auto", []any{"manager", []any{"auto", "foo"}}, "Could not auto detect a usable package manager, check warnings for details.", 0},
		{"missing program", []any{"manager", []any{"pacman"}},
			"Could not detect a supported package manager from the following list: ['pacman'], or the required Python library is not installed. Check warnings for details.", 1},
		{"bad strategy", []any{"strategy", "x"}, "value of strategy must be one of: first, all, got: x", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := moduletest.NewHost(nil)
			req := h.Request("package_facts", tc.args...)
			req.Env = map[string]string{"PATH": "/nonexistent"}
			res, err := PackageFacts(req)
			require.NoError(t, err)
			require.Equal(t, true, res.Default("failed", nil))
			require.Equal(t, tc.msg, res.Default("msg", nil))
			warnings, _ := res.Default("warnings", []any{}).([]any)
			require.Len(t, warnings, tc.warnings)
		})
	}
}

func TestPackageFactsApt(t *testing.T) {
	if _, err := os.Stat(dpkgStatusFile); err != nil {
		t.Skip("no dpkg on this machine")
	}
	h := moduletest.NewHost(nil)
	req := h.Request("package_facts", "manager", []any{"yum", "apt"}, "strategy", "all")
	req.Env = map[string]string{"PATH": os.Getenv("PATH")}
	res, err := PackageFacts(req)
	require.NoError(t, err)
	pkgs := res.Default("ansible_facts", nil).(*value.Dict).Default("packages", nil).(*value.Dict)
	dpkg := pkgs.Default("dpkg", nil).([]any)[0].(*value.Dict)
	require.Equal(t, "dpkg", dpkg.Default("name", nil))
	require.Equal(t, "apt", dpkg.Default("source", nil))
	require.Equal(t, []string{"name", "version", "arch", "category", "origin", "source"}, dpkg.Keys())
}

func TestDebFields(t *testing.T) {
	for _, tc := range []struct {
		stanza string
		want   map[string]string
	}{
		{"Package: a\nVersion: 1.0\nDescription: x\n more\n", map[string]string{"Package": "a", "Version": "1.0", "Description": "x"}},
		{"", map[string]string{}},
	} {
		require.Equal(t, tc.want, debFields(tc.stanza))
	}
}
