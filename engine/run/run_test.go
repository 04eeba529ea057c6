package run_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// TestPrecedenceLadder defines vN at the first N levels of Ansible's
// ladder, so that each must resolve to level N.
func TestPrecedenceLadder(t *testing.T) {
	levels := []string{"role defaults", "inventory", "play vars", "vars_files", "role vars", "block vars",
		"task vars", "include_vars", "set_fact", "role params", "include params", "extra vars"}
	upTo := func(level int, label string) string {
		var b strings.Builder
		for n := level; n <= len(levels); n++ {
			b.WriteString("    v" + value.Str(n) + ": " + label + "\n")
		}
		return b.String()
	}
	inline := func(level int, label string) string {
		var parts []string
		for n := level; n <= len(levels); n++ {
			parts = append(parts, "v"+value.Str(n)+"='"+label+"'")
		}
		return strings.Join(parts, " ")
	}
	var show []string
	for n := 1; n <= len(levels); n++ {
		show = append(show, "v"+value.Str(n))
	}
	f := newFixture(t, map[string]string{
		"hosts.ini":                    "h1 ansible_connection=local " + inline(2, "inventory") + "\n",
		"roles/prec/defaults/main.yml": "\n" + upTo(1, "role defaults"),
		"roles/prec/vars/main.yml":     "\n" + upTo(5, "role vars"),
		"roles/prec/tasks/main.yml": `
- name: include with params
  include_tasks: inc.yml
  vars:
` + strings.ReplaceAll(upTo(11, "include params"), "    v", "    v"),
		"roles/prec/tasks/inc.yml": `
- block:
    - name: show
      debug:
        msg: "{{ [` + strings.Join(show, ", ") + `] }}"
      vars:
` + strings.ReplaceAll(upTo(7, "task vars"), "    v", "        v") + `  vars:
` + upTo(6, "block vars"),
		"vf.yml": upTo(4, "vars_files"),
		"iv.yml": upTo(8, "include_vars"),
		"playbook.yml": `
- hosts: all
  gather_facts: false
  vars:
` + upTo(3, "play vars") + `  vars_files: [vf.yml]
  pre_tasks:
    - include_vars: iv.yml
    - set_fact:
` + strings.ReplaceAll(upTo(9, "set_fact"), "    v", "        v") + `  roles:
    - role: prec
` + strings.ReplaceAll(upTo(10, "role params"), "    v", "      v"),
	})
	f.inv = []string{"hosts.ini"}
	f.opts.ExtraVars = value.DictOf("v12", "extra vars")
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	got := rec.msg(t, "prec : show", "h1").([]any)
	for i, want := range levels {
		require.Equal(t, want, got[i], "v%d", i+1)
	}
}

func TestBlockRescueAlways(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - block:
        - name: boom
          fail: msg=first
        - name: skipped after failure
          debug: msg=never
      rescue:
        - name: rescue
          debug:
            msg: "{{ ansible_failed_task.name }}|{{ ansible_failed_result.msg }}"
      always:
        - name: always
          debug: msg=always
    - name: failed result survives the block
      debug:
        msg: "{{ ansible_failed_result.msg }}"
    - block:
        - fail: msg=again
      rescue:
        - name: rescue fails too
          fail: msg=rescue-broke
      always:
        - name: always after rescue failure
          debug:
            msg: "{{ ansible_failed_result.msg }}"
    - name: not reached
      debug: msg=never
`})
	rec := f.run(t)
	require.Equal(t, 2, f.rc)
	require.False(t, rec.ran("skipped after failure"))
	require.Equal(t, "boom|first", rec.msg(t, "rescue", "localhost"))
	require.Equal(t, "always", rec.msg(t, "always", "localhost"))
	require.Equal(t, "first", rec.msg(t, "failed result survives the block", "localhost"))
	// A failure inside rescue does not replace ansible_failed_result.
	require.Equal(t, "again", rec.msg(t, "always after rescue failure", "localhost"))
	require.False(t, rec.ran("not reached"))
	st := rec.stat(t, "localhost")
	require.Equal(t, 2, st.Rescued)
	require.Equal(t, 1, st.Failed)
	require.Contains(t, f.out.String(), "[ERROR]: Task failed: Action failed: rescue-broke")
}

func TestLoopsAndLoopControl(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - name: extended
      debug:
        msg: "{{ u.n }} {{ i }} {{ ansible_loop.index }}/{{ ansible_loop.length }} {{ ansible_loop.first }} {{ ansible_loop.last }} {{ ansible_loop.previtem.n | default('-') }}"
      loop: [{n: a}, {n: b}, {n: c}]
      loop_control:
        loop_var: u
        index_var: i
        extended: true
        label: "label-{{ u.n }}"
        pause: 0.15
      register: ext
    - name: with_dict
      debug: msg="{{ item.key }}={{ item.value }}"
      with_dict: {x: 1}
    - name: registered loop
      debug:
        msg: "{{ ext.results | map(attribute='msg') | list }} {{ ext.msg }} {{ ext.results[0].i }}"
    - name: conditional items
      debug: msg="{{ item }}"
      loop: [1, 2, 3]
      when: item != 2
      register: cond
    - name: empty loop
      debug: msg=x
      loop: []
      register: empty
`})
	start := time.Now()
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	require.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond, "loop_control.pause")
	items := rec.items("extended", "localhost")
	require.Len(t, items, 3)
	require.Equal(t, "a 0 1/3 True False -", items[0].Result.Default("msg", nil))
	require.Equal(t, "c 2 3/3 False True b", items[2].Result.Default("msg", nil))
	out := f.out.String()
	require.Contains(t, out, "ok: [localhost] => (item=label-b) => {")
	require.Contains(t, out, "ok: [localhost] => (item={'key': 'x', 'value': 1}) => {")
	require.Equal(t, "['a 0 1/3 True False -', 'b 1 2/3 False False a', 'c 2 3/3 False True b'] All items completed 0",
		rec.msg(t, "registered loop", "localhost"))
	require.Contains(t, out, "skipping: [localhost] => (item=2) \n")
	cond := rec.result(t, "conditional items", "localhost")
	require.Equal(t, run.StatusOK, cond.Status)
	empty := rec.result(t, "empty loop", "localhost")
	require.Equal(t, run.StatusSkipped, empty.Status)
	require.Equal(t, "No items in the list", empty.Result.Default("skipped_reason", nil))
}

func TestUntilRetries(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - name: until it counts to three
      count:
      register: c
      until: c.count >= 3
      retries: 5
      delay: 0
    - name: attempts
      debug: msg="{{ c.attempts }} {{ c.count }}"
    - name: never succeeds
      count:
      register: n
      until: false
      retries: 2
      delay: 0
      ignore_errors: true
    - name: exhausted
      debug: msg="{{ n.attempts }} {{ n.failed }}"
`})
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	require.Equal(t, "3 3", rec.msg(t, "attempts", "localhost"))
	// Two retries: three runs, two RETRYING lines, and ansible-core
	// reports attempts = retries when it gives up.
	require.Equal(t, "2 True", rec.msg(t, "exhausted", "localhost"))
	require.Equal(t, 4, rec.retries)
	require.Contains(t, f.out.String(), "FAILED - RETRYING: [localhost]: until it counts to three (5 retries left).")
	require.Contains(t, f.out.String(), "FAILED - RETRYING: [localhost]: never succeeds (1 retries left).")
}

func TestHandlers(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - name: change
      debug: msg=x
      changed_when: true
      notify: [h1, topic]
    - name: change again
      debug: msg=x
      changed_when: true
      notify: h1
    - name: no change
      debug: msg=x
      notify: h2
    - name: flush
      meta: flush_handlers
    - name: after flush
      debug: msg=x
      changed_when: true
      notify: h3
  handlers:
    - name: h1
      debug: msg=h1
    - name: h2
      debug: msg=h2
    - name: listener
      debug: msg=listener
      listen: topic
    - name: h3
      debug: msg=h3
`})
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	order := strings.Join(rec.starts, ",")
	require.Equal(t, "change,change again,no change,flush,h1,listener,after flush,h3", order)
	require.False(t, rec.ran("h2"), "a handler runs only when notified by a change")
	require.Contains(t, f.out.String(), "RUNNING HANDLER [h1]")
}

func TestTagsAndStartAt(t *testing.T) {
	files := map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - {name: a, debug: msg=a, tags: [ta]}
    - {name: b, debug: msg=b, tags: [tb]}
    - {name: always, debug: msg=x, tags: [always]}
    - {name: never, debug: msg=x, tags: [never]}
    - {name: untagged, debug: msg=x}
`}
	cases := []struct {
		opts run.Options
		want string
	}{
		{run.Options{}, "a,b,always,untagged"},
		{run.Options{Tags: []string{"ta"}}, "a,always"},
		{run.Options{SkipTags: []string{"ta"}}, "b,always,untagged"},
		{run.Options{Tags: []string{"never"}}, "always,never"},
		{run.Options{Tags: []string{"untagged"}}, "always,untagged"},
		{run.Options{SkipTags: []string{"always"}}, "a,b,untagged"},
		{run.Options{StartAt: "always"}, "always,untagged"},
	}
	for _, c := range cases {
		f := newFixture(t, files)
		f.opts = c.opts
		rec := f.run(t)
		require.Equal(t, c.want, strings.Join(rec.starts, ","), "%+v", c.opts)
	}
	require.True(t, run.TagsSelected(nil, nil, nil))
	require.False(t, run.TagsSelected([]string{"never"}, nil, nil))
	require.True(t, run.TagsSelected([]string{"x", "always"}, []string{"y"}, nil))
	require.False(t, run.TagsSelected([]string{"x"}, []string{"all"}, []string{"tagged"}))
}

func TestCheckModeAndEnvironment(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  environment:
    CFZT_PROBE: play
    A: play
  tasks:
    - name: plain
      probe:
    - block:
        - name: merged
          probe:
          environment:
            C: "{{ 'task' }}"
          check_mode: true
      environment:
        A: block
        B: block
    - name: mode
      debug: msg="{{ ansible_check_mode }}"
`})
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	require.Equal(t, map[string]string{"CFZT_PROBE": "play", "A": "play"}, f.mods.envs[0])
	require.Equal(t, map[string]string{"CFZT_PROBE": "play", "A": "block", "B": "block", "C": "task"}, f.mods.envs[1])
	require.Equal(t, []bool{false, true}, f.mods.check)
	require.Equal(t, run.StatusOK, rec.result(t, "merged", "localhost").Status)
	require.Equal(t, run.StatusChanged, rec.result(t, "plain", "localhost").Status)
	require.Equal(t, false, rec.msg(t, "mode", "localhost"))

	f = newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - name: probe
      probe: {}
    - name: mode
      debug:
        msg: "{{ ansible_check_mode }}"
    - name: forced off
      probe: {}
      check_mode: false
`})
	f.opts.Check = true
	rec = f.run(t)
	require.Equal(t, []bool{true, false}, f.mods.check)
	require.Equal(t, true, rec.msg(t, "mode", "localhost"))
}

func TestRunOnceAndDelegate(t *testing.T) {
	f := newFixture(t, map[string]string{
		"hosts.ini": "h1 ansible_connection=local\nh2 ansible_connection=local\nh3 ansible_connection=local\n",
		"playbook.yml": `
- hosts: all
  gather_facts: false
  tasks:
    - name: once
      count:
      register: c
      run_once: true
    - name: everyone sees it
      debug: msg="{{ c.count }}"
    - name: delegated
      debug: msg=d
      delegate_to: localhost
`})
	f.inv = []string{"hosts.ini"}
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	require.Equal(t, map[string]int{"h1": 1}, f.mods.calls)
	for _, h := range []string{"h1", "h2", "h3"} {
		require.Equal(t, 1, rec.msg(t, "everyone sees it", h))
	}
	require.Len(t, rec.events[:1], 1)
	require.Equal(t, "h1", rec.events[0].Host)
	require.Equal(t, "localhost", rec.result(t, "delegated", "h2").Delegate)
	require.Contains(t, f.out.String(), "ok: [h2 -> localhost] => {")
}

func TestIncludeRole(t *testing.T) {
	f := newFixture(t, map[string]string{
		"roles/r/defaults/main.yml": "d: default-main\nshared: from-defaults\n",
		"roles/r/defaults/alt.yml":  "d: default-alt\n",
		"roles/r/vars/main.yml":     "v: vars-main\n",
		"roles/r/vars/alt.yml":      "v: vars-alt\npublic_var: exported\n",
		"roles/r/tasks/main.yml":    "- name: main\n  debug: msg=\"main {{ d }} {{ v }} {{ role_name }}\"\n",
		"roles/r/tasks/other.yml":   "- name: other\n  debug: msg=\"other {{ d }} {{ v }} {{ role_path | basename }}\"\n",
		"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - include_role: {name: r}
    - include_role:
        name: r
        tasks_from: other
        vars_from: alt
        defaults_from: alt
    - name: private
      debug: msg="{{ public_var | default('hidden') }}"
    - include_role: {name: r, vars_from: alt, public: true}
    - name: public
      debug: msg="{{ public_var | default('hidden') }}"
`})
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	require.Equal(t, "main default-main vars-main r", rec.events[0].Result.Default("msg", nil))
	require.Equal(t, "other default-alt vars-alt r", rec.msg(t, "r : other", "localhost"))
	require.Equal(t, "hidden", rec.msg(t, "private", "localhost"))
	require.Equal(t, "exported", rec.msg(t, "public", "localhost"))
	require.Contains(t, rec.starts, "include_role : r")
	require.Contains(t, f.out.String(), "included: r for localhost")
}

func TestMetaEndHostEndPlay(t *testing.T) {
	f := newFixture(t, map[string]string{
		"hosts.ini": "h1 ansible_connection=local\nh2 ansible_connection=local\n",
		"playbook.yml": `
- hosts: all
  gather_facts: false
  tasks:
    - meta: end_host
      when: inventory_hostname == 'h1'
    - name: only h2
      debug: msg=x
- hosts: all
  gather_facts: false
  tasks:
    - name: first
      debug: msg=x
    - meta: end_play
    - name: after end_play
      debug: msg=x
- hosts: all
  gather_facts: false
  tasks:
    - name: next play
      debug: msg=x
`})
	f.inv = []string{"hosts.ini"}
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	require.Len(t, rec.items("only h2", "h1"), 0)
	require.Equal(t, run.StatusOK, rec.result(t, "only h2", "h2").Status)
	for _, ev := range rec.events {
		require.False(t, ev.Name == "only h2" && ev.Host == "h1", "h1 ended")
	}
	require.False(t, rec.ran("after end_play"))
	// end_host lasts for its play only.
	require.Equal(t, run.StatusOK, rec.result(t, "first", "h1").Status)
	require.Equal(t, run.StatusOK, rec.result(t, "next play", "h1").Status)
	// end_host's skip on h2 is shown but not counted, as in ansible-core.
	require.Contains(t, f.out.String(), "skipping: [h2]")
	require.Equal(t, 0, rec.stat(t, "h2").Skipped)
}

func TestMagicVariables(t *testing.T) {
	f := newFixture(t, map[string]string{
		"roles/m/tasks/main.yml": "- name: in role\n  debug: msg=\"{{ role_name }} {{ role_path | basename }}\"\n",
		"playbook.yml": `
- name: magic
  hosts: localhost
  gather_facts: false
  vars:
    pv: play
  roles: [m]
  tasks:
    - set_fact: f=fact
    - name: magic vars
      debug:
        msg:
          - "{{ inventory_hostname }}"
          - "{{ playbook_dir | length > 0 }}"
          - "{{ ansible_play_name }}"
          - "{{ ansible_check_mode }}"
          - "{{ ansible_verbosity }}"
          - "{{ hostvars['localhost'].f }}"
          - "{{ hostvars['localhost'].pv | default('no play vars') }}"
          - "{{ vars['pv'] }}"
          - "{{ ansible_play_hosts_all }}"
          - "{{ omit is defined }}"
    - name: failing
      fail: msg=broken
      ignore_errors: true
    - block:
        - fail: msg=inner
      rescue:
        - name: failed vars
          debug: msg="{{ ansible_failed_task.name | default('') }}|{{ ansible_failed_result.msg }}"
`})
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	require.Equal(t, "m m", rec.msg(t, "m : in role", "localhost"))
	require.Equal(t, []any{"localhost", true, "magic", false, 0, "fact", "no play vars", "play", []any{"localhost"}, true},
		rec.msg(t, "magic vars", "localhost"))
	// An unnamed task's ansible_failed_task.name is empty, as in ansible-core.
	require.Equal(t, "|inner", rec.msg(t, "failed vars", "localhost"))
}

func TestNoLogAndExitCodes(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  vars:
    secret: hunter2
  tasks:
    - name: hidden
      debug: msg="{{ secret }}"
      no_log: true
    - name: hidden loop
      debug: msg="{{ item }}"
      loop: "{{ [secret ~ '-item'] }}"
      no_log: true
    - name: fails
      fail: msg=bad
`})
	f.run(t)
	require.Equal(t, 2, f.rc)
	out := f.out.String()
	require.NotContains(t, out, "hunter2")
	require.NotContains(t, out, "hunter2-item")
	require.Contains(t, out, "ok: [localhost] => (item=(censored due to no_log))")
}

func TestGatherFacts(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  tasks:
    - name: facts
      debug:
        msg: "{{ ansible_facts.system }} {{ ansible_system }} {{ ansible_date_time.year | length }} {{ ansible_env.PATH is defined }}"
- hosts: localhost
  gather_facts: false
  tasks:
    - name: no gathering
      debug: msg=x
`})
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	require.Equal(t, []string{"Gathering Facts", "facts", "no gathering"}, rec.starts)
	require.Equal(t, "Linux Linux 4 True", rec.msg(t, "facts", "localhost"))
	require.Contains(t, f.out.String(), "TASK [Gathering Facts] *********************************************************\nok: [localhost]\n")
}

// TestBaseEnvironment: Options.BaseEnv (ansible-operator's exported
// --ansible-roles-path...) is in every module's environment, under the
// task's own `environment`.
func TestBaseEnvironment(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - name: plain
      probe:
    - name: overridden
      probe:
      environment:
        CFZT_PROBE: task
`})
	f.opts.BaseEnv = map[string]string{"CFZT_PROBE": "base", "ANSIBLE_ROLES_PATH": "/opt/r"}
	f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	require.Equal(t, map[string]string{"CFZT_PROBE": "base", "ANSIBLE_ROLES_PATH": "/opt/r"}, f.mods.seen[0])
	require.Equal(t, map[string]string{"CFZT_PROBE": "task", "ANSIBLE_ROLES_PATH": "/opt/r"}, f.mods.seen[1])
	// The base is not the task's `environment` keyword (raw refuses that
	// keyword and would warn on every task of an operator otherwise).
	require.Empty(t, f.mods.envs[0])
	require.Equal(t, map[string]string{"CFZT_PROBE": "task"}, f.mods.envs[1])
	require.Equal(t, f.opts.BaseEnv, f.mods.bases[1])
}
