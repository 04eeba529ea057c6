package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// writeFiles writes files into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
}

const unsupportedBook = `- hosts: localhost
  gather_facts: false
  roles: [r1]
  tasks:
    - name: install
      apt: name=foo
      when: false
    - debug: msg="{{ x | community.general.nope_filter }}"
    - debug: msg=ok
      when: x is nope_test
    - debug: msg="{{ lookup('community.general.onepassword', 'x') }}"
  handlers:
    - name: h
      community.general.ufw: rule=allow
`

// TestListUnsupported: --list-unsupported names every task using what
// cfzt-runner lacks (a task a static when skips too), with file:line;
// --syntax-check keeps ansible-playbook's output and fails after it.
func TestListUnsupported(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pb.yml": unsupportedBook, "roles/r1/tasks/main.yml": "- name: role task\n  ansible.posix.firewalld: {}\n  ignore_errors: true\n",
		"ok.yml": "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - debug: msg=\"{{ 'a' | upper }}\"\n      when: x is defined\n"})
	res := runCLIProcess(t, dir, t.TempDir(), "-i", "localhost,", "--list-unsupported", "pb.yml")
	require.Equal(t, 1, res.rc, res.stderr)
	book := filepath.Join(dir, "pb.yml")
	require.Equal(t, book+":5: install: module 'ansible.builtin.apt'\n"+
		book+":8: debug: filter 'community.general.nope_filter'\n"+
		book+":9: debug: test 'nope_test'\n"+
		book+":11: debug: lookup 'community.general.onepassword'\n"+
		book+":13: h: module 'community.general.ufw'\n"+
		filepath.Join(dir, "roles/r1/tasks/main.yml")+":1: r1 : role task: module 'ansible.posix.firewalld'\n", res.stdout)

	res = runCLIProcess(t, dir, t.TempDir(), "-i", "localhost,", "--syntax-check", "pb.yml")
	require.Equal(t, 1, res.rc)
	require.Equal(t, "\nplaybook: pb.yml\n", res.stdout)
	require.True(t, strings.HasPrefix(res.stderr, "[ERROR]: cfzt-runner does not implement what these tasks use:\n  "+book+":5: install: module 'ansible.builtin.apt'\n"), res.stderr)

	res = runCLIProcess(t, dir, t.TempDir(), "-i", "localhost,", "--syntax-check", "ok.yml")
	require.Equal(t, cliResult{stdout: "\nplaybook: ok.yml\n"}, res, "nothing added when everything is implemented")
	res = runCLIProcess(t, dir, t.TempDir(), "-i", "localhost,", "--list-unsupported", "ok.yml")
	require.Equal(t, 0, res.rc)
}

// TestListUnsupportedDynamicIncludes: --list-unsupported also searches
// the files that include_tasks and include_role name without a template
// (once each, even when a file includes itself), and says nothing of
// those named by a template, which are known only when they run.
func TestListUnsupportedDynamicIncludes(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"pb.yml": "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - include_tasks: inc.yml\n    - include_tasks: \"{{ which }}.yml\"\n" +
			"    - ansible.builtin.include_role: {name: r2}\n",
		"inc.yml":                 "- name: included\n  community.general.ufw: rule=allow\n- include_tasks: inc.yml\n  when: false\n",
		"templated.yml":           "- name: never seen\n  community.general.nope: {}\n",
		"roles/r2/tasks/main.yml": "- name: in role\n  ansible.posix.firewalld: {}\n- include_tasks: more.yml\n",
		"roles/r2/tasks/more.yml": "- name: deeper\n  debug: msg=\"{{ 1 | community.general.nope_filter }}\"\n",
	})
	res := runCLIProcess(t, dir, t.TempDir(), "-i", "localhost,", "--list-unsupported", "pb.yml")
	require.Equal(t, 1, res.rc, res.stderr)
	require.Equal(t, filepath.Join(dir, "inc.yml")+":1: included: module 'community.general.ufw'\n"+
		filepath.Join(dir, "roles/r2/tasks/main.yml")+":1: r2 : in role: module 'ansible.posix.firewalld'\n"+
		filepath.Join(dir, "roles/r2/tasks/more.yml")+":1: r2 : deeper: filter 'community.general.nope_filter'\n", res.stdout)
	// --syntax-check loads what ansible-playbook loads: nothing dynamic.
	res = runCLIProcess(t, dir, t.TempDir(), "-i", "localhost,", "--syntax-check", "pb.yml")
	require.Equal(t, cliResult{stdout: "\nplaybook: pb.yml\n"}, res)
}

func TestForksBelowOne(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pb.yml": "- hosts: localhost\n  tasks: []\n"})
	for _, f := range []string{"0", "-1"} {
		res := runCLIProcess(t, dir, t.TempDir(), "-i", "localhost,", "-f", f, "pb.yml")
		require.Equal(t, 2, res.rc)
		require.Contains(t, res.stderr, "cfzt-runner: error: The number of processes (--forks) must be >= 1\n")
	}
}

// TestStep: --step asks before each task on stdin, as ansible-playbook
// does (a terminal or not); at the end of the input the run stops with
// ansible-core's error and exit status 250, and no later task runs.
func TestStep(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pb.yml": `- hosts: localhost
  gather_facts: false
  tasks:
    - debug: msg=first
    - name: second
      debug: msg=second
    - debug: msg=third
`})
	run := func(stdin string) cliResult {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-i", "localhost,", "--step", "pb.yml")
		cmd.Dir = dir
		cmd.Env = []string{"CFZT_TEST_CLI=1", "PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "ANSIBLE_NOCOLOR=1", "ANSIBLE_STDOUT_CALLBACK=default", "ANSIBLE_LOCALHOST_WARNING=0", "ANSIBLE_INVENTORY_UNPARSED_WARNING=0"}
		cmd.Stdin = strings.NewReader(stdin)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		rc := 0
		if ee, ok := err.(*exec.ExitError); ok {
			rc = ee.ExitCode()
		}
		return cliResult{out.String(), errOut.String(), rc}
	}
	prompt := func(task string) string {
		msg := "Perform task: TASK: " + task + " (N)o/(y)es/(c)ontinue:"
		return msg + " \n" + msg + " " + strings.Repeat("*", 79-len(msg)) + "\n"
	}
	res := run("y\nn\nc\n")
	require.Equal(t, 0, res.rc, res.stderr)
	require.Contains(t, res.stdout, prompt("debug")+"\nTASK [debug] ***")
	require.Contains(t, res.stdout, prompt("second")+prompt("debug")+"\nTASK [debug] ***", "second is skipped: no banner, no result")
	require.NotContains(t, res.stdout, "\"second\"")
	require.Contains(t, res.stdout, "\"third\"")
	require.Contains(t, res.stdout, "localhost                  : ok=2 ")

	res = run("c\n")
	require.Equal(t, 0, res.rc)
	require.Equal(t, 1, strings.Count(res.stdout, "Perform task:")/2, "continue stops asking")

	res = run("y\n")
	require.Equal(t, 250, res.rc)
	require.Equal(t, "[ERROR]: Unexpected Exception, this is probably a bug: EOF when reading a line\n", res.stderr)
	require.True(t, strings.HasSuffix(res.stdout, "Perform task: TASK: second (N)o/(y)es/(c)ontinue: "), res.stdout)
	require.NotContains(t, res.stdout, "third")
}

// TestConfigInventoryAndLog: ansible.cfg's [defaults] inventory (relative
// to the file) gives the hosts when neither -i nor ANSIBLE_INVENTORY
// does, and log_path receives the run in ansible-core's log format.
func TestConfigInventoryAndLog(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"conf/ansible.cfg": "[defaults]\ninventory = hosts.ini\nlog_path = " + filepath.Join(dir, "run.log") + "\n",
		"conf/hosts.ini":   "fromcfg ansible_connection=local\n",
		"pb.yml":           "- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hi\n",
	})
	res := runCLIEnv(t, dir, t.TempDir(), []string{"ANSIBLE_CONFIG=" + filepath.Join(dir, "conf/ansible.cfg")}, "pb.yml")
	require.Equal(t, 0, res.rc, res.stderr)
	require.Contains(t, res.stdout, "ok: [fromcfg]")
	data, err := os.ReadFile(filepath.Join(dir, "run.log"))
	require.NoError(t, err)
	require.Regexp(t, `(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} p=\d+ u=\S+ n=ansible INFO\| ok: \[fromcfg\] => \{$`, string(data))
	require.Regexp(t, `(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} p=\d+ u=\S+ n=ansible INFO\| PLAY RECAP \*+$`, string(data))
}
