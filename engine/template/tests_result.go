package template

import (
	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// resultTests returns ansible-core's tests on task results.
func resultTests() Library {
	return Library{Collection: "ansible.builtin", Tests: map[string]TestFunc{
		"change":      resultTest("changed", testChanged),
		"changed":     resultTest("changed", testChanged),
		"failed":      resultTest("failed", func(d *value.Dict) (bool, error) { return dictTruthy(d, "failed"), nil }),
		"failure":     resultTest("failed", func(d *value.Dict) (bool, error) { return dictTruthy(d, "failed"), nil }),
		"finished":    resultTest("finished", asyncState("finished")),
		"reachable":   resultTest("unreachable", func(d *value.Dict) (bool, error) { return !dictTruthy(d, "unreachable"), nil }),
		"skip":        resultTest("skipped", func(d *value.Dict) (bool, error) { return dictTruthy(d, "skipped"), nil }),
		"skipped":     resultTest("skipped", func(d *value.Dict) (bool, error) { return dictTruthy(d, "skipped"), nil }),
		"started":     resultTest("started", asyncState("started")),
		"succeeded":   resultTest("failed", func(d *value.Dict) (bool, error) { return !dictTruthy(d, "failed"), nil }),
		"success":     resultTest("failed", func(d *value.Dict) (bool, error) { return !dictTruthy(d, "failed"), nil }),
		"successful":  resultTest("failed", func(d *value.Dict) (bool, error) { return !dictTruthy(d, "failed"), nil }),
		"timedout":    resultTest("timedout", testTimedout),
		"unreachable": resultTest("unreachable", func(d *value.Dict) (bool, error) { return dictTruthy(d, "unreachable"), nil }),
	}}
}

func dictTruthy(d *value.Dict, k string) bool {
	v, _ := d.Get(k)
	return value.Truthy(v)
}

func resultTest(name string, f func(*value.Dict) (bool, error)) TestFunc {
	return func(c *Ctx, in any, a *Args) (bool, error) {
		if _, err := py.Sig(name).Bind(a); err != nil {
			return false, err
		}
		d, ok := in.(*value.Dict)
		if !ok {
			return false, Errorf("The '%s' test expects a dictionary", name)
		}
		if name == "finished" && !d.Has("finished") {
			c.warn(diag.Warn("The 'finished' test expects an async task, but a non-async task was tested", nil))
		}
		return f(d)
	}
}

func testTimedout(d *value.Dict) (bool, error) {
	t, _ := d.Get("timedout")
	if !value.Truthy(t) {
		return false, nil
	}
	td, ok := t.(*value.Dict)
	if !ok {
		return false, TypeErrorf("'%s' object has no attribute 'get'", value.TypeName(t))
	}
	return dictTruthy(td, "period"), nil
}

func testChanged(d *value.Dict) (bool, error) {
	if v, ok := d.Get("changed"); ok {
		return value.Truthy(v), nil
	}
	res, ok := d.Get("results")
	list, isList := res.([]any)
	if !ok || !isList {
		return false, nil
	}
	if len(list) == 0 {
		return false, TypeErrorf("list index out of range")
	}
	if _, ok := list[0].(*value.Dict); !ok {
		return false, nil
	}
	for _, r := range list {
		rd, ok := r.(*value.Dict)
		if !ok {
			return false, TypeErrorf("'%s' object has no attribute 'get'", value.TypeName(r))
		}
		if dictTruthy(rd, "changed") {
			return true, nil
		}
	}
	return false, nil
}

func asyncState(key string) func(*value.Dict) (bool, error) {
	return func(d *value.Dict) (bool, error) {
		if v, ok := d.Get(key); ok {
			return value.Truthy(v), nil
		}
		return true, nil
	}
}
