package run_test

import (
	"strings"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// Attack: a host that asks for another connection or another machine
// must never have its tasks run on the controller in its place.
func TestConnectionOtherThanLocalIsUnreachable(t *testing.T) {
	f := newFixture(t, map[string]string{
		"hosts.ini": "local1 ansible_connection=local\n" +
			"ssh1 ansible_connection=ssh ansible_host=127.0.0.1 ansible_port=1\n" +
			"far1 ansible_host=192.0.2.1\n" +
			"named.example\n" +
			"here ansible_host=127.0.0.1\n" +
			"forced ansible_host=192.0.2.1 ansible_connection=local\n",
		"playbook.yml": `
- hosts: all
  gather_facts: false
  tasks:
    - name: controller only
      debug: msg=hi
    - name: probe
      cfzt.test.count:
    - name: after
      cfzt.test.count:
- hosts: all
  gather_facts: false
  tasks:
    - name: next play
      cfzt.test.count:
`,
	})
	f.inv = []string{"hosts.ini"}
	rec := f.run(t)
	require.Equal(t, 4, f.rc, f.out.String())
	for _, h := range []string{"ssh1", "far1", "named.example"} {
		require.Equal(t, run.StatusOK, rec.result(t, "controller only", h).Status, h)
		ev := rec.result(t, "probe", h)
		require.Equal(t, run.StatusUnreachable, ev.Status, h)
		require.Equal(t, true, ev.Result.Default("unreachable", false))
		require.Zero(t, f.mods.calls[h], "%s ran a module on the controller", h)
		for _, later := range []string{"after", "next play"} {
			for _, ev := range rec.events {
				require.False(t, ev.Name == later && ev.Host == h, "%s ran %q after it was unreachable", h, later)
			}
		}
		st := rec.stat(t, h)
		require.Equal(t, 1, st.Unreachable, h)
		require.Equal(t, 0, st.Failed, h)
	}
	msg := func(h string) string { return value.Str(rec.result(t, "probe", h).Result.Default("msg", "")) }
	require.Contains(t, msg("ssh1"), "runs tasks only through the local connection, but ansible_connection asks host 'ssh1' for the 'ssh' connection")
	require.Contains(t, msg("far1"), "ansible_host sends host 'far1' to '192.0.2.1'")
	require.Contains(t, msg("named.example"), "host 'named.example' is not this machine")
	for _, h := range []string{"local1", "here", "forced"} {
		require.Equal(t, 3, f.mods.calls[h], h)
	}
	out := f.out.String()
	require.Contains(t, out, "fatal: [ssh1]: UNREACHABLE! => {\"changed\": false, \"msg\": \"Task failed: cfzt-runner runs tasks only through the local connection")
	require.Contains(t, out, "\"unreachable\": true}")
	require.Regexp(t, `ssh1\s+: ok=1\s+changed=0\s+unreachable=1\s+failed=0`, out)
}

func TestConnectionKeywordAndCommandLine(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - name: task keyword
      cfzt.test.count:
      connection: ssh
- hosts: localhost
  gather_facts: false
  connection: local
  tasks:
    - name: local keyword wins over -c
      cfzt.test.count:
`})
	f.opts.Connection = "paramiko"
	rec := f.run(t)
	require.Equal(t, 4, f.rc)
	ev := rec.result(t, "task keyword", "localhost")
	require.Equal(t, run.StatusUnreachable, ev.Status)
	require.Contains(t, value.Str(ev.Result.Default("msg", "")), "the connection keyword asks for the 'ssh' connection")
	require.Zero(t, f.mods.calls["localhost"])
	require.False(t, rec.ran("local keyword wins over -c"), "an unreachable host stays out of later plays")

	f = newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - name: from -c
      cfzt.test.count:
`})
	f.opts.Connection = "ssh"
	rec = f.run(t)
	require.Equal(t, 4, f.rc)
	require.Contains(t, value.Str(rec.result(t, "from -c", "localhost").Result.Default("msg", "")), "-c/--connection asks for the 'ssh' connection")
	require.Zero(t, f.mods.calls["localhost"])
}

// The variable wins over the keyword, as in ansible-core; a loop stops at
// the first item; the host runs no rescue or always.
func TestConnectionVariableLoopAndBlocks(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  connection: local
  vars:
    ansible_connection: docker
  tasks:
    - block:
        - name: looped
          cfzt.test.count:
          loop: [1, 2, 3]
      rescue:
        - name: rescue
          debug: msg=rescued
      always:
        - name: always
          debug: msg=always
`})
	rec := f.run(t)
	require.Equal(t, 4, f.rc)
	ev := rec.result(t, "looped", "localhost")
	require.Equal(t, run.StatusUnreachable, ev.Status)
	require.Empty(t, rec.items("looped", "localhost"))
	require.True(t, strings.Contains(value.Str(ev.Result.Default("msg", "")), "'docker' connection"))
	require.False(t, rec.ran("rescue"))
	require.False(t, rec.ran("always"))
	require.Zero(t, f.mods.calls["localhost"])
}

// Delegation asks the delegated host's connection.
func TestConnectionOfDelegatedHost(t *testing.T) {
	f := newFixture(t, map[string]string{
		"hosts.ini": "far ansible_host=192.0.2.7\nlocal1 ansible_connection=local\n",
		"playbook.yml": `
- hosts: local1
  gather_facts: false
  tasks:
    - name: to localhost
      cfzt.test.count:
      delegate_to: localhost
    - name: to far
      cfzt.test.count:
      delegate_to: far
`})
	f.inv = []string{"hosts.ini"}
	rec := f.run(t)
	require.Equal(t, 4, f.rc)
	require.Equal(t, run.StatusOK, rec.result(t, "to localhost", "local1").Status)
	ev := rec.result(t, "to far", "local1")
	require.Equal(t, run.StatusUnreachable, ev.Status)
	require.Contains(t, value.Str(ev.Result.Default("msg", "")), "ansible_host sends host 'far' to '192.0.2.7'")
	require.Equal(t, 1, f.mods.calls["local1"])
}

// ignore_unreachable keeps the host in the play, counted ok and ignored,
// as in ansible-core; the module still never runs.
func TestConnectionIgnoreUnreachable(t *testing.T) {
	f := newFixture(t, map[string]string{"playbook.yml": `
- hosts: localhost
  gather_facts: false
  tasks:
    - name: ignored
      cfzt.test.count:
      connection: ssh
      ignore_unreachable: true
    - name: after
      debug: msg=after
`})
	rec := f.run(t)
	require.Equal(t, 0, f.rc, f.out.String())
	ev := rec.result(t, "ignored", "localhost")
	require.Equal(t, run.StatusUnreachable, ev.Status)
	require.True(t, ev.Ignored)
	require.Zero(t, f.mods.calls["localhost"])
	require.Equal(t, run.StatusOK, rec.result(t, "after", "localhost").Status)
	st := rec.stat(t, "localhost")
	require.Equal(t, [3]int{2, 1, 0}, [3]int{st.OK, st.Ignored, st.Unreachable})
	require.Contains(t, f.out.String(), "\"unreachable\": true}\n...ignoring\n")
}
