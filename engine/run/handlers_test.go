package run

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/stretchr/testify/require"
)

func TestSearchHandlers(t *testing.T) {
	role := &playbook.RoleInstance{Role: &playbook.Role{Name: "web"}}
	roleRestart := &playbook.Task{Name: "restart", Role: role, Listen: []string{"config changed"}}
	roleReload := &playbook.Task{Name: "reload", Role: role}
	playRestart := &playbook.Task{Name: "restart"}
	listenerA := &playbook.Task{Name: "a", Listen: []string{"topic"}}
	listenerA2 := &playbook.Task{Name: "a", Listen: []string{"topic"}}
	anon1 := &playbook.Task{Listen: []string{"topic"}}
	anon2 := &playbook.Task{Listen: []string{"topic"}}
	playReload := &playbook.Task{Name: "reload"}
	ps := &playState{handlers: newHandlerState([][]*playbook.Task{{roleRestart, roleReload}, {playRestart, playReload, listenerA, listenerA2, anon1, anon2}})}
	r := &Runner{}
	cases := []struct {
		name string
		want []*playbook.Task
	}{
		{"restart", []*playbook.Task{playRestart}},
		{"web : restart", []*playbook.Task{roleRestart}},
		{"reload", []*playbook.Task{playReload}},
		{"web : reload", []*playbook.Task{roleReload}},
		{"web : config changed", []*playbook.Task{roleRestart}},
		{"config changed", []*playbook.Task{roleRestart}},
		{"topic", []*playbook.Task{listenerA, anon1, anon2}},
		{"nothing", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, r.searchHandlers(ps, c.name))
		})
	}
}

func TestHandlerNotifications(t *testing.T) {
	h := &playbook.Task{Name: "h"}
	st := newHandlerState([][]*playbook.Task{{h}})
	require.False(t, st.anyNotified())
	require.True(t, st.notifyHost(h, "h1"))
	require.False(t, st.notifyHost(h, "h1"), "a host is notified once")
	require.True(t, st.notifyHost(h, "h2"))
	require.True(t, st.anyNotified())
	st.ran(h, []string{"h1"}, false)
	require.False(t, st.notifiedFor(h, "h1"))
	require.True(t, st.notifiedFor(h, "h2"))
	st.ran(h, []string{"h3"}, true)
	require.False(t, st.notifiedFor(h, "h2"), "run_once clears every host")
	require.False(t, st.anyNotified())
}

func TestHandlerName(t *testing.T) {
	role := &playbook.RoleInstance{Role: &playbook.Role{Name: "web"}}
	require.Equal(t, "restart", (&playbook.Task{Name: "restart"}).GetName())
	require.Equal(t, "web : restart", (&playbook.Task{Name: "restart", Role: role}).GetName())
	require.Equal(t, "ansible.builtin.debug", (&playbook.Task{Action: "ansible.builtin.debug"}).GetName())
}
