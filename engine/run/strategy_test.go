package run

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestSerialBatches(t *testing.T) {
	hosts := []string{"h1", "h2", "h3", "h4", "h5", "h6", "h7"}
	cases := []struct {
		name   string
		serial any
		want   [][]string
	}{
		{"no serial is one batch", nil, [][]string{hosts}},
		{"zero is one batch", 0, [][]string{hosts}},
		{"an int", 3, [][]string{{"h1", "h2", "h3"}, {"h4", "h5", "h6"}, {"h7"}}},
		{"a numeric string", "4", [][]string{{"h1", "h2", "h3", "h4"}, {"h5", "h6", "h7"}}},
		{"a percentage rounds down", "30%", [][]string{{"h1", "h2"}, {"h3", "h4"}, {"h5", "h6"}, {"h7"}}},
		{"a tiny percentage is one host", "1%", [][]string{{"h1"}, {"h2"}, {"h3"}, {"h4"}, {"h5"}, {"h6"}, {"h7"}}},
		{"a list repeats its last entry", []any{1, "50%", 2}, [][]string{{"h1"}, {"h2", "h3", "h4"}, {"h5", "h6"}, {"h7"}}},
		{"true is one", true, [][]string{{"h1"}, {"h2"}, {"h3"}, {"h4"}, {"h5"}, {"h6"}, {"h7"}}},
		{"a float is truncated", 2.9, [][]string{{"h1", "h2"}, {"h3", "h4"}, {"h5", "h6"}, {"h7"}}},
		{"an empty list is one batch", []any{}, [][]string{hosts}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := serialBatches(c.serial, hosts)
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func TestSerialBatchesErrors(t *testing.T) {
	cases := []struct {
		serial any
		want   string
	}{
		{"lots", "Unexpected Exception, this is probably a bug: invalid literal for int() with base 10: 'lots'"},
		{"x%", "Unexpected Exception, this is probably a bug: invalid literal for int() with base 10: 'x'"},
		{value.DictOf("size", 2), "Unexpected Exception, this is probably a bug: int() argument must be a string, a bytes-like object or a real number, not '_AnsibleTaggedDict'"},
	}
	for _, c := range cases {
		_, err := serialBatches(c.serial, []string{"h1"})
		require.EqualError(t, err, c.want)
		require.Equal(t, 250, diag.ExitCode(err))
	}
}

func TestOrderHosts(t *testing.T) {
	hosts := []string{"zeta", "alpha", "mike"}
	cases := []struct {
		order any
		want  []string
	}{
		{nil, []string{"zeta", "alpha", "mike"}},
		{"inventory", []string{"zeta", "alpha", "mike"}},
		{"reverse_inventory", []string{"mike", "alpha", "zeta"}},
		{"sorted", []string{"alpha", "mike", "zeta"}},
		{"reverse_sorted", []string{"zeta", "mike", "alpha"}},
	}
	for _, c := range cases {
		got, err := orderHosts(hosts, c.order)
		require.NoError(t, err)
		require.Equal(t, c.want, got, "order %v", c.order)
	}
	shuffled, err := orderHosts(hosts, "shuffle")
	require.NoError(t, err)
	require.ElementsMatch(t, hosts, shuffled)
	_, err = orderHosts(hosts, "random_please")
	require.EqualError(t, err, "Invalid 'order' specified for inventory hosts: random_please")
	require.Equal(t, 5, diag.ExitCode(err))
}

func TestFrameFailureRouting(t *testing.T) {
	withRescue := &playbook.Block{Rescue: []playbook.Item{&playbook.Task{}}}
	withAlways := &playbook.Block{Always: []playbook.Item{&playbook.Task{}}}
	plain := &playbook.Block{}
	root := &frame{play: true}
	cases := []struct {
		name              string
		f                 *frame
		rescued, stillRun bool
	}{
		{"play level", root, false, false},
		{"block with rescue", root.sectionOf(withRescue, sectionBlock, true, false), true, true},
		{"its rescue section", root.sectionOf(withRescue, sectionRescue, true, false), false, false},
		{"block with always", root.sectionOf(withAlways, sectionBlock, false, true), false, true},
		{"rescue before an always", root.sectionOf(withRescue, sectionRescue, true, true), false, true},
		{"always section", root.sectionOf(withAlways, sectionAlways, false, true), false, false},
		{"plain block inside a rescued one", root.sectionOf(withRescue, sectionBlock, true, false).sectionOf(plain, sectionBlock, false, false), true, true},
		{"handler flushed inside a rescued block", &frame{parent: root, handler: true, flushedAt: root.sectionOf(withRescue, sectionBlock, true, false)}, true, true},
		{"handler of the implicit flush", &frame{parent: root, handler: true, flushedAt: root}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.rescued, c.f.rescuable())
			require.Equal(t, c.stillRun, c.f.stillRunning())
		})
	}
}

func TestNotifyIsInherited(t *testing.T) {
	outer := &playbook.Block{Keywords: playbook.Keywords{Notify: []string{"outer"}, Set: map[string]bool{"notify": true}}}
	own := &playbook.Task{Keywords: playbook.Keywords{Notify: []string{"own"}, Set: map[string]bool{"notify": true}}}
	bare := &playbook.Task{}
	f := (&frame{play: true, kw: &playbook.Keywords{}}).child(outer).child(&playbook.Block{})
	require.Equal(t, []string{"outer"}, f.notify(bare))
	require.Equal(t, []string{"own"}, f.notify(own))
	require.Nil(t, (&frame{play: true, kw: &playbook.Keywords{}}).notify(bare))
}
