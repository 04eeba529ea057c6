package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// asyncPlaybook starts two background jobs and ends at once: one that
// writes a marker file after a moment, and one that outlives its limit.
const asyncPlaybook = `- hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: fire and forget
      shell: sleep 1; echo done > marker
      args:
        chdir: "{{ playbook_dir }}"
      async: 30
      poll: 0
      register: job
    - name: outlives its limit
      command: sleep 60
      async: 1
      poll: 0
    - debug:
        msg: "{{ job.ansible_job_id }} {{ job.finished }}"
`

var jobID = regexp.MustCompile(`"msg": "(j\d+\.\d+) False"`)

// readJob decodes a job file; a missing or partly written file is nil.
func readJob(path string) *value.Dict {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	v, err := value.DecodeJSON(data)
	if err != nil {
		return nil
	}
	d, _ := v.(*value.Dict)
	return d
}

// TestAsyncJobSurvivesTheRun checks that a `poll: 0` task's job is a
// process of its own: the run that started it has exited when the job
// finishes its command and writes its result to the job file under
// ~/.ansible_async; a job that outlives its `async` limit is killed and
// its job file reads "Timeout exceeded", as async_wrapper's does.
func TestAsyncJobSurvivesTheRun(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "playbook.yml"), []byte(asyncPlaybook), 0o644))
	res := runCLIProcess(t, dir, home, "-i", "localhost,", "playbook.yml")
	require.Equal(t, 0, res.rc, res.stdout+res.stderr)
	m := jobID.FindStringSubmatch(res.stdout)
	require.NotNil(t, m, res.stdout)
	jobFile := filepath.Join(home, ".ansible_async", m[1])

	started := readJob(jobFile)
	require.NotNil(t, started, "the job file exists when the run has exited")
	require.Equal(t, false, started.Default("finished", nil), "the job still runs after the run exited")

	require.Eventually(t, func() bool {
		d := readJob(jobFile)
		return d != nil && !d.Has("started")
	}, 20*time.Second, 100*time.Millisecond, "the job writes its result")
	done := readJob(jobFile)
	require.Equal(t, 0, done.Default("rc", nil))
	require.Equal(t, true, done.Default("changed", nil))
	marker, err := os.ReadFile(filepath.Join(dir, "marker"))
	require.NoError(t, err)
	require.Equal(t, "done\n", string(marker))

	entries, err := os.ReadDir(filepath.Join(home, ".ansible_async"))
	require.NoError(t, err)
	var timedOut *value.Dict
	require.Eventually(t, func() bool {
		for _, e := range entries {
			if e.Name() == m[1] {
				continue
			}
			if d := readJob(filepath.Join(home, ".ansible_async", e.Name())); d != nil && d.Has("msg") {
				timedOut = d
				return true
			}
		}
		return false
	}, 20*time.Second, 100*time.Millisecond, "the job past its limit is killed")
	require.Equal(t, "Timeout exceeded", timedOut.Default("msg", nil))
	require.Equal(t, true, timedOut.Default("failed", nil))
}
