package playbook

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAliasedTasks: an alias in a task list is the anchored task again,
// an alias as a block's list or a keyword's value is what it points at,
// and a merge key's pairs come under the mapping's own, with the
// duplicate key warning at the mapping's own key (golden
// yaml-aliases-tasks holds the run beside ansible-playbook's).
func TestAliasedTasks(t *testing.T) {
	dir := writeTree(t, map[string]string{"playbook.yml": `
- hosts: localhost
  tasks:
    - &t
      name: one
      ansible.builtin.debug: {msg: x}
    - *t
    - <<: *t
      name: three
    - name: &n four
      block: &list
        - ansible.builtin.debug: {msg: in}
    - name: *n
      block: *list
    - <<: [{name: first wins, when: a}, {name: second, tags: [b]}]
      ansible.builtin.debug: {msg: merged list}
`})
	l := NewLoader(testModules(t), nil)
	pb, err := l.LoadPlaybook(filepath.Join(dir, "playbook.yml"))
	require.NoError(t, err)
	tasks := tasksOf(pb)
	require.Len(t, tasks, 6)
	require.Equal(t, "one", tasks[1].Name)
	require.Equal(t, tasks[0].Pos, tasks[1].Pos, "an aliased task is where its anchor is")
	require.Equal(t, "three", tasks[2].Name)
	require.Equal(t, "ansible.builtin.debug", tasks[2].Action)
	items := pb.Plays[0].Tasks
	require.Equal(t, "four", items[3].(*Block).Name)
	require.Equal(t, "four", items[4].(*Block).Name, "an aliased scalar is its anchor's value")
	require.Len(t, items[4].(*Block).Block, 1)
	last := tasks[5]
	require.Equal(t, "first wins", last.Name)
	require.Len(t, last.When, 1)
	require.Equal(t, []string{"b"}, last.Tags)
	var dup []string
	for _, w := range pb.Warnings {
		if strings.Contains(w.Summary, "duplicate mapping key") {
			dup = append(dup, fmt.Sprintf("%s@%d", w.Summary, w.Origin.Line))
		}
	}
	require.Equal(t, []string{"Found duplicate mapping key 'name'.@9", "Found duplicate mapping key 'name'.@15"}, dup)
}

// TestBadMergeRefused: a merge key whose value is not a mapping (or list
// of mappings) is PyYAML's constructor error, naming the file and line.
func TestBadMergeRefused(t *testing.T) {
	_, err := load(t, map[string]string{"playbook.yml": "- hosts: localhost\n  tasks:\n    - <<: [1]\n      ansible.builtin.debug: {}\n"})
	require.ErrorContains(t, err, "expected a mapping for merging, but found scalar")
	require.ErrorContains(t, err, "playbook.yml:3")
}

// TestAliasBombRefused: nested aliases that would make the loader build
// 10^9 blocks are refused, naming the file, instead of exhausting memory
// or time.
func TestAliasBombRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString("- hosts: localhost\n  vars:\n    l0: &l0 {block: [{ansible.builtin.debug: {msg: x}}]}\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "    l%d: &l%d {block: [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]}\n")
	}
	b.WriteString("  tasks:\n    - *l9\n")
	_, err := load(t, map[string]string{"playbook.yml": b.String()})
	require.ErrorContains(t, err, fmt.Sprintf("more than %d tasks and blocks", maxItems))
	require.ErrorContains(t, err, "playbook.yml:")
}

// TestMergeChainIsLinear: a chain of merges that doubles at each step
// (2^40 pairs if each level copied its merged pairs out) loads at once:
// each anchor is flattened once, with a key given twice kept once, for
// the loader and for its duplicate-key check. Were it not, this test
// would not end.
func TestMergeChainIsLinear(t *testing.T) {
	var m strings.Builder
	m.WriteString("- hosts: localhost\n  vars:\n    m0: &m0 {name: chained, ansible.builtin.debug: {msg: x}}\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&m, "    m%d: &m%d {<<: [*m%d, *m%d]}\n", i, i, i-1, i-1)
	}
	m.WriteString("  tasks:\n    - <<: *m40\n")
	pb, err := load(t, map[string]string{"playbook.yml": m.String()})
	require.NoError(t, err)
	tasks := tasksOf(pb)
	require.Len(t, tasks, 1)
	require.Equal(t, "chained", tasks[0].Name)
}
