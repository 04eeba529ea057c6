package run_test

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/stretchr/testify/require"
)

// TestObserverSeesEveryResult checks that the observer is told of every
// result the display shows, in the same order: item results, skipped and
// failed ones, and the results of an include that does not load.
func TestObserverSeesEveryResult(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - debug: {msg: "{{ item }}"}
      loop: [a, b]
    - debug: {msg: skipped}
      when: false
    - fail: {msg: boom}
      ignore_errors: true
    - include_tasks: missing.yml
`})
	rec := f.run(t)
	require.NotEmpty(t, rec.events)
	require.Equal(t, rec.events, f.observed)
	statuses := map[run.Status]int{}
	for _, ev := range f.observed {
		statuses[ev.Status]++
	}
	require.Equal(t, map[run.Status]int{run.StatusOK: 3, run.StatusSkipped: 1, run.StatusFailed: 2}, statuses)
}
