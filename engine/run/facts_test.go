package run_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestModuleFacts checks where a module's facts land: in ansible_facts
// without their prefix, as variables by their own names below play
// variables, in hostvars, and in the task's own conditions.
func TestModuleFacts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		noInject bool
		want     string
	}{
		{"injected", false, "from play | from module | plain | True | True | False"},
		{"not injected", true, "from play | from module | undefined | False | True | True"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  vars:
    ansible_thing: from play
  tasks:
    - name: module facts
      cfzt.test.facts:
        ansible_thing: from module
        other: plain
      changed_when: other is defined and ansible_facts.ansible_facts.thing == 'from module'
      register: r
    - name: show
      debug:
        msg: "{{ ansible_thing }} | {{ ansible_facts.thing }} | {{ other | default('undefined') }} | {{ r.changed }} | {{ hostvars.localhost.ansible_facts.other is defined }} | {{ hostvars.localhost.ansible_thing is undefined }}"
`})
			f.opts.NoInjectFacts = tc.noInject
			rec := f.run(t)
			require.Equal(t, 0, f.rc, f.out.String())
			require.Equal(t, tc.want, rec.msg(t, "show", "localhost"))
		})
	}
}

// TestGatheringModes checks DEFAULT_GATHERING: smart gathers once per
// host, explicit only when a play asks.
func TestGatheringModes(t *testing.T) {
	playbook := `
- hosts: localhost
  gather_subset: ['!all', '!min']
  tasks:
    - {name: first, debug: {msg: one}}
- hosts: localhost
  gather_subset: ['!all', '!min']
  tasks:
    - {name: second, debug: {msg: two}}
- hosts: localhost
  gather_facts: true
  gather_subset: ['!all', '!min']
  tasks:
    - {name: third, debug: {msg: "{{ ansible_facts.gather_subset }}"}}
`
	for _, tc := range []struct {
		mode string
		want []string
	}{
		{"", []string{"Gathering Facts", "first", "Gathering Facts", "second", "Gathering Facts", "third"}},
		{"smart", []string{"Gathering Facts", "first", "second", "third"}},
		{"explicit", []string{"first", "second", "Gathering Facts", "third"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			f := newFixture(t, map[string]string{"playbook.yml": playbook})
			f.opts.Gathering = tc.mode
			rec := f.run(t)
			require.Equal(t, 0, f.rc, f.out.String())
			require.Equal(t, tc.want, rec.starts)
			require.Equal(t, []any{"!all", "!min"}, rec.msg(t, "third", "localhost"))
		})
	}
}

// TestClearFacts checks that meta: clear_facts empties the fact cache
// but keeps set_fact's variables.
func TestClearFacts(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - cfzt.test.facts: {cached: yes}
    - set_fact: {kept: yes}
    - meta: clear_facts
    - name: after
      debug:
        msg: "{{ cached | default('gone') }} {{ kept }} {{ ansible_facts }}"
`})
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	require.Equal(t, "gone True {}", rec.msg(t, "after", "localhost"))
}

// TestDynamicInventory checks add_host (once, for the first host) and
// group_by (for each host), and plays on what they made.
func TestDynamicInventory(t *testing.T) {
	f := newFixture(t, map[string]string{
		"hosts": "a\nb\n",
		"playbook.yml": `
- hosts: all
  gather_facts: false
  tasks:
    - name: add
      add_host: {name: "new_{{ inventory_hostname }}", groups: made, colour: red}
    - name: group
      group_by: {key: "by_{{ inventory_hostname }}", parents: [grouped]}
- hosts: made
  gather_facts: false
  tasks:
    - {name: on made, debug: {msg: "{{ colour }} {{ group_names }}"}}
- hosts: grouped
  gather_facts: false
  tasks:
    - {name: on grouped, debug: {msg: "{{ group_names }}"}}
`})
	f.inv = []string{"hosts"}
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	require.True(t, rec.result(t, "add", "a").Result.Default("changed", false).(bool))
	require.Equal(t, "red ['made']", rec.msg(t, "on made", "new_a"))
	require.Equal(t, []any{"by_b", "grouped"}, rec.msg(t, "on grouped", "b"))
	for _, ev := range rec.events {
		require.NotEqual(t, "new_b", ev.Host, "add_host runs for the first host only")
		if ev.Name == "add" {
			require.Equal(t, "a", ev.Host)
		}
	}
}

// TestCustomStats checks that set_stats data is shown after the recap
// only with SHOW_CUSTOM_STATS.
func TestCustomStats(t *testing.T) {
	for _, show := range []bool{false, true} {
		f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - set_stats: {data: {n: 1, l: [a]}}
    - set_stats: {data: {n: 2, l: [b]}}
    - set_stats: {data: {mine: yes}, per_host: true}
`})
		f.opts.ShowCustomStats = show
		f.run(t)
		require.Equal(t, 0, f.rc, f.out.String())
		if show {
			require.Contains(t, f.out.String(), "\nCUSTOM STATS: ****")
			require.Contains(t, f.out.String(), "\tlocalhost: { \"mine\": true}\n\n\tRUN: { \"l\": [  \"a\",  \"b\" ], \"n\": 3}\n")
		} else {
			require.NotContains(t, f.out.String(), "CUSTOM STATS")
		}
	}
}
