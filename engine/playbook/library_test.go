package playbook

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestModuleFileResolution(t *testing.T) {
	files := map[string]string{
		"library/mymod":                  "#!/bin/sh\n",
		"library/command.sh":             "#!/bin/sh\n",
		"library/include_tasks":          "#!/bin/sh\n",
		"library/doc.ini":                "[x]\n",
		"library/other.py":               "#!/usr/bin/python\n",
		"library/other.ps1":              "#!powershell\n",
		"roles/r/library/mymod":          "#!/bin/sh\n",
		"roles/r/library/rolemod.py":     "#!/usr/bin/python\n",
		"roles/r/module_utils/helper.py": "",
		"roles/r/tasks/main.yml":         "- rolemod:\n",
		"configured/sub/cfgmod.sh":       "#!/bin/sh\n",
		"collections/ansible_collections/acme/tools/plugins/modules/hammer.sh": "#!/bin/sh\n",
		"playbook.yml": `- hosts: all
  tasks:
    - mymod:
    - ansible.legacy.other:
    - command: echo hi
    - ansible.builtin.command: echo hi
    - include_tasks: x.yml
    - cfgmod:
    - acme.tools.hammer:
    - import_role:
        name: r
- hosts: all
  collections: [acme.tools]
  tasks:
    - hammer:
`,
	}
	dir := writeTree(t, files)
	l := NewLoader(testModules(t), nil)
	l.ModulePath = []string{filepath.Join(dir, "configured")}
	pb, err := l.LoadPlaybook(filepath.Join(dir, "playbook.yml"))
	require.NoError(t, err)
	real := func(p string) string { return realPath(filepath.Join(dir, p)) }
	want := []struct{ action, fqcn, path string }{
		{"mymod", "ansible.legacy.mymod", real("library/mymod")},
		{"ansible.legacy.other", "ansible.legacy.other", real("library/other.py")},
		{"command", "ansible.legacy.command", real("library/command.sh")},
		{"ansible.builtin.command", "ansible.builtin.command", ""},
		{"include_tasks", "ansible.builtin.include_tasks", ""},
		{"cfgmod", "ansible.legacy.cfgmod", filepath.Join(dir, "configured/sub/cfgmod.sh")},
		{"acme.tools.hammer", "acme.tools.hammer", filepath.Join(dir, "collections/ansible_collections/acme/tools/plugins/modules/hammer.sh")},
		{"rolemod", "ansible.legacy.rolemod", real("roles/r/library/rolemod.py")},
	}
	tasks := tasksOf(pb)
	require.Len(t, pb.Plays, 2)
	tasks = append(tasks, pb.Plays[1].Tasks[0].(*Task))
	want = append(want, struct{ action, fqcn, path string }{"hammer", "acme.tools.hammer", filepath.Join(dir, "collections/ansible_collections/acme/tools/plugins/modules/hammer.sh")})
	require.Len(t, tasks, len(want))
	for i, w := range want {
		require.Equal(t, w.action, tasks[i].Action)
		require.Equal(t, w.fqcn, tasks[i].Info.FQCN, w.action)
		require.Equal(t, w.path, tasks[i].Info.Path, w.action)
	}
	require.Equal(t, []string{real("roles/r/module_utils")}, l.ModuleUtilsDirs())
}

func TestModuleFileIgnoredAndUnknown(t *testing.T) {
	for _, name := range []string{"doc", "other2", "mod.ps1"} {
		t.Run(name, func(t *testing.T) {
			_, err := load(t, map[string]string{
				"library/doc.ini":    "[x]\n",
				"library/other2.ps1": "#!powershell\n",
				"playbook.yml":       "- hosts: all\n  tasks:\n    - " + name + ":\n",
			})
			require.ErrorContains(t, err, "couldn't resolve module/action '"+name+"'")
		})
	}
}
