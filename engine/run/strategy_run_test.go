package run_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const fourHosts = "h1 ansible_connection=local\nh2 ansible_connection=local\nh3 ansible_connection=local\nh4 ansible_connection=local\n"

// TestPlayFailureAccounting runs small plays through the strategy's
// failure accounting and checks which tasks ran, on which hosts, and
// the exit code.
func TestPlayFailureAccounting(t *testing.T) {
	cases := []struct {
		name        string
		play        string
		rc          int
		ran         map[string][]string // task name -> hosts it ran on
		notRun      []string
		noMoreHosts int // how many NO MORE HOSTS LEFT banners
	}{
		{
			name: "serial batches each run the whole play",
			play: `
- hosts: all
  gather_facts: false
  serial: [1, 3]
  tasks:
    - name: t
      debug: msg="{{ ansible_play_batch | length }}"
`,
			ran: map[string][]string{"t": {"h1", "h2", "h3", "h4"}},
		},
		{
			name: "any_errors_fatal stops every host",
			play: `
- hosts: all
  gather_facts: false
  any_errors_fatal: true
  tasks:
    - name: boom
      fail: msg=x
      when: inventory_hostname == 'h3'
    - name: after
      debug: msg=x
`,
			rc:     2,
			notRun: []string{"after"},
		},
		{
			name: "max_fail_percentage ends the play",
			play: `
- hosts: all
  gather_facts: false
  max_fail_percentage: 25
  tasks:
    - name: one fails
      fail: msg=x
      when: inventory_hostname == 'h1'
    - name: still runs
      debug: msg=x
    - name: two fail
      fail: msg=x
      when: inventory_hostname == 'h2'
    - name: after
      debug: msg=x
`,
			rc:          2,
			ran:         map[string][]string{"still runs": {"h2", "h3", "h4"}},
			notRun:      []string{"after"},
			noMoreHosts: 2,
		},
		{
			name: "clear_host_errors in always brings the host back",
			play: `
- hosts: all
  gather_facts: false
  tasks:
    - block:
        - name: boom
          fail: msg=x
          when: inventory_hostname == 'h1'
      always:
        - meta: clear_host_errors
    - name: after
      debug: msg=x
`,
			ran: map[string][]string{"after": {"h1", "h2", "h3", "h4"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"hosts.ini": fourHosts, "playbook.yml": c.play})
			f.inv = []string{"hosts.ini"}
			rec := f.run(t)
			require.Equal(t, c.rc, f.rc, f.out.String())
			for task, hosts := range c.ran {
				var got []string
				for _, ev := range rec.events {
					if ev.Name == task && !ev.Item {
						got = append(got, ev.Host)
					}
				}
				require.Equal(t, hosts, got, "hosts of %q", task)
			}
			for _, task := range c.notRun {
				require.False(t, rec.ran(task), "%q ran", task)
			}
			require.Equal(t, c.noMoreHosts, strings.Count(f.out.String(), "NO MORE HOSTS LEFT"))
		})
	}
}

// TestHandlersAtEachFlush checks that handlers run once per flush, in
// definition order, for the hosts that notified them.
func TestHandlersAtEachFlush(t *testing.T) {
	f := newFixture(t, map[string]string{"hosts.ini": fourHosts, "playbook.yml": `
- hosts: all
  gather_facts: false
  tasks:
    - name: notify
      debug: msg=x
      changed_when: inventory_hostname in ['h2', 'h4']
      notify: [second, topic]
    - meta: flush_handlers
    - name: between
      debug: msg=x
  handlers:
    - name: first
      debug: msg=x
      listen: topic
    - name: second
      debug: msg=x
`})
	f.inv = []string{"hosts.ini"}
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	var order []string
	for _, ev := range rec.events {
		if ev.Name == "first" || ev.Name == "second" {
			order = append(order, ev.Name+"@"+ev.Host)
		}
	}
	require.Equal(t, []string{"first@h2", "first@h4", "second@h2", "second@h4"}, order)
	require.Less(t, strings.Index(f.out.String(), "RUNNING HANDLER [second]"), strings.Index(f.out.String(), "TASK [between]"))
}
