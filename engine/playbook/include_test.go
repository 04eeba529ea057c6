package playbook

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/stretchr/testify/require"
)

func TestIncludeAndLoopControlChecks(t *testing.T) {
	cases := []struct {
		name, body string
		msg        string
		line, col  int
	}{
		{"include_tasks option", "- hosts: x\n  tasks:\n    - include_tasks: {file: a.yml, flavour: x}\n",
			"Invalid options for include_tasks: flavour", 3, 7},
		{"include_role keyword", "- hosts: x\n  tasks:\n    - include_role: {name: r}\n      notify: h\n",
			"'notify' is not a valid attribute for a IncludeRole", 3, 7},
		{"include_tasks keyword", "- hosts: x\n  tasks:\n    - include_tasks: a.yml\n      become: true\n",
			"'become' is not a valid attribute for a TaskInclude", 3, 7},
		{"apply not a dict", "- hosts: x\n  tasks:\n    - include_tasks: {file: a.yml, apply: [x]}\n",
			"Expected a dict for apply but got <class 'ansible.module_utils._internal._datatag._AnsibleTaggedList'> instead", 3, 7},
		{"apply on import_tasks", "- hosts: x\n  tasks:\n    - ansible.builtin.import_tasks: {file: a.yml, apply: {tags: [x]}}\n",
			"Invalid options for ansible.builtin.import_tasks: apply", 3, 7},
		{"loop_control key", "- hosts: x\n  tasks:\n    - debug: msg=x\n      loop: [1]\n      loop_control:\n        stop_when: true\n",
			"'stop_when' is not a valid attribute for a LoopControl", 6, 9},
		{"loop_control label", "- hosts: x\n  tasks:\n    - debug: msg=x\n      loop: [1]\n      loop_control:\n        label: [a]\n",
			"The field 'label' is supposed to be a string type, however the incoming data structure is a <class 'ansible.module_utils._internal._datatag._AnsibleTaggedList'>", 6, 9},
		{"handler block", "- hosts: x\n  handlers:\n    - block: []\n",
			"Using a block as a handler is not supported.", 3, 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := load(t, map[string]string{"playbook.yml": c.body, "a.yml": "- debug: msg=x\n"})
			requireLoadError(t, err, c.msg, c.line, c.col, 4)
		})
	}
}

// requireLoadError checks that err is a load diagnostic with this message,
// position (in playbook.yml) and exit code.
func requireLoadError(t *testing.T, err error, msg string, line, col, code int) {
	t.Helper()
	var le *diag.Diagnostic
	require.True(t, errors.As(err, &le), "%v", err)
	require.Equal(t, msg, le.Summary)
	require.Equal(t, line, le.Origin.Line, "line")
	require.Equal(t, col, le.Origin.Col, "column")
	require.Equal(t, "playbook.yml", filepath.Base(le.Origin.File))
	require.Equal(t, code, le.Code)
}

func TestEndRoleWhereItCannotRun(t *testing.T) {
	cases := []struct{ name, body, msg, note string }{
		{"outside a role", "- hosts: x\n  tasks:\n    - meta: end_role\n",
			"Cannot execute 'end_role' from outside of a role", "TASK: meta (end_role)"},
		{"in a handler", "- hosts: x\n  handlers:\n    - name: h\n      meta: end_role\n",
			"Cannot execute 'end_role' from a handler", "HANDLER: h"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := load(t, map[string]string{"playbook.yml": c.body})
			var le *diag.Diagnostic
			require.True(t, errors.As(err, &le), "%v", err)
			require.Equal(t, c.msg, le.Summary)
			require.Equal(t, c.note, le.Note)
			require.Equal(t, 4, le.Code)
		})
	}
}

func TestApplyAndNotifyInheritance(t *testing.T) {
	pb, err := load(t, map[string]string{"playbook.yml": `
- hosts: x
  tasks:
    - include_tasks:
        file: a.yml
        apply:
          tags: [deploy]
          when: flag
          colour: blue
    - include_tasks:
        file: a.yml
        apply:
          tags: [deploy]
          when: flag
    - notify: h
      block:
        - debug: msg=x
    - loop: [1, 2]
      debug: msg=x
      loop_control:
        break_when: item == 1
`, "a.yml": "- debug: msg=x\n"})
	require.NoError(t, err)
	tasks := tasksOf(pb)
	require.EqualError(t, tasks[0].ApplyErr, "'colour' is not a valid attribute for a Block ("+tasks[0].File+":9:11)")
	require.False(t, tasks[0].Args.Has("apply"))
	apply := tasks[1].Apply
	require.NotNil(t, apply)
	require.Equal(t, []string{"deploy"}, apply.Tags)
	require.Len(t, apply.When, 1)
	require.Equal(t, []string{"h"}, pb.Plays[0].Tasks[2].(*Block).Notify)
	require.Len(t, tasks[3].BreakWhen, 1)
	require.Equal(t, "item == 1", tasks[3].BreakWhen[0].Expr)
}
