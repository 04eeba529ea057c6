package run

import (
	"errors"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules"
)

// withHooks gives a module request the task's source positions, the
// executor's conditional evaluation and positioned warnings.
func (tr *taskRun) withHooks(req *modules.Request, sc *scope) *modules.Request {
	t := tr.t
	req.ArgPos = func(key string) value.Pos { return t.ArgPos[key] }
	req.KeyPos = func(key string) value.Pos {
		p, _ := playbook.KeyOriginOf(t.Args, key)
		return p
	}
	req.Cond = func(c any, pos value.Pos) (bool, error) {
		return tr.evalCond(playbook.Cond{Expr: c, Pos: pos}, sc)
	}
	req.WarnAt = func(msg string, pos value.Pos) {
		w := Warning{Msg: msg}
		if !pos.IsZero() {
			p := pos
			w.Origin = &p
		}
		tr.r.warn(w)
	}
	return req
}

// moduleFailure turns a module's error into the task's outcome: an
// ActionFail is a failed result whose msg is the action's own message
// (ansible-core's AnsibleActionFail); a PosError becomes a positioned link
// of the error chain below "Task failed.".
func (tr *taskRun) moduleFailure(err error) (*value.Dict, error) {
	var af *modules.ActionFail
	if errors.As(err, &af) {
		cause := chain("Task failed.", tr.t.Pos, errors.New(af.Msg))
		return value.DictOf("failed", true, "msg", af.Msg, "exception", &ResultError{cause}), nil
	}
	var pe *modules.PosError
	if errors.As(err, &pe) {
		ce := &ChainError{Msg: pe.Msg, Help: pe.Help, Cause: pe.Err}
		if !pe.Pos.IsZero() {
			p := pe.Pos
			ce.Origin = &p
		}
		err = ce
	}
	return nil, chain("Task failed.", tr.t.Pos, err)
}
