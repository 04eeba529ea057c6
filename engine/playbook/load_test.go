package playbook

import (
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// testModules knows a few modules under their short and FQCN names, with
// the kinds the loader acts on, as the module registry does.
func testModules(t *testing.T) Modules {
	noop := module.Func(func(*module.Request) (*value.Dict, error) { return nil, nil })
	e := func(fqcn string, kind module.Kind, flags module.Flags) module.Entry {
		return module.Entry{FQCN: fqcn, Kind: kind, Flags: flags, Module: noop}
	}
	reg, err := module.NewRegistry([]module.Entry{
		e("ansible.builtin.debug", module.KindModule, 0), e("ansible.builtin.set_fact", module.KindModule, module.SetsFacts),
		e("ansible.builtin.command", module.KindModule, module.FreeForm),
		e("ansible.builtin.include_tasks", module.KindIncludeTasks, module.FreeForm),
		e("ansible.builtin.import_tasks", module.KindImportTasks, module.FreeForm),
		e("ansible.builtin.include_role", module.KindIncludeRole, 0), e("ansible.builtin.import_role", module.KindImportRole, 0),
		e("ansible.builtin.meta", module.KindMeta, module.FreeForm),
		e("kubernetes.core.k8s", module.KindModule, 0), e("operator_sdk.util.k8s_status", module.KindModule, 0),
	})
	require.NoError(t, err)
	return reg
}

func load(t *testing.T, files map[string]string) (*Playbook, error) {
	t.Helper()
	dir := writeTree(t, files)
	return NewLoader(testModules(t), nil).LoadPlaybook(filepath.Join(dir, "playbook.yml"))
}

func tasksOf(pb *Playbook) []*Task {
	var out []*Task
	var walk func([]Item)
	walk = func(items []Item) {
		for _, it := range items {
			switch x := it.(type) {
			case *Task:
				out = append(out, x)
			case *Block:
				walk(x.Block)
				walk(x.Rescue)
				walk(x.Always)
			}
		}
	}
	walk(pb.Plays[0].Tasks)
	return out
}

func TestLoaderErrorsWithPositions(t *testing.T) {
	cases := []struct {
		name, body string
		msg        string
		line, col  int
		code       int
	}{
		{"unknown play keyword", "- hosts: x\n  taskz: []\n",
			"'taskz' is not a valid attribute for a Play", 2, 3, 4},
		{"unknown block keyword", "- hosts: x\n  tasks:\n    - block: []\n      rescue_me: []\n",
			"'rescue_me' is not a valid attribute for a Block", 4, 7, 4},
		{"unknown module", "- hosts: x\n  tasks:\n    - name: t\n      debgu: msg=x\n",
			"couldn't resolve module/action 'debgu'. This often indicates a misspelling, missing collection, or incorrect module path.", 3, 7, 4},
		{"two actions", "- hosts: x\n  tasks:\n    - debug: msg=x\n      set_fact: a=1\n",
			"conflicting action statements: debug, set_fact", 3, 7, 4},
		{"no action", "- hosts: x\n  tasks:\n    - name: nothing\n",
			"no module/action detected in task.", 3, 7, 4},
		{"hosts missing", "- name: p\n  tasks: []\n",
			"The field 'hosts' is required but was not set.", 1, 3, 4},
		{"vars not a dict", "- hosts: x\n  vars: [a]\n",
			"Vars in a Play must be specified as a dictionary.", 2, 9, 4},
		{"malformed yaml", "- hosts: x\n  tasks:\n    - debug: msg=x\n     bad: 1\n",
			"YAML parsing failed: While parsing a block collection did not find expected '-' indicator.", 4, 6, 4},
		{"tab", "- hosts: x\n\ttasks: []\n",
			"YAML parsing failed: Tabs are usually invalid in YAML.", 2, 1, 4},
		{"loop_control", "- hosts: x\n  tasks:\n    - debug: msg=x\n      loop_control: 3\n",
			"the `loop_control` value must be specified as a dictionary and cannot be a variable itself (though it can contain variables)", 4, 21, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := load(t, map[string]string{"playbook.yml": c.body})
			requireLoadError(t, err, c.msg, c.line, c.col, c.code)
		})
	}
	_, err := load(t, map[string]string{"playbook.yml": "- hosts: x\n  tasks:\n    - debgu: msg=x\n"})
	require.Equal(t, "Did you mean 'debug'?", err.(*diag.Diagnostic).Help)
}

func TestFreeFormArguments(t *testing.T) {
	kv := ParseKV(`msg="hello world" var=x raw words count=3 tmpl="{{ a | default('b c') }}" nl=a\nb =lead esc\=aped`)
	require.Equal(t, []string{"msg", "var", "count", "tmpl", "nl", "_raw_params"}, kv.Keys())
	require.Equal(t, "hello world", kv.Default("msg", nil))
	require.Equal(t, "3", kv.Default("count", nil), "k=v values stay strings")
	require.Equal(t, "{{ a | default('b c') }}", kv.Default("tmpl", nil))
	require.Equal(t, "a\nb", kv.Default("nl", nil), "escapes are decoded as parse_kv does")
	require.Equal(t, "raw words =lead esc=aped", kv.Default("_raw_params", nil))

	pb, err := load(t, map[string]string{"playbook.yml": `
- hosts: x
  tasks:
    - debug: msg="free form" verbosity=1
    - command: echo a=b
    - meta: flush_handlers
    - include_tasks: other.yml
`, "other.yml": "[]\n"})
	require.NoError(t, err)
	ts := tasksOf(pb)
	require.Equal(t, "free form", ts[0].Args.Default("msg", nil))
	require.Equal(t, "1", ts[0].Args.Default("verbosity", nil))
	require.Equal(t, value.DictOf("_raw_params", "echo a=b"), ts[1].Args, "free-form modules keep the whole string")
	require.Equal(t, "flush_handlers", ts[2].Args.Default("_raw_params", nil))
	require.Equal(t, "other.yml", ts[3].Args.Default("_raw_params", nil))
}

func TestActionKeywordAndFQCN(t *testing.T) {
	pb, err := load(t, map[string]string{"playbook.yml": `
- hosts: x
  tasks:
    - action: debug msg=one
    - action: ansible.builtin.debug
      args:
        msg: two
    - action:
        module: debug
        msg: three
    - local_action: debug msg=four
    - ansible.builtin.debug: {msg: five}
    - ansible.legacy.debug: {msg: six}
    - kubernetes.core.k8s: {state: present}
    - operator_sdk.util.k8s_status: {}
`})
	require.NoError(t, err)
	ts := tasksOf(pb)
	for i, want := range []string{"one", "two", "three", "four", "five", "six"} {
		require.Equal(t, "debug", ts[i].Module, "task %d", i)
		require.Equal(t, want, ts[i].Args.Default("msg", nil), "task %d", i)
	}
	require.Equal(t, "ansible.builtin.debug", ts[1].Action)
	require.Equal(t, "localhost", ts[3].DelegateTo)
	require.Equal(t, "k8s", ts[6].Module)
	require.Equal(t, "kubernetes.core.k8s", ts[6].Action)
	require.Equal(t, "k8s_status", ts[7].Module)
	require.Len(t, pb.Warnings, 1, "a mapping for action is deprecated")
	require.Equal(t, "Using a mapping for `action` is deprecated.", pb.Warnings[0].Summary)
}

func TestImportsAndRoles(t *testing.T) {
	pb, err := load(t, map[string]string{
		"playbook.yml": `
- hosts: x
  roles:
    - role: r
      p: 1
      tags: [rt]
  tasks:
    - import_tasks: sub.yml
      tags: [it]
    - import_role: {name: r, tasks_from: other}
`,
		"sub.yml":                   "- name: from sub\n  debug: msg=s\n",
		"roles/r/tasks/main.yml":    "- name: main\n  debug: msg=m\n",
		"roles/r/tasks/other.yml":   "- name: other\n  debug: msg=o\n",
		"roles/r/defaults/main.yml": "d: 1\n",
		"roles/r/meta/main.yml":     "dependencies: [{role: dep, x: 2}]\n",
		"roles/dep/tasks/main.yml":  "- name: dep\n  debug: msg=d\n",
	})
	require.NoError(t, err)
	play := pb.Plays[0]
	require.Len(t, play.Roles, 1)
	ri := play.Roles[0]
	require.Equal(t, "r", ri.Name())
	require.Equal(t, 1, ri.Params.Default("p", nil))
	require.Equal(t, []string{"rt"}, ri.Ref.Tags)
	require.Equal(t, 1, ri.Defaults.Default("d", nil))
	require.Len(t, ri.Deps, 1)
	require.True(t, ri.Deps[0].Dep)
	require.Equal(t, 2, ri.Deps[0].Params.Default("x", nil))
	names := []string{}
	for _, tk := range tasksOf(pb) {
		names = append(names, tk.Name)
	}
	require.Equal(t, []string{"from sub", "dep", "other"}, names, "imports are expanded at load time, with the role's dependencies")
	require.Equal(t, []string{"it"}, play.Tasks[0].(*Block).Tags)
	require.Contains(t, pb.Messages[0], "statically imported: ")
}

func TestOrigins(t *testing.T) {
	pb, err := load(t, map[string]string{"playbook.yml": "- hosts: x\n  vars:\n    a: 1\n    nested:\n      b: two\n  tasks: []\n"})
	require.NoError(t, err)
	vars := pb.Plays[0].Vars
	pos, ok := OriginOf(vars, "a")
	require.True(t, ok)
	require.Equal(t, 3, pos.Line)
	require.Equal(t, 8, pos.Col)
	kpos, ok := KeyOriginOf(vars, "a")
	require.True(t, ok)
	require.Equal(t, 5, kpos.Col)
	nested, _ := vars.Default("nested", nil).(*value.Dict)
	pos, ok = OriginOf(nested, "b")
	require.True(t, ok)
	require.Equal(t, 5, pos.Line)
}
