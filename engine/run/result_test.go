package run

import (
	"errors"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
)

func TestRegisteredStripsInternalKeysAndSharesTheRest(t *testing.T) {
	resources := []any{value.NewDict(0)}
	inner := value.NewDict(2)
	inner.Set("_ansible_no_log", false)
	inner.Set("x", 1)
	res := value.NewDict(5)
	res.Set("changed", false)
	res.Set("resources", resources)
	res.Set("invocation", value.NewDict(0))
	res.Set("_ansible_no_log", false)
	res.Set("nested", []any{"a", inner})
	res.Set("exception", &ResultError{errors.New("boom")})

	got := registered(res)
	if got.Has("invocation") || got.Has("_ansible_no_log") {
		t.Fatalf("internal keys kept: %v", got.Keys())
	}
	r, _ := got.Get("resources")
	if &r.([]any)[0] != &resources[0] {
		t.Fatal("an unchanged subtree was copied instead of shared")
	}
	n, _ := got.Get("nested")
	d := n.([]any)[1].(*value.Dict)
	if d == inner || d.Has("_ansible_no_log") || !d.Has("x") {
		t.Fatalf("nested internal key not stripped from a copy: %v", d.Keys())
	}
	if !inner.Has("_ansible_no_log") {
		t.Fatal("the original result was changed")
	}
	if e, _ := got.Get("exception"); e != tracebackUnavailable {
		t.Fatalf("exception = %v", e)
	}
}
