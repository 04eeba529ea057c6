package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The playbooks a signal interrupts: each has a long step, announced by
// the banner the test waits for, and a later task that leaves a file.
var signalBooks = map[string]struct{ book, banner string }{
	"command": {`- hosts: localhost
  gather_facts: false
  tasks:
    - name: async survivor
      ansible.builtin.shell: sleep 2; touch "{{ dir }}/async-done"
      async: 60
      poll: 0
    - name: long command
      ansible.builtin.shell: echo $$ > "{{ dir }}/pid"; exec sleep 60
    - name: later
      ansible.builtin.file: {path: "{{ dir }}/later", state: touch}
`, "TASK [long command]"},
	"pause": {`- hosts: localhost
  gather_facts: false
  tasks:
    - name: long pause
      ansible.builtin.pause: {seconds: 60}
    - name: later
      ansible.builtin.file: {path: "{{ dir }}/later", state: touch}
`, "Pausing for 60 seconds"},
	"include loop": {`- hosts: localhost
  gather_facts: false
  tasks:
    - name: many includes
      ansible.builtin.include_tasks: step.yml
      loop: "{{ range(1000) | list }}"
    - name: later
      ansible.builtin.file: {path: "{{ dir }}/later", state: touch}
`, "TASK [step]"},
}

// TestSignalsStopPlainRun sends SIGINT and SIGTERM to real runs, as a
// terminal or a supervisor would, and checks what ansible-playbook 2.19
// does (recorded by hand from the oracle: a long command, a pause and an
// include loop each interrupted with kill -INT and kill -TERM): nothing
// more on stdout after the running task's banner (no failed task, no
// recap), "[ERROR]: User interrupted execution" and exit status 99 for
// SIGINT, death by SIGTERM for SIGTERM, the running command killed, no
// later task run, and an async job left to finish.
func TestSignalsStopPlainRun(t *testing.T) {
	for name, pb := range signalBooks {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(name+"/"+sig.String(), func(t *testing.T) {
				dir := t.TempDir()
				require.NoError(t, os.WriteFile(filepath.Join(dir, "site.yml"), []byte(pb.book), 0o644))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "hosts"), []byte("localhost ansible_connection=local\n"), 0o644))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "step.yml"),
					[]byte("- name: step\n  ansible.builtin.command: sleep 0.2\n"), 0o644))
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, os.Args[0], "-i", "hosts", "-e", "dir="+dir, "site.yml")
				cmd.Dir = dir
				cmd.Env = []string{"CFZT_TEST_CLI=1", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir,
					"ANSIBLE_NOCOLOR=1", "LC_ALL=C.UTF-8", "TZ=UTC", "ANSIBLE_ASYNC_DIR=" + filepath.Join(dir, "async")}
				var out, errOut syncBuffer
				cmd.Stdout, cmd.Stderr = &out, &errOut
				require.NoError(t, cmd.Start())
				waitFor(t, time.Minute, pb.banner, func() bool { return strings.Contains(out.String(), pb.banner) })
				if name == "command" {
					waitFor(t, time.Minute, "the command's pid", func() bool { b, _ := os.ReadFile(filepath.Join(dir, "pid")); return len(b) > 0 })
				}
				shown := out.String()
				require.NoError(t, cmd.Process.Signal(sig))
				err := cmd.Wait()
				var ee *exec.ExitError
				require.True(t, errors.As(err, &ee), "the run must end with a failure status, got %v", err)
				ws := ee.Sys().(syscall.WaitStatus)
				if sig == syscall.SIGINT {
					assert.Equal(t, 99, ee.ExitCode())
					assert.Equal(t, "[ERROR]: User interrupted execution\n", errOut.String())
				} else {
					assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGTERM, "SIGTERM must end the process by that signal: %v", ws)
					assert.Empty(t, errOut.String())
				}
				// Nothing after the banner but the rest of its line (and,
				// for a loop, the iterations already shown).
				rest := strings.TrimPrefix(out.String(), shown[:strings.Index(shown, pb.banner)])
				assert.NotContains(t, rest, "fatal:")
				assert.NotContains(t, rest, "PLAY RECAP")
				assert.NotContains(t, rest, "TASK [later]")
				assert.NoFileExists(t, filepath.Join(dir, "later"))
				if name == "command" {
					b, _ := os.ReadFile(filepath.Join(dir, "pid"))
					pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
					require.NoError(t, err)
					waitFor(t, time.Minute, "the command to be killed", func() bool {
						st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
						return err != nil || strings.Contains(string(st), ") Z ")
					})
					waitFor(t, time.Minute, "the async job to finish", func() bool {
						_, err := os.Stat(filepath.Join(dir, "async-done"))
						return err == nil
					})
				}
			})
		}
	}
}
