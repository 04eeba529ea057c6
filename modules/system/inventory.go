package system

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// addHostSpecial are add_host's arguments that are not host variables.
var addHostSpecial = map[string]bool{"name": true, "hostname": true, "groupname": true, "groups": true}

// AddHost is the ansible.builtin.add_host action: it describes a host
// to add to the in-memory inventory under the result's add_host key
// (host_name, groups, host_vars); the executor applies it and computes
// `changed` from what the inventory gained.
func AddHost(req *module.Request) (*value.Dict, error) {
	args := req.Args.Copy()
	if raw, ok := args.Get("_raw_params"); ok {
		args.Delete("_raw_params")
		d, isDict := raw.(*value.Dict)
		if !isDict {
			return nil, module.ActionFail(fmt.Sprintf("Invalid raw parameters passed, requires a dictionary/mapping got a  %s", pyType(raw)), nil)
		}
		merged := d.Copy()
		merged.Update(args)
		args = merged
	}
	newName := firstArg(args, "name", "hostname", "host")
	if newName == nil {
		return nil, module.ActionFail("name, host or hostname needs to be provided", nil)
	}
	name, port, ok := parseAddress(value.Str(newName))
	if !ok {
		name, port = value.Str(newName), 0
	}
	if port != 0 {
		args.Set("ansible_ssh_port", port)
	}
	groups, err := addHostGroups(firstArg(args, "groupname", "groups", "group"))
	if err != nil {
		for _, k := range []string{"groupname", "groups", "group"} {
			if args.Has(k) {
				err.Origin = diag.At(req.Host.ArgPos(k))
				break
			}
		}
		return nil, err
	}
	hostVars := value.NewDict(args.Len())
	args.Each(func(k string, v any) bool {
		if !addHostSpecial[k] {
			hostVars.Set(k, v)
		}
		return true
	})
	return value.DictOf("changed", false, "add_host", value.DictOf("host_name", name, "groups", groups, "host_vars", hostVars)), nil
}

// firstArg is args.get(a, args.get(b, ...)): the first of the names that
// is present, even when its value is None.
func firstArg(args *value.Dict, names ...string) any {
	for _, n := range names {
		if v, ok := args.Get(n); ok {
			return v
		}
	}
	return nil
}

// addHostGroups reads groups given as a list or a comma-separated string.
func addHostGroups(v any) ([]any, *diag.Diagnostic) {
	var list []any
	switch x := v.(type) {
	case nil:
		return []any{}, nil
	case string:
		if x == "" {
			return []any{}, nil
		}
		for _, g := range strings.Split(x, ",") {
			list = append(list, g)
		}
	case []any:
		if len(x) == 0 {
			return []any{}, nil
		}
		list = x
	default:
		if !value.Truthy(v) {
			return []any{}, nil
		}
		return nil, module.ActionFail("Groups must be specified as a list.", nil)
	}
	out := []any{}
	for _, g := range list {
		// ansible-core compares before stripping, so " a" and "a" both stay.
		if !containsAny(out, g) {
			out = append(out, strings.TrimSpace(value.Str(g)))
		}
	}
	return out, nil
}

func containsAny(l []any, v any) bool {
	for _, x := range l {
		if value.Equal(x, v) {
			return true
		}
	}
	return false
}

// pyType is Python's repr of a value's type, as "%s" % type(v) shows it.
// A string here is a task's free-form arguments, which come from the
// playbook's YAML: ansible-core 2.19 names its tagged class.
func pyType(v any) string {
	if _, isStr := v.(string); isStr {
		return "<class 'ansible.module_utils._internal._datatag._AnsibleTaggedStr'>"
	}
	return "<class '" + value.TypeName(v) + "'>"
}

var (
	bracketedHostPort = regexp.MustCompile(`^\[(.+)\]:([0-9]+)$`)
	hostPort          = regexp.MustCompile(`^((?:[^:\[\]]|\[[^\]]*\])*):([0-9]+)$`)
	hostnameLabel     = regexp.MustCompile(`^\w[\w-]*$`)
)

// parseAddress is parse_address without ranges: a host name, IPv4 or
// IPv6 address with an optional port (":port", or "[host]:port"). ok is
// false when the host part is none of those.
func parseAddress(addr string) (host string, port int, ok bool) {
	for _, re := range []*regexp.Regexp{bracketedHostPort, hostPort} {
		if m := re.FindStringSubmatch(addr); m != nil {
			addr = m[1]
			port, _ = strconv.Atoi(m[2])
		}
	}
	if strings.Contains(addr, "[") {
		return "", 0, false
	}
	if ip := net.ParseIP(addr); ip != nil {
		return addr, port, true
	}
	for _, label := range strings.Split(addr, ".") {
		if !hostnameLabel.MatchString(label) || strings.HasSuffix(label, "_") || strings.HasSuffix(label, "-") {
			return "", 0, false
		}
	}
	return addr, port, true
}

// GroupBy is the ansible.builtin.group_by action: it names a group (and
// its parents) for the executor to put the host in, under the result's
// add_group and parent_groups keys. Spaces in names become dashes.
func GroupBy(req *module.Request) (*value.Dict, error) {
	if err := onlyArgs(req, "key", "parents"); err != nil {
		return nil, err
	}
	key, ok := req.Args.Get("key")
	if !ok {
		return value.DictOf("failed", true, "msg", "the 'key' param is required when using group_by"), nil
	}
	parents := req.Args.Default("parents", []any{"all"})
	if s, isStr := parents.(string); isStr {
		parents = []any{s}
	}
	var names []any
	if l, isList := parents.([]any); isList {
		for _, p := range l {
			names = append(names, strings.ReplaceAll(value.Str(p), " ", "-"))
		}
	}
	if names == nil {
		names = []any{}
	}
	return value.DictOf("changed", false, "add_group", strings.ReplaceAll(value.Str(key), " ", "-"), "parent_groups", names), nil
}

// onlyArgs is ActionBase's _VALID_ARGS check: any other argument fails
// the action.
func onlyArgs(req *module.Request, valid ...string) error {
	var bad []string
	req.Args.Each(func(k string, _ any) bool {
		if !containsString(valid, k) {
			bad = append(bad, k)
		}
		return true
	})
	if len(bad) > 0 {
		return module.ActionFail(fmt.Sprintf("Invalid options for %s: %s", req.Action, strings.Join(bad, ",")), nil)
	}
	return nil
}

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
