package playbook

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAliasedTasks: an alias in a task list is the anchored task again,
// and a merge key's pairs come under the mapping's own (golden
// yaml-aliases-tasks holds the run).
func TestAliasedTasks(t *testing.T) {
	pb, err := load(t, map[string]string{"playbook.yml": `
- hosts: localhost
  tasks:
    - &t
      name: one
      ansible.builtin.debug: {msg: x}
    - *t
    - <<: *t
      name: three
`})
	require.NoError(t, err)
	tasks := tasksOf(pb)
	require.Len(t, tasks, 3)
	require.Equal(t, "one", tasks[1].Name)
	require.Equal(t, "three", tasks[2].Name)
	require.Equal(t, tasks[0].Pos, tasks[1].Pos, "an aliased task is where its anchor is")
}

// TestAliasBombRefused: nested aliases that would make the loader build
// 10^9 tasks are refused, naming the file, instead of exhausting memory
// or time; so is a merge-key chain that doubles at each step.
func TestAliasBombRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString("- hosts: localhost\n  vars:\n    l0: &l0 [{debug: {msg: x}}]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "    l%d: &l%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("  tasks:\n    - block: *l9\n")
	_, err := load(t, map[string]string{"playbook.yml": b.String()})
	require.ErrorContains(t, err, "expand to more than")
	require.ErrorContains(t, err, "playbook.yml")

	var m strings.Builder
	m.WriteString("- hosts: localhost\n  vars:\n    m0: &m0 {a: 1, b: 2}\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&m, "    m%d: &m%d {<<: [*m%d, *m%d]}\n", i, i, i-1, i-1)
	}
	m.WriteString("  tasks: []\n")
	_, err = load(t, map[string]string{"playbook.yml": m.String()})
	require.ErrorContains(t, err, "expand to more than")
}
