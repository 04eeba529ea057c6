package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/config"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/operator/sdk"
	"github.com/stretchr/testify/require"
)

// libraryPlaybook runs a module file of the playbook's library/ and
// writes what it returned to marker: the file exists only if the
// composed registry ran the module file.
const libraryPlaybook = `- hosts: localhost
  gather_facts: false
  tasks:
    - hello:
        name: json
      register: out
    - ansible.builtin.copy:
        content: "{{ out.seen }}"
        dest: "{{ marker }}"
`

const libraryModule = `#!/bin/sh
# WANT_JSON
case "$(cat "$1")" in
  *'"name": "json"'*) echo '{"changed": false, "seen": "library module ran"}' ;;
  *) echo '{"failed": true, "msg": "no json args"}' ;;
esac
`

// quietEnv is an environment with no ANSIBLE_* variables and no
// ansible.cfg, in dir.
func quietEnv(dir string) config.Environment {
	return config.Environment{Lookup: func(string) (string, bool) { return "", false }, Dir: dir, Home: dir}
}

func libraryFixture(t *testing.T) (dir, book string) {
	dir = t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "library"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "library", "hello.sh"), []byte(libraryModule), 0o755))
	book = filepath.Join(dir, "playbook.yml")
	require.NoError(t, os.WriteFile(book, []byte(libraryPlaybook), 0o644))
	return dir, book
}

// TestLibraryModuleUnderEveryMode: the one composition root gives each
// mode (the one-shot run, the operator loop, the operator-sdk drop-in) a
// registry that runs module files of library/ (the drop-in's once lacked
// the runner: "no runner for the module file").
func TestLibraryModuleUnderEveryMode(t *testing.T) {
	for _, m := range []mode{modeRun, modeOperator} {
		dir, book := libraryFixture(t)
		marker := filepath.Join(dir, "marker")
		cfg := config.Load(quietEnv(dir))
		comp, err := compose(composeOptions{Mode: m, Config: cfg, Inventory: []string{"localhost,"}})
		require.NoError(t, err)
		var out bytes.Buffer
		disp := textDisplay(cfg, 0, &out, &out)
		r, err := comp.Session.Load([]string{book}, run.Options{ExtraVars: value.DictOf("marker", marker)}, disp)
		require.NoError(t, err)
		require.Equal(t, 0, r.Execute(context.Background(), disp, nil, nil), "mode %d: %s", m, out.String())
		data, err := os.ReadFile(marker)
		require.NoError(t, err, "mode %d: %s", m, out.String())
		require.Equal(t, "library module ran", string(data))
	}

	dir, book := libraryFixture(t)
	marker := filepath.Join(dir, "marker")
	runner, comp, err := sdkRunner(quietEnv(dir), t.TempDir())
	require.NoError(t, err)
	require.NotNil(t, comp.SDKMetrics)
	var log bytes.Buffer
	res := runner.Run(context.Background(), sdk.Job{Playbook: book, Vars: value.DictOf("marker", marker), Log: &sdk.Logger{Out: &log}, Level: sdk.LogEverything})
	require.NoError(t, res.Err, log.String())
	require.Empty(t, res.Failures, log.String())
	data, err := os.ReadFile(marker)
	require.NoError(t, err, log.String())
	require.Equal(t, "library module ran", string(data))
}

// TestComposeSDKSettings: the drop-in's --ansible-roles-path and
// --ansible-collections-path reach its configuration without changing
// the process environment, and roles/ beside the working directory is
// on its roles path.
func TestComposeSDKSettings(t *testing.T) {
	dir := t.TempDir()
	env := withSettings(quietEnv(dir), map[string]string{"ANSIBLE_ROLES_PATH": "/opt/r", "ANSIBLE_COLLECTIONS_PATH": "/opt/c", "ANSIBLE_LIBRARY": ""})
	before, had := os.LookupEnv("ANSIBLE_ROLES_PATH")
	comp, err := compose(composeOptions{Mode: modeSDK, Env: env})
	require.NoError(t, err)
	require.Equal(t, []string{"/opt/r", filepath.Join(dir, "roles")}, comp.Config.RolesPath)
	require.Equal(t, []string{"/opt/c"}, comp.Config.CollectionsPaths)
	after, has := os.LookupEnv("ANSIBLE_ROLES_PATH")
	require.Equal(t, had, has)
	require.Equal(t, before, after)
	_, set := env.Lookup("ANSIBLE_LIBRARY")
	require.False(t, set, "an empty flag leaves the variable as the process has it")
	require.NotNil(t, comp.Session.Engine, "the drop-in shares one template engine")
	// As ansible-operator exports them to its runs: lookup('env') and
	// the modules' child processes see the flags' values.
	v, ok := comp.Session.Engine.Getenv("ANSIBLE_ROLES_PATH")
	require.True(t, ok)
	require.Equal(t, "/opt/r", v)
	require.Contains(t, comp.Session.Engine.Environ(), "ANSIBLE_COLLECTIONS_PATH=/opt/c")
	require.Equal(t, map[string]string{"ANSIBLE_ROLES_PATH": "/opt/r", "ANSIBLE_COLLECTIONS_PATH": "/opt/c"}, comp.Session.Options(run.Options{}).BaseEnv)
	require.Nil(t, comp.Metrics, "the drop-in serves its own metrics, not the operator loop's")
}
