package run_test

import (
	"os/user"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// Attack: become to another user must never run the module as the
// current user in its place.
func TestBecomeOtherUserIsRefused(t *testing.T) {
	me, err := user.Current()
	require.NoError(t, err)
	other := "nobody"
	if me.Username == other {
		other = "root"
	}
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  connection: local
  tasks:
    - name: become me
      cfzt.test.count:
      become: true
      become_user: "{{ me }}"
    - name: controller action
      debug: msg=fine
      become: true
      become_user: "{{ other }}"
    - name: not become
      cfzt.test.count:
      become_user: "{{ other }}"
    - name: become other
      cfzt.test.count:
      become: true
      become_user: "{{ other }}"
    - name: never
      cfzt.test.count:
`})
	f.opts.ExtraVars = value.DictOf("me", me.Username, "other", other)
	rec := f.run(t)
	require.Equal(t, 2, f.rc)
	require.Equal(t, run.StatusOK, rec.result(t, "become me", "localhost").Status)
	require.Equal(t, run.StatusOK, rec.result(t, "controller action", "localhost").Status)
	ev := rec.result(t, "become other", "localhost")
	require.Equal(t, run.StatusFailed, ev.Status)
	require.Contains(t, value.Str(ev.Result.Default("msg", "")), "cfzt-runner does not implement become: this task asks to become '"+other+"' (the become_user keyword; become set by the become keyword), but cfzt-runner runs every task as the user that runs it ('"+me.Username+"')")
	require.Equal(t, 2, f.mods.calls["localhost"], "only 'become me' and 'not become' ran the module")
	require.False(t, rec.ran("never"))
}

func TestBecomeFromCommandLineAndVariables(t *testing.T) {
	me, err := user.Current()
	require.NoError(t, err)
	if me.Username == "root" {
		// -b alone becomes root: as root that is nothing to do.
		f := newFixture(t, map[string]string{"playbook.yml": "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - name: b\n      cfzt.test.count:\n"})
		f.opts.Become = true
		f.run(t)
		require.Equal(t, 0, f.rc, f.out.String())
		require.Equal(t, 1, f.mods.calls["localhost"])
	}
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - name: cli
      cfzt.test.count:
`})
	f.opts.Become, f.opts.BecomeUser = true, "cfzt-no-such-user"
	rec := f.run(t)
	require.Equal(t, 2, f.rc)
	require.Contains(t, value.Str(rec.result(t, "cli", "localhost").Result.Default("msg", "")), "become 'cfzt-no-such-user' (--become-user; become set by -b/--become)")
	require.Zero(t, f.mods.calls["localhost"])

	// ansible_become/ansible_become_user win over the keywords.
	f = newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  become: false
  become_user: "{{ me }}"
  vars:
    ansible_become: true
    ansible_become_user: cfzt-no-such-user
  tasks:
    - name: vars
      cfzt.test.count:
`})
	f.opts.ExtraVars = value.DictOf("me", me.Username)
	rec = f.run(t)
	require.Equal(t, 2, f.rc)
	require.Contains(t, value.Str(rec.result(t, "vars", "localhost").Result.Default("msg", "")), "(ansible_become_user; become set by ansible_become)")
	require.Zero(t, f.mods.calls["localhost"])
}
