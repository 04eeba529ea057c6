// Package system holds the controller-side ansible.builtin actions that
// act on the run rather than on a target: add_host and group_by, which
// the executor applies to the in-memory inventory, and
// wait_for_connection.
package system

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Entries registers the actions of this package.
func Entries() []module.Entry {
	ctl := module.ControllerAction
	return []module.Entry{
		{FQCN: "ansible.builtin.add_host", Flags: ctl | module.BypassHostLoop | module.InventoryAction | module.NoAsync | module.Connectionless, Module: module.Func(AddHost)},
		{FQCN: "ansible.builtin.group_by", Flags: ctl | module.InventoryAction | module.NoAsync | module.Connectionless, Module: module.Func(GroupBy)},
		{FQCN: "ansible.builtin.wait_for_connection", Flags: ctl | module.NoAsync, Module: module.Func(WaitForConnection)},
	}
}

// waitDefaults are wait_for_connection's arguments and defaults.
var waitDefaults = []struct {
	name string
	def  int
}{{"connect_timeout", 5}, {"delay", 0}, {"sleep", 1}, {"timeout", 600}}

// WaitForConnection is the ansible.builtin.wait_for_connection action.
// cfzt-runner reaches every host through the local connection, which is
// always up: after `delay` it succeeds at once, reporting the elapsed
// whole seconds. In check mode it is skipped, as in ansible-core.
func WaitForConnection(req *module.Request) (*value.Dict, error) {
	vals := map[string]int{}
	for _, a := range waitDefaults {
		vals[a.name] = a.def
		if v, ok := req.Args.Get(a.name); ok {
			n, err := pyIntArg(v)
			if err != nil {
				return nil, module.ArgError(err.Error(), value.Pos{}, "", nil)
			}
			vals[a.name] = n
		}
	}
	if req.Check {
		return value.DictOf("skipped", true), nil
	}
	if err := onlyArgs(req, "connect_timeout", "delay", "sleep", "timeout"); err != nil {
		return nil, err
	}
	start := time.Now()
	if d := vals["delay"]; d > 0 {
		select {
		case <-time.After(time.Duration(d) * time.Second):
		case <-req.Ctx.Done():
			return nil, req.Ctx.Err()
		}
	}
	return value.DictOf("elapsed", int(time.Since(start).Seconds())), nil
}

// pyIntArg is Python's int() of an action argument.
func pyIntArg(v any) (int, error) {
	switch x := v.(type) {
	case int:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case float64:
		return int(x), nil
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			return 0, fmt.Errorf("invalid literal for int() with base 10: %s", value.Repr(x))
		}
		return n, nil
	}
	return 0, fmt.Errorf("int() argument must be a string, a bytes-like object or a real number, not '%s'", value.TypeName(v))
}
