package module

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
)

func keys(d *value.Dict) []string {
	var out []string
	d.Each(func(k string, _ any) bool { out = append(out, k); return true })
	return out
}

// TestFailureShape: fail_json's result is the module's keys, then failed
// and msg, and changed=false last unless the module gave changed, for
// every module package alike.
func TestFailureShape(t *testing.T) {
	res := FailedResult(Fail("boom", "name", "x", "rc", 2))
	if got := fmt.Sprint(keys(res)); got != "[name rc failed msg changed]" {
		t.Fatalf("keys %s", got)
	}
	if res.Default("changed", nil) != false || res.Default("failed", nil) != true || res.Default("msg", nil) != "boom" {
		t.Fatalf("result %s", value.Repr(res))
	}
	res = FailedResult(Fail("boom", "changed", true))
	if got := fmt.Sprint(keys(res)); got != "[changed failed msg]" || res.Default("changed", nil) != true {
		t.Fatalf("a module's own changed is kept: %s", value.Repr(res))
	}
	extra := value.DictOf("status", 404, "msg", "earlier")
	res = FailedResult(FailDict(extra, "not found"))
	if got := fmt.Sprint(keys(res)); got != "[status msg failed changed]" || res.Default("msg", nil) != "not found" {
		t.Fatalf("FailDict: %s", value.Repr(res))
	}
	if extra.Len() != 2 || extra.Default("msg", nil) != "earlier" {
		t.Fatalf("FailDict changed its extra keys: %s", value.Repr(extra))
	}
	res = FailedResult(errors.New("plain"))
	if got := fmt.Sprint(keys(res)); got != "[failed msg changed]" || res.Default("msg", nil) != "plain" {
		t.Fatalf("a plain error: %s", value.Repr(res))
	}
	if err := error(Fail("why")); err.Error() != "why" {
		t.Fatalf("Error() = %q", err.Error())
	}
}
