package run

import (
	"fmt"
	"os"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// cfzt-runner has one connection: the local one. A task that ansible-core
// would run through another connection (ssh, winrm, docker, ...) or on
// another machine is never run on the controller in its place: the host
// is UNREACHABLE for it, with a message naming the setting that asked for
// more (see README, deliberate differences).

// connectionlessTask reports a task that never uses the host's
// connection: an executor action or a controller-only action plugin
// (module.Connectionless), which run on the controller under ansible-core
// too, so a host cfzt-runner cannot reach still runs them. Includes,
// include_vars and meta are the executor's own.
func connectionlessTask(tr *taskRun) bool {
	return tr.t.Info.Kind != module.KindModule || tr.t.Info.Flags&module.Connectionless != 0
}

// localAddresses are the names of the controller that need no connection
// (ansible-core's C.LOCALHOST); the machine's own host name is one too.
var localAddresses = map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}

// isLocalAddress reports whether addr names this machine.
func isLocalAddress(addr string) bool {
	if localAddresses[addr] {
		return true
	}
	if h, err := os.Hostname(); err == nil && h != "" && strings.EqualFold(addr, h) {
		return true
	}
	return false
}

// unreachableError is a host cfzt-runner cannot run a task on.
type unreachableError struct{ msg string }

func (e *unreachableError) Error() string { return e.msg }

// connectionProblem returns why the task cannot run on its host (or the
// host it is delegated to) through the local connection, or "" when it
// can. As in ansible-core, the ansible_connection variable wins over the
// connection keyword (task, block, play), which wins over -c; with none of
// them the host must be this machine (ansible_host, else its name).
func (tr *taskRun) connectionProblem(sc *scope) string {
	if connectionlessTask(tr) {
		return ""
	}
	host := tr.host.name
	lookup := func(name string) (any, bool) {
		v, _, ok := sc.Lookup(name)
		if !ok {
			return nil, false
		}
		return tr.renderScalar(v, sc), true
	}
	if tr.delegate != "" && tr.delegate != host {
		host = tr.delegate
		lookup = func(name string) (any, bool) { return tr.delegatedVar(host, name, sc) }
	}
	if c, ok := lookup("ansible_connection"); ok && c != nil {
		if conn := value.Str(c); conn != "local" {
			return fmt.Sprintf("cfzt-runner runs tasks only through the local connection, but ansible_connection asks host '%s' for the '%s' connection.", host, conn)
		}
		return ""
	}
	if kw := tr.f.keyword(tr.t, "connection", func(k *playbook.Keywords) any { return k.Connection }); kw != nil {
		if conn := value.Str(tr.renderScalar(kw, sc)); conn != "local" {
			return fmt.Sprintf("cfzt-runner runs tasks only through the local connection, but the connection keyword asks for the '%s' connection.", conn)
		}
		return ""
	}
	if conn := tr.r.Opts.Connection; conn != "" {
		if conn != "local" {
			return fmt.Sprintf("cfzt-runner runs tasks only through the local connection, but %s asks for the '%s' connection.", orDefault(tr.r.Opts.ConnectionFrom, "-c/--connection"), conn)
		}
		return ""
	}
	if a, ok := lookup("ansible_host"); ok && a != nil {
		if addr := value.Str(a); !isLocalAddress(addr) {
			return fmt.Sprintf("cfzt-runner runs tasks only through the local connection, on this machine, but ansible_host sends host '%s' to '%s'. Set ansible_connection=local to run its tasks here.", host, addr)
		}
		return ""
	}
	if !isLocalAddress(host) {
		return fmt.Sprintf("cfzt-runner runs tasks only through the local connection, on this machine, but host '%s' is not this machine. Set ansible_connection=local to run its tasks here.", host)
	}
	return ""
}

// delegatedVar returns a variable of the host a task is delegated to, as
// hostvars shows it; a host outside the inventory has none.
func (tr *taskRun) delegatedVar(host, name string, sc *scope) (any, bool) {
	expr := fmt.Sprintf("hostvars[%s][%s]", value.Repr(host), value.Repr(name))
	v, err := tr.r.Engine.Eval(expr, sc, template.Options{})
	if err != nil {
		return nil, false
	}
	return v, true
}

// unreachableResult is the result of a task on a host cfzt-runner cannot
// reach, shaped as ansible-core's for an AnsibleConnectionFailure.
func (tr *taskRun) unreachableResult(msg string) *value.Dict {
	err := diag.Chain("Task failed.", tr.t.Pos, &unreachableError{msg: msg})
	return value.DictOf("unreachable", true, "changed", false, "msg", err.Error(), "exception", &ResultError{err})
}

// isUnreachable reports an unreachable result.
func isUnreachable(res *value.Dict) bool {
	return value.Truthy(res.Default("unreachable", false))
}

// markUnreachable takes a host out of the play and the rest of the
// playbook, counted as unreachable (ansible-core's "dark" hosts), without
// failing it: it runs no rescue or always section either.
func (tr *taskRun) markUnreachable(hs *hostState) {
	hs.unreachable, hs.halted, hs.removed = true, true, true
	tr.r.stat(hs.name).Unreachable++
}
