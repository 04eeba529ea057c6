package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// versionKeys maps each key of ansible-playbook's --version block to the
// key cfzt-runner prints in its place (see writeVersion).
var versionKeys = map[string]string{
	"config file":                    "config file",
	"configured module search path":  "configured module search path",
	"ansible python module location": "ansible engine location",
	"ansible collection location":    "ansible collection location",
	"executable location":            "executable location",
	"python version":                 "go version",
	"jinja version":                  "template engine version",
	"pyyaml version":                 "yaml library version",
}

var versionLine = regexp.MustCompile(`^  ([a-z ]+) = (.*)$`)

// TestVersionLayout compares --version with the oracle's block, recorded
// by testdata/record-version.sh: the same first-line form, the same
// number of lines in the same order, each "  key = value" with the same
// key or its documented replacement. Run as the oracle was (no
// ansible.cfg, a fresh HOME, the oracle's collection path in the
// environment), the shared values must be equal too.
func TestVersionLayout(t *testing.T) {
	data, err := os.ReadFile("testdata/version/oracle.out")
	require.NoError(t, err)
	oracle := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")

	home := t.TempDir()
	var collections string
	for _, l := range oracle {
		if m := versionLine.FindStringSubmatch(l); m != nil && m[1] == "ansible collection location" {
			collections = m[2]
		}
	}
	require.NotEmpty(t, collections)
	res := runCLIEnv(t, t.TempDir(), home, []string{"ANSIBLE_COLLECTIONS_PATH=" + collections}, "--version")
	require.Equal(t, 0, res.rc, res.stderr)
	require.Empty(t, res.stderr)
	ours := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
	require.Len(t, ours, len(oracle), "one line for each of the oracle's:\n%s", res.stdout)

	core := regexp.MustCompile(`^ansible-playbook \[core (\S+)\]$`).FindStringSubmatch(oracle[0])
	require.NotNil(t, core, oracle[0])
	require.Equal(t, compatibleCore, core[1], "the core version we claim is the oracle's")
	require.Regexp(t, `^cfzt-runner \[core `+regexp.QuoteMeta(core[1])+` compatible, cfzt-runner \S+\]$`, ours[0])

	exe, err := os.Executable()
	require.NoError(t, err)
	exe, err = filepath.EvalSymlinks(exe)
	require.NoError(t, err)
	for i := 1; i < len(oracle); i++ {
		om := versionLine.FindStringSubmatch(oracle[i])
		require.NotNil(t, om, "oracle line %d: %q", i, oracle[i])
		m := versionLine.FindStringSubmatch(ours[i])
		require.NotNil(t, m, "line %d is not '  key = value': %q", i, ours[i])
		want, known := versionKeys[om[1]]
		require.True(t, known, "the oracle has a key we do not map: %q (re-recorded from a newer ansible-core?)", om[1])
		require.Equal(t, want, m[1], "line %d", i)
		require.NotEmpty(t, m[2], "line %d has no value", i)
		switch om[1] {
		case "config file", "ansible collection location":
			require.Equal(t, om[2], m[2], om[1])
		case "configured module search path":
			require.Equal(t, strings.ReplaceAll(om[2], "<HOME>", home), m[2], om[1])
		case "executable location":
			require.Equal(t, exe, m[2])
		case "python version":
			require.True(t, strings.HasPrefix(m[2], runtime.Version()+" "), m[2])
		case "jinja version":
			require.Regexp(t, `^github\.com/nikolalohinski/gonja/v2 v\d+\.\d+\.\d+ `, m[2])
		case "pyyaml version":
			require.Regexp(t, `^gopkg\.in/yaml\.v3 v\d+\.\d+\.\d+$`, m[2])
		}
	}
}

// TestVersionShowsTheConfigFile checks that --version names the
// ansible.cfg actually found (here ./ansible.cfg) and the module path it
// sets, relative entries resolved against the file's directory, as
// ansible-core does; and that a hostile path in it is quoted as Python
// quotes it, so that it cannot forge another line of the block.
func TestVersionShowsTheConfigFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ansible.cfg"),
		[]byte("[defaults]\nlibrary = ./mods:/it's/here\n"), 0o644))
	res := runCLIProcess(t, dir, t.TempDir(), "--version")
	require.Equal(t, 0, res.rc, res.stderr)
	require.Contains(t, res.stdout, "\n  config file = "+filepath.Join(dir, "ansible.cfg")+"\n")
	require.Contains(t, res.stdout, "\n  configured module search path = ['"+filepath.Join(dir, "mods")+`', "/it's/here"]`+"\n")
}

// TestVersionPythonList checks the module path's quoting against what
// Python's repr of a list of strings gives.
func TestVersionPythonList(t *testing.T) {
	require.Equal(t, "[]", pythonList(nil))
	require.Equal(t, `['/a', '/b']`, pythonList([]string{"/a", "/b"}))
	require.Equal(t, `["/it's"]`, pythonList([]string{"/it's"}))
	require.Equal(t, `['/a\'"b']`, pythonList([]string{`/a'"b`}))
	require.Equal(t, `['/a\\b']`, pythonList([]string{`/a\b`}))
}

// TestVersionHeaderOfVerboseRun checks that -vv starts with the block
// --version prints, as ansible-playbook's -vv does.
func TestVersionHeaderOfVerboseRun(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pb.yml"), []byte("- hosts: localhost\n  gather_facts: false\n  tasks: []\n"), 0o644))
	version := runCLIProcess(t, dir, home, "--version")
	require.Equal(t, 0, version.rc)
	run := runCLIProcess(t, dir, home, "-i", "localhost,", "-vv", "pb.yml")
	require.Equal(t, 0, run.rc, run.stderr)
	require.True(t, strings.HasPrefix(run.stdout, version.stdout), "-vv output:\n%s", run.stdout)
}
