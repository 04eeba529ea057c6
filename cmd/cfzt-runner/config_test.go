package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// configEnv clears the settings loadConfig reads from the environment.
func configEnv(t *testing.T) {
	for _, k := range []string{"ANSIBLE_CONFIG", "ANSIBLE_ROLES_PATH", "ANSIBLE_COLLECTIONS_PATH", "ANSIBLE_HASH_BEHAVIOUR",
		"ANSIBLE_PRIVATE_ROLE_VARS", "ANSIBLE_HOST_PATTERN_MISMATCH", "ANSIBLE_STDOUT_CALLBACK"} {
		t.Setenv(k, "")
		require.NoError(t, os.Unsetenv(k))
	}
	t.Setenv("HOME", t.TempDir())
}

func TestLoadConfigSettings(t *testing.T) {
	cases := []struct {
		name  string
		cfg   string
		env   map[string]string
		check func(t *testing.T, dir string, c config)
	}{
		{name: "defaults without a file", check: func(t *testing.T, dir string, c config) {
			require.Equal(t, "", c.path)
			require.Equal(t, "No config file found; using defaults", c.message)
			require.False(t, c.mergeHashes)
			require.Nil(t, c.privateRoleVars, "unset keeps ansible-core's default: imports public, includes private")
			require.Equal(t, "warning", c.hostPatternMismatch)
		}},
		{name: "the file's settings, paths relative to it",
			cfg: "[defaults]\nroles_path = shelf:/abs\nhash_behaviour = merge\nprivate_role_vars = no\ncollections_path = colls\n[inventory]\nhost_pattern_mismatch = ignore\n",
			check: func(t *testing.T, dir string, c config) {
				require.Equal(t, filepath.Join(dir, "ansible.cfg"), c.path)
				require.Equal(t, "Using "+c.path+" as config file", c.message)
				require.Equal(t, []string{filepath.Join(dir, "shelf"), "/abs"}, c.rolesPath)
				require.Equal(t, []string{filepath.Join(dir, "colls")}, c.collectionsPaths)
				require.True(t, c.mergeHashes)
				require.NotNil(t, c.privateRoleVars)
				require.False(t, *c.privateRoleVars, "set to false is still set: includes become public")
				require.Equal(t, "ignore", c.hostPatternMismatch)
			}},
		{name: "the environment over the file",
			cfg: "[defaults]\nhash_behaviour = merge\n",
			env: map[string]string{"ANSIBLE_HASH_BEHAVIOUR": "replace", "ANSIBLE_PRIVATE_ROLE_VARS": "True", "ANSIBLE_HOST_PATTERN_MISMATCH": "error",
				"ANSIBLE_ROLES_PATH": "rel"},
			check: func(t *testing.T, dir string, c config) {
				require.False(t, c.mergeHashes)
				require.True(t, *c.privateRoleVars)
				require.Equal(t, "error", c.hostPatternMismatch)
				require.Equal(t, []string{filepath.Join(dir, "rel")}, c.rolesPath, "relative to the working directory")
			}},
		{name: "ANSIBLE_CONFIG naming a directory", env: map[string]string{"ANSIBLE_CONFIG": "conf"},
			check: func(t *testing.T, dir string, c config) {
				require.Equal(t, filepath.Join(dir, "conf", "ansible.cfg"), c.path)
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			configEnv(t)
			dir := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "conf"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "conf", "ansible.cfg"), []byte("[defaults]\n"), 0o644))
			if tc.cfg != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "ansible.cfg"), []byte(tc.cfg), 0o644))
			}
			t.Chdir(dir)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			dir, _ = os.Getwd()
			tc.check(t, dir, loadConfig())
		})
	}
}

func TestConfigIgnoredInWorldWritableDirectory(t *testing.T) {
	configEnv(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ansible.cfg"), []byte("[defaults]\n"), 0o644))
	require.NoError(t, os.Chmod(dir, 0o777))
	t.Chdir(dir)
	c := loadConfig()
	require.Equal(t, "", c.path)
	require.Len(t, c.warnings, 1)
	require.Contains(t, c.warnings[0], "Ansible is being run in a world writable directory ("+dir+"), ignoring it as an ansible.cfg source.")
}
