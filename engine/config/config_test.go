package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// configEnv clears the settings Load reads from the environment.
func configEnv(t *testing.T) {
	for _, k := range []string{"ANSIBLE_CONFIG", "ANSIBLE_ROLES_PATH", "ANSIBLE_COLLECTIONS_PATH", "ANSIBLE_HASH_BEHAVIOUR",
		"ANSIBLE_PRIVATE_ROLE_VARS", "ANSIBLE_HOST_PATTERN_MISMATCH", "ANSIBLE_STDOUT_CALLBACK", "ANSIBLE_LIBRARY"} {
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
		check func(t *testing.T, dir string, c *Config)
	}{
		{name: "defaults without a file", check: func(t *testing.T, dir string, c *Config) {
			require.Equal(t, "", c.File)
			require.Equal(t, "No config file found; using defaults", c.Message())
			require.False(t, c.MergeHashes)
			require.Nil(t, c.PrivateRoleVars, "unset keeps ansible-core's default: imports public, includes private")
			require.Equal(t, "warning", c.HostPatternMismatch)
		}},
		{name: "the file's settings, paths relative to it",
			cfg: "[defaults]\nroles_path = shelf:/abs\nhash_behaviour = merge\nprivate_role_vars = no\ncollections_path = colls\n[inventory]\nhost_pattern_mismatch = ignore\n",
			check: func(t *testing.T, dir string, c *Config) {
				require.Equal(t, filepath.Join(dir, "ansible.cfg"), c.File)
				require.Equal(t, "Using "+c.File+" as config file", c.Message())
				require.Equal(t, []string{filepath.Join(dir, "shelf"), "/abs"}, c.RolesPath)
				require.Equal(t, []string{filepath.Join(dir, "colls")}, c.CollectionsPaths)
				require.True(t, c.MergeHashes)
				require.NotNil(t, c.PrivateRoleVars)
				require.False(t, *c.PrivateRoleVars, "set to false is still set: includes become public")
				require.Equal(t, "ignore", c.HostPatternMismatch)
			}},
		{name: "the environment over the file",
			cfg: "[defaults]\nhash_behaviour = merge\n",
			env: map[string]string{"ANSIBLE_HASH_BEHAVIOUR": "replace", "ANSIBLE_PRIVATE_ROLE_VARS": "True", "ANSIBLE_HOST_PATTERN_MISMATCH": "error",
				"ANSIBLE_ROLES_PATH": "rel"},
			check: func(t *testing.T, dir string, c *Config) {
				require.False(t, c.MergeHashes)
				require.True(t, *c.PrivateRoleVars)
				require.Equal(t, "error", c.HostPatternMismatch)
				require.Equal(t, []string{filepath.Join(dir, "rel")}, c.RolesPath, "relative to the working directory")
			}},
		{name: "the module path: library in the file, relative to it",
			cfg: "[defaults]\nlibrary = mods:/abs/mods\n",
			check: func(t *testing.T, dir string, c *Config) {
				require.Equal(t, []string{filepath.Join(dir, "mods"), "/abs/mods"}, c.ModulePath)
			}},
		{name: "the module path from ANSIBLE_LIBRARY", cfg: "[defaults]\nlibrary = mods\n", env: map[string]string{"ANSIBLE_LIBRARY": "lib"},
			check: func(t *testing.T, dir string, c *Config) {
				require.Equal(t, []string{filepath.Join(dir, "lib")}, c.ModulePath, "relative to the working directory")
			}},
		{name: "ANSIBLE_CONFIG naming a directory", env: map[string]string{"ANSIBLE_CONFIG": "conf"},
			check: func(t *testing.T, dir string, c *Config) {
				require.Equal(t, filepath.Join(dir, "conf", "ansible.cfg"), c.File)
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
			tc.check(t, dir, Load(Process()))
		})
	}
}

func TestConfigIgnoredInWorldWritableDirectory(t *testing.T) {
	configEnv(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ansible.cfg"), []byte("[defaults]\n"), 0o644))
	require.NoError(t, os.Chmod(dir, 0o777))
	t.Chdir(dir)
	c := Load(Process())
	require.Equal(t, "", c.File)
	require.Len(t, c.Warnings, 1)
	require.Contains(t, c.Warnings[0], "Ansible is being run in a world writable directory ("+dir+"), ignoring it as an ansible.cfg source.")
}

// fakeEnv is an Environment with the given variables and no config file
// in its directories.
func fakeEnv(t *testing.T, vars map[string]string) Environment {
	return Environment{Lookup: func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}, Dir: t.TempDir(), Home: t.TempDir()}
}

func TestEnvironmentOnlySettings(t *testing.T) {
	cases := []struct {
		name  string
		env   map[string]string
		check func(t *testing.T, c *Config)
	}{
		{"defaults", nil, func(t *testing.T, c *Config) {
			require.Nil(t, c.Inventory)
			require.True(t, c.InventoryUnparsedWarning)
			require.True(t, c.LocalhostWarning)
			require.False(t, c.VerbositySet)
			require.True(t, c.Color(true), "a terminal is coloured")
			require.False(t, c.Color(false))
			require.True(t, c.InjectFacts)
			require.Equal(t, "implicit", c.Gathering)
		}},
		{"inventory and warnings", map[string]string{"ANSIBLE_INVENTORY": "a.ini,b.yml", "ANSIBLE_INVENTORY_UNPARSED_WARNING": "False",
			"ANSIBLE_LOCALHOST_WARNING": "no"}, func(t *testing.T, c *Config) {
			require.Equal(t, []string{"a.ini", "b.yml"}, c.Inventory)
			require.False(t, c.InventoryUnparsedWarning)
			require.False(t, c.LocalhostWarning)
		}},
		{"an unrecognised boolean keeps the default", map[string]string{"ANSIBLE_LOCALHOST_WARNING": "maybe"}, func(t *testing.T, c *Config) {
			require.True(t, c.LocalhostWarning)
		}},
		{"verbosity", map[string]string{"ANSIBLE_VERBOSITY": " 3"}, func(t *testing.T, c *Config) {
			require.True(t, c.VerbositySet)
			require.Equal(t, 3, c.Verbosity)
		}},
		{"verbosity that is not a number", map[string]string{"ANSIBLE_VERBOSITY": "lots"}, func(t *testing.T, c *Config) {
			require.True(t, c.VerbositySet, "set, so LOG_LEVEL does not apply")
			require.Equal(t, 0, c.Verbosity)
		}},
		{"forced colour wins over no colour, as in ansible-core's constants", map[string]string{"ANSIBLE_NOCOLOR": "1", "ANSIBLE_FORCE_COLOR": "1"}, func(t *testing.T, c *Config) {
			require.True(t, c.Color(false))
		}},
		{"NO_COLOR", map[string]string{"NO_COLOR": "x"}, func(t *testing.T, c *Config) {
			require.False(t, c.Color(true))
		}},
		{"forced colour", map[string]string{"ANSIBLE_NOCOLOR": "0", "ANSIBLE_FORCE_COLOR": "true"}, func(t *testing.T, c *Config) {
			require.True(t, c.Color(false))
		}},
		{"forced colour off", map[string]string{"ANSIBLE_FORCE_COLOR": "False"}, func(t *testing.T, c *Config) {
			require.False(t, c.Color(false))
		}},
		{"gathering and facts", map[string]string{"ANSIBLE_GATHERING": " Explicit ", "ANSIBLE_INJECT_FACT_VARS": "no",
			"ANSIBLE_SHOW_CUSTOM_STATS": "yes"}, func(t *testing.T, c *Config) {
			require.Equal(t, "explicit", c.Gathering)
			require.False(t, c.InjectFacts)
			require.True(t, c.ShowCustomStats)
		}},
		{"diff always", map[string]string{"ANSIBLE_DIFF_ALWAYS": "True"}, func(t *testing.T, c *Config) {
			require.True(t, c.DiffAlways)
		}},
		{"an empty stdout callback is an error", map[string]string{"ANSIBLE_STDOUT_CALLBACK": ""}, func(t *testing.T, c *Config) {
			require.EqualError(t, c.Err, "No stdout callback name provided.")
		}},
		{"another stdout callback is refused", map[string]string{"ANSIBLE_STDOUT_CALLBACK": "community.general.diy"}, func(t *testing.T, c *Config) {
			require.EqualError(t, c.Err, "Could not load 'community.general.diy' callback plugin.")
			require.Empty(t, c.Warnings)
		}},
		{"community.general's yaml callback", map[string]string{"ANSIBLE_STDOUT_CALLBACK": "yaml"}, func(t *testing.T, c *Config) {
			require.Empty(t, c.Warnings)
			require.Equal(t, "community.general.yaml", c.StdoutCallback)
		}},
		{"json, minimal and oneline", map[string]string{"ANSIBLE_STDOUT_CALLBACK": "json"}, func(t *testing.T, c *Config) {
			require.Empty(t, c.Warnings)
			require.Equal(t, "ansible.posix.json", c.StdoutCallback)
		}},
		{"callbacks and their options", map[string]string{"ANSIBLE_CALLBACKS_ENABLED": "profile_tasks, ansible.posix.timer,,", "PROFILE_TASKS_SORT_ORDER": "none",
			"PROFILE_TASKS_TASK_OUTPUT_LIMIT": "all", "PROFILE_ROLES_SUMMARY_ONLY": "yes", "ANSIBLE_LOG_PATH": "~/ansible.log"}, func(t *testing.T, c *Config) {
			require.Equal(t, []string{"profile_tasks", "ansible.posix.timer"}, c.CallbacksEnabled)
			require.Equal(t, "none", c.ProfileTasksSort)
			require.Equal(t, "all", c.ProfileTasksLimit)
			require.True(t, c.ProfileRolesSummaryOnly)
			require.False(t, c.ProfileTasksSummaryOnly)
			require.True(t, strings.HasSuffix(c.LogPath, "/ansible.log") && !strings.HasPrefix(c.LogPath, "~"), c.LogPath)
		}},
		{"the yaml result format", map[string]string{"ANSIBLE_CALLBACK_RESULT_FORMAT": "YAML"}, func(t *testing.T, c *Config) {
			require.Equal(t, "yaml", c.ResultFormat)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, Load(fakeEnv(t, tc.env)))
		})
	}
}

func TestInventorySources(t *testing.T) {
	fallback := []string{"/etc/ansible/hosts"}
	c := Load(fakeEnv(t, nil))
	require.Equal(t, fallback, c.InventorySources(nil, fallback))
	require.Equal(t, []string{"hosts"}, c.InventorySources([]string{"hosts"}, fallback))
	c = Load(fakeEnv(t, map[string]string{"ANSIBLE_INVENTORY": "env.ini"}))
	require.Equal(t, []string{"env.ini"}, c.InventorySources(nil, fallback), "ANSIBLE_INVENTORY before the fallback")
	require.Equal(t, []string{"hosts"}, c.InventorySources([]string{"hosts"}, fallback), "-i before ANSIBLE_INVENTORY")
}

func TestDiffAlwaysFromTheFile(t *testing.T) {
	env := fakeEnv(t, nil)
	require.NoError(t, os.WriteFile(filepath.Join(env.Dir, "ansible.cfg"), []byte("[diff]\nalways = yes\n"), 0o644))
	c := Load(env)
	require.Equal(t, filepath.Join(env.Dir, "ansible.cfg"), c.File)
	require.True(t, c.DiffAlways)
	require.False(t, Load(fakeEnv(t, nil)).DiffAlways)
}

// TestOutputAndInventoryFromTheFile: ansible.cfg's inventory (a pathlist
// relative to the file), nocolor, force_color and log_path are read; the
// environment wins over the file.
func TestOutputAndInventoryFromTheFile(t *testing.T) {
	env := fakeEnv(t, nil)
	cfgDir := filepath.Join(env.Dir, "conf")
	require.NoError(t, os.MkdirAll(cfgDir, 0o755))
	cfg := filepath.Join(cfgDir, "ansible.cfg")
	require.NoError(t, os.WriteFile(cfg, []byte("[defaults]\ninventory = hosts.ini, /abs/other\nnocolor = true\nlog_path = /tmp/x.log\ncallbacks_enabled = timer\n"), 0o644))
	vars := map[string]string{"ANSIBLE_CONFIG": cfg}
	c := Load(fakeEnv2(env, vars))
	require.Equal(t, []string{filepath.Join(cfgDir, "hosts.ini"), "/abs/other"}, c.InventorySources(nil, []string{"/etc/ansible/hosts"}))
	require.False(t, c.Color(true))
	require.Equal(t, "/tmp/x.log", c.LogPath)
	require.Equal(t, []string{"timer"}, c.CallbacksEnabled)

	vars["ANSIBLE_INVENTORY"] = "env.ini"
	vars["ANSIBLE_NOCOLOR"] = "0"
	c = Load(fakeEnv2(env, vars))
	require.Equal(t, []string{"env.ini"}, c.InventorySources(nil, nil))
	require.True(t, c.Color(true))

	require.NoError(t, os.WriteFile(cfg, []byte("[defaults]\nforce_color = 1\n"), 0o644))
	require.True(t, Load(fakeEnv2(env, map[string]string{"ANSIBLE_CONFIG": cfg, "ANSIBLE_NOCOLOR": "1"})).Color(false))
}

// fakeEnv2 is env with its variables replaced by vars.
func fakeEnv2(env Environment, vars map[string]string) Environment {
	env.Lookup = func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
	return env
}

// TestCompatibilitySwitches: ALLOW_BROKEN_CONDITIONALS (off by default)
// and ALLOW_EMBEDDED_TEMPLATES (on by default) come from ansible.cfg's
// [defaults] or the environment, which wins; a value ansible-core's
// lenient boolean does not know is false.
func TestCompatibilitySwitches(t *testing.T) {
	c := Load(fakeEnv(t, nil))
	require.False(t, c.AllowBrokenConditionals)
	require.True(t, c.AllowEmbeddedTemplates)
	require.True(t, c.DeprecationWarnings)
	require.False(t, Load(fakeEnv(t, map[string]string{"ANSIBLE_DEPRECATION_WARNINGS": "False"})).DeprecationWarnings)

	env := fakeEnv(t, nil)
	require.NoError(t, os.WriteFile(filepath.Join(env.Dir, "ansible.cfg"),
		[]byte("[defaults]\nallow_broken_conditionals = True\nallow_embedded_templates = no\n"), 0o644))
	c = Load(env)
	require.True(t, c.AllowBrokenConditionals)
	require.False(t, c.AllowEmbeddedTemplates)

	env = fakeEnv(t, map[string]string{"ANSIBLE_ALLOW_BROKEN_CONDITIONALS": "0", "ANSIBLE_ALLOW_EMBEDDED_TEMPLATES": "yes"})
	require.NoError(t, os.WriteFile(filepath.Join(env.Dir, "ansible.cfg"),
		[]byte("[defaults]\nallow_broken_conditionals = True\nallow_embedded_templates = no\n"), 0o644))
	c = Load(env)
	require.False(t, c.AllowBrokenConditionals, "the environment wins over the file")
	require.True(t, c.AllowEmbeddedTemplates)

	c = Load(fakeEnv(t, map[string]string{"ANSIBLE_ALLOW_BROKEN_CONDITIONALS": "sure", "ANSIBLE_ALLOW_EMBEDDED_TEMPLATES": "maybe"}))
	require.False(t, c.AllowBrokenConditionals)
	require.False(t, c.AllowEmbeddedTemplates, "an unknown word is false, as ansible-core's boolean(strict=False) reads it")
}
