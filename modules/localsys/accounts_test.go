package localsys

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/stretchr/testify/require"
)

func TestReadColonFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "group")
	require.NoError(t, os.WriteFile(path, []byte("# comment\nroot:x:0:\n\nstaff:x:50:a,b\n"), 0o644))
	require.Equal(t, [][]string{{"root", "x", "0", ""}, {"staff", "x", "50", "a,b"}}, readColonFile(path))
	require.Nil(t, readColonFile(filepath.Join(t.TempDir(), "missing")))
}

func TestPasswordLooksUnhashed(t *testing.T) {
	sha512 := "$6$cfztgoldensalt$6/ANFsmBOadGh5OCVW2Kg887QNrApEqdl1L3rWGdd/nMK4f9hMQyE/zk/a1AOAqoU8dou0QU6RJtLoxwY6jIO1"
	for _, tc := range []struct {
		pw   string
		want bool
	}{
		{sha512, false},
		{"!", false},
		{"*", false},
		{"plain", true},
		{"$6$salt$short", true},
		{"$1$salt$" + "abcdefghijklmnopqrstuv", false},
		{"$5$salt$" + "has:colon", true},
		{"$x$", false},
		{"$x", true},
	} {
		require.Equal(t, tc.want, passwordLooksUnhashed(tc.pw), tc.pw)
	}
}

func TestSymmetricDifference(t *testing.T) {
	for _, tc := range []struct{ a, b, want []string }{
		{[]string{"a", "b"}, []string{"b", "c"}, []string{"a", "c"}},
		{[]string{"a"}, []string{"a"}, nil},
		{nil, []string{"z", "y"}, []string{"y", "z"}},
	} {
		require.Equal(t, tc.want, symmetricDifference(tc.a, tc.b))
	}
}

func TestBinPath(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "tool")
	require.NoError(t, os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644))
	h := moduletest.NewHost(nil)
	req := h.Request("x")
	req.Env = map[string]string{"PATH": dir}
	got, err := binPath(req, "tool")
	require.NoError(t, err)
	require.Equal(t, tool, got)
	_, err = binPath(req, "plain")
	require.ErrorContains(t, err, `Failed to find required executable "plain" in paths: `+dir)
}

// TestGroupAndUserFailures runs the argument checks that fail before any
// account is touched.
func TestGroupAndUserFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(h *moduletest.Host) (string, error)
		msg  string
	}{
		{"group force and local", func(h *moduletest.Host) (string, error) {
			res, err := Group(h.Request("group", "name", "g", "force", true, "local", true))
			return str(res.Default("msg", nil)), err
		}, "force is not a valid option for local, force=True and local=True are mutually exclusive"},
		{"group gid_max and local", func(h *moduletest.Host) (string, error) {
			res, err := Group(h.Request("group", "name", "g", "local", true, "gid_max", 5))
			return str(res.Default("msg", nil)), err
		}, "'gid_max' can not be used with 'local'"},
		{"group non_unique without gid", func(h *moduletest.Host) (string, error) {
			res, err := Group(h.Request("group", "name", "g", "non_unique", true))
			return str(res.Default("msg", nil)), err
		}, "non_unique is True but all of the following are missing: gid"},
		{"user uid_min and local", func(h *moduletest.Host) (string, error) {
			res, err := User(h.Request("user", "name", "u", "local", true, "uid_min", 5))
			return str(res.Default("msg", nil)), err
		}, "'uid_min' can not be used with 'local'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, err := tc.run(moduletest.NewHost(nil))
			require.NoError(t, err)
			require.Equal(t, tc.msg, msg)
		})
	}
}

func str(v any) string { s, _ := v.(string); return s }

// TestUserCheckMode predicts a new user without creating it, and reports
// root as it is.
func TestUserCheckMode(t *testing.T) {
	if _, err := exec.LookPath("useradd"); err != nil || os.Getuid() != 0 {
		t.Skip("needs root and shadow-utils")
	}
	h := moduletest.NewHost(nil)
	req := h.Request("user", "name", "cfzt-unit-missing-user")
	req.Check = true
	res, err := User(req)
	require.NoError(t, err)
	require.Equal(t, true, res.Default("changed", nil))
	_, exists := userByName("cfzt-unit-missing-user")
	require.False(t, exists)

	req = h.Request("user", "name", "root")
	req.Check = true
	res, err = User(req)
	require.NoError(t, err)
	require.Equal(t, false, res.Default("changed", nil))
	require.Equal(t, 0, res.Default("uid", nil))
}
