package system

import (
	"context"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestAddHost(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []any
		want *value.Dict
		err  string
	}{
		{name: "name, groups list and variables", args: []any{"name", "web1", "groups", []any{"a", "b"}, "colour", "red"},
			want: value.DictOf("host_name", "web1", "groups", []any{"a", "b"}, "host_vars", value.DictOf("colour", "red"))},
		{name: "hostname and a comma-separated groupname, compared before stripping", args: []any{"hostname", "web2", "groupname", "a, b, a,b"},
			want: value.DictOf("host_name", "web2", "groups", []any{"a", "b", "a"}, "host_vars", value.NewDict(0))},
		{name: "host is a name but stays a variable", args: []any{"host", "h", "group", "g"},
			want: value.DictOf("host_name", "h", "groups", []any{"g"}, "host_vars", value.DictOf("host", "h", "group", "g"))},
		{name: "port becomes ansible_ssh_port", args: []any{"name", "db.example.com:2222"},
			want: value.DictOf("host_name", "db.example.com", "groups", []any{}, "host_vars", value.DictOf("ansible_ssh_port", 2222))},
		{name: "bracketed IPv6 with a port", args: []any{"name", "[::1]:22"},
			want: value.DictOf("host_name", "::1", "groups", []any{}, "host_vars", value.DictOf("ansible_ssh_port", 22))},
		{name: "an unparsable name is kept whole", args: []any{"name", "bad_name_:80"},
			want: value.DictOf("host_name", "bad_name_:80", "groups", []any{}, "host_vars", value.NewDict(0))},
		{name: "raw params dict", args: []any{"_raw_params", value.DictOf("name", "r1", "x", 1), "x", 2},
			want: value.DictOf("host_name", "r1", "groups", []any{}, "host_vars", value.DictOf("x", 2))},
		{name: "no name", args: []any{"groups", "g"}, err: "name, host or hostname needs to be provided"},
		{name: "groups of another type", args: []any{"name", "h", "groups", 5}, err: "Groups must be specified as a list."},
		{name: "raw params that are not a dict", args: []any{"_raw_params", "h"}, err: "Invalid raw parameters passed, requires a dictionary/mapping got a  <class 'ansible.module_utils._internal._datatag._AnsibleTaggedStr'>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := moduletest.NewHost(nil)
			res, err := AddHost(h.Request("add_host", tc.args...))
			if tc.err != "" {
				var af *diag.Diagnostic
				require.ErrorAs(t, err, &af)
				require.True(t, af.AsResult)
				require.Equal(t, tc.err, af.Summary)
				return
			}
			require.NoError(t, err)
			require.Equal(t, false, res.Default("changed", nil))
			got := res.Default("add_host", nil).(*value.Dict)
			// host_vars keeps every argument but the names and groups.
			require.Equal(t, value.JSON(tc.want.Default("host_vars", nil), value.JSONOptions{SortKeys: true}),
				value.JSON(got.Default("host_vars", nil), value.JSONOptions{SortKeys: true}))
			require.Equal(t, tc.want.Default("host_name", nil), got.Default("host_name", nil))
			require.Equal(t, tc.want.Default("groups", nil), got.Default("groups", nil))
		})
	}
}

func TestParseAddress(t *testing.T) {
	for _, tc := range []struct {
		in   string
		host string
		port int
		ok   bool
	}{
		{"web", "web", 0, true},
		{"web.example.com:8080", "web.example.com", 8080, true},
		{"10.0.0.1:22", "10.0.0.1", 22, true},
		{"fe80::1", "fe80::1", 0, true},
		{"[fe80::1]:2222", "fe80::1", 2222, true},
		{"web[1:3]", "", 0, false},
		{"-bad", "", 0, false},
		{"trailing-", "", 0, false},
	} {
		host, port, ok := parseAddress(tc.in)
		require.Equal(t, tc.ok, ok, tc.in)
		if ok {
			require.Equal(t, tc.host, host, tc.in)
			require.Equal(t, tc.port, port, tc.in)
		}
	}
}

func TestGroupBy(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []any
		want *value.Dict
		err  string
	}{
		{name: "default parent", args: []any{"key", "os Linux"},
			want: value.DictOf("changed", false, "add_group", "os-Linux", "parent_groups", []any{"all"})},
		{name: "parents string", args: []any{"key", "g", "parents", "top level"},
			want: value.DictOf("changed", false, "add_group", "g", "parent_groups", []any{"top-level"})},
		{name: "parents list", args: []any{"key", "g", "parents", []any{"a", "b c"}},
			want: value.DictOf("changed", false, "add_group", "g", "parent_groups", []any{"a", "b-c"})},
		{name: "no key is a failed result", args: []any{"parents", "a"},
			want: value.DictOf("failed", true, "msg", "the 'key' param is required when using group_by")},
		{name: "unknown option", args: []any{"key", "g", "colour", "red"}, err: "Invalid options for group_by: colour"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := moduletest.NewHost(nil)
			res, err := GroupBy(h.Request("group_by", tc.args...))
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, value.JSON(tc.want, value.JSONOptions{SortKeys: true}), value.JSON(res, value.JSONOptions{SortKeys: true}))
		})
	}
}

func TestWaitForConnection(t *testing.T) {
	h := moduletest.NewHost(nil)
	req := h.Request("wait_for_connection", "timeout", 5, "sleep", "1")
	res, err := WaitForConnection(req)
	require.NoError(t, err)
	require.Equal(t, 0, res.Default("elapsed", nil))

	req = h.Request("wait_for_connection", "colour", "blue")
	_, err = WaitForConnection(req)
	require.EqualError(t, err, "Invalid options for wait_for_connection: colour")

	req = h.Request("wait_for_connection", "colour", "blue")
	req.Check = true
	res, err = WaitForConnection(req)
	require.NoError(t, err)
	require.Equal(t, true, res.Default("skipped", nil), "check mode skips before the option check")

	req = h.Request("wait_for_connection", "delay", "soon")
	_, err = WaitForConnection(req)
	require.EqualError(t, err, "invalid literal for int() with base 10: 'soon'")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req = h.Request("wait_for_connection", "delay", 30)
	req.Ctx = ctx
	start := time.Now()
	_, err = WaitForConnection(req)
	require.ErrorIs(t, err, context.Canceled)
	require.Less(t, time.Since(start), 30*time.Second, "a cancelled run does not wait out the delay")
}
