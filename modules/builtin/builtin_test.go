package builtin

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// warning is one warning a test request collected.
type warning struct {
	msg string
	pos value.Pos
}

// newReq builds a request over vars with the real template engine; every
// argument is written at p.yml:5:14. Warnings go to warns when the test
// reads them.
func newReq(args, vars *value.Dict, warns *[]warning) *module.Request {
	h := &recHost{Host: moduletest.NewHost(vars), warns: warns}
	h.Positions = map[string]value.Pos{}
	args.Each(func(k string, _ any) bool {
		h.Positions[k] = value.Pos{File: "p.yml", Line: 5, Col: 14}
		return true
	})
	return &module.Request{Ctx: h.ctx(), Args: args, Host: h}
}

// recHost records warnings with their positions, and can replace Cond.
type recHost struct {
	*moduletest.Host
	warns *[]warning
	cond  func(c any, pos value.Pos) (bool, error)
}

func (h *recHost) ctx() context.Context { return context.Background() }

func (h *recHost) Warn(msg string, pos value.Pos) { *h.warns = append(*h.warns, warning{msg, pos}) }

func (h *recHost) Cond(c any, pos value.Pos) (bool, error) {
	if h.cond != nil {
		return h.cond(c, pos)
	}
	return h.Host.Cond(c, pos)
}

func actionFail(t *testing.T, err error) string {
	t.Helper()
	var af *diag.Diagnostic
	require.True(t, errors.As(err, &af) && af.AsResult, "want an ActionFail, got %v", err)
	return af.Summary
}

func TestDebugValidatesArguments(t *testing.T) {
	var w []warning
	_, err := debugModule(newReq(value.DictOf("msg", "a", "var", "b"), value.NewDict(0), &w))
	require.Equal(t, "parameters are mutually exclusive: msg|var", actionFail(t, err))

	// The plugin is named as ansible-core's loader names it: its Python
	// module for an ansible.builtin FQCN, its short name otherwise.
	for _, tc := range []struct{ action, name string }{
		{"ansible.builtin.debug", "ansible_collections.ansible.builtin.plugins.action.debug"},
		{"debug", "debug"},
		{"ansible.legacy.debug", "debug"},
	} {
		req := newReq(value.DictOf("msg", "x", "bogus", 1), value.NewDict(0), &w)
		req.Name, req.Action = "debug", tc.action
		_, err = debugModule(req)
		require.Equal(t, "Unsupported parameters for ("+tc.name+") module: bogus. Supported parameters include: msg, var, verbosity.", actionFail(t, err), tc.action)
	}

	// A rendered var that is not a string is refused, without conversion.
	_, err = debugModule(newReq(value.DictOf("var", value.DictOf("b", []any{10, 20})), value.NewDict(0), &w))
	require.Equal(t, "argument 'var' is of type dict and we were unable to convert to _check_type_str_no_conversion: '{'b': [10, 20]}' is not a string and conversion is not allowed", actionFail(t, err))

	_, err = debugModule(newReq(value.DictOf("msg", "x", "verbosity", "lots"), value.NewDict(0), &w))
	require.Contains(t, actionFail(t, err), "argument 'verbosity' is of type str and we were unable to convert to int")
}

func TestDebugMsgDefaultsAndNone(t *testing.T) {
	var w []warning
	res, err := debugModule(newReq(value.NewDict(0), value.NewDict(0), &w))
	require.NoError(t, err)
	require.Equal(t, "Hello world!", res.Default("msg", nil))
	// An explicit None is kept, not replaced by the default.
	res, err = debugModule(newReq(value.DictOf("msg", nil), value.NewDict(0), &w))
	require.NoError(t, err)
	v, ok := res.Get("msg")
	require.True(t, ok)
	require.Nil(t, v)
	require.Equal(t, true, res.Default("_ansible_verbose_always", nil))
	// verbosity above the run's skips.
	res, err = debugModule(newReq(value.DictOf("msg", "x", "verbosity", 2), value.NewDict(0), &w))
	require.NoError(t, err)
	require.Equal(t, true, res.Default("skipped", nil))
}

func TestDebugVarUsesMarkers(t *testing.T) {
	var w []warning
	vars := value.DictOf("d", value.DictOf("a", 1))
	res, err := debugModule(newReq(value.DictOf("var", "ghost"), vars, &w))
	require.NoError(t, err)
	require.Equal(t, "<< error 1 - 'ghost' is undefined >>", res.Default("ghost", nil))
	require.Len(t, w, 1)
	require.Equal(t, "Encountered 1 template error.\nerror 1 - 'ghost' is undefined", w[0].msg)
	require.Equal(t, 14, w[0].pos.Col)

	w = nil
	res, err = debugModule(newReq(value.DictOf("var", "d.a"), vars, &w))
	require.NoError(t, err)
	require.Equal(t, 1, res.Default("d.a", nil))
	require.Empty(t, w)

	// Errors other than undefined values fail at the argument.
	_, err = debugModule(newReq(value.DictOf("var", "1 / 0"), vars, &w))
	var pe *diag.Diagnostic
	require.True(t, errors.As(err, &pe), "%v", err)
	require.Equal(t, "Error while resolving `var` expression.", pe.Summary)
	require.Equal(t, 5, pe.Origin.Line)
}

func TestSetFactKeepsStrings(t *testing.T) {
	var w []warning
	res, err := setFactModule(newReq(value.DictOf("y", "yes", "t", "true", "n", "no", "i", "1", "b", true, "cacheable", "yes"), value.NewDict(0), &w))
	require.NoError(t, err)
	facts := res.Default("ansible_facts", nil).(*value.Dict)
	require.Equal(t, []string{"y", "t", "n", "i", "b"}, facts.Keys())
	require.Equal(t, "yes", facts.Default("y", nil))
	require.Equal(t, "true", facts.Default("t", nil))
	require.Equal(t, "no", facts.Default("n", nil))
	require.Equal(t, "1", facts.Default("i", nil))
	require.Equal(t, true, facts.Default("b", nil))
	require.Equal(t, true, res.Default("_ansible_facts_cacheable", nil))
}

func TestSetFactTemplatedKey(t *testing.T) {
	var w []warning
	res, err := setFactModule(newReq(value.DictOf("{{ p }}_x", 1), value.DictOf("p", "pre"), &w))
	require.NoError(t, err)
	require.Equal(t, 1, res.Default("ansible_facts", nil).(*value.Dict).Default("pre_x", nil))
}

func TestSetFactErrors(t *testing.T) {
	var w []warning
	_, err := setFactModule(newReq(value.NewDict(0), value.NewDict(0), &w))
	require.Equal(t, "No key/value pairs provided, at least one is required for this action to succeed", actionFail(t, err))
	_, err = setFactModule(newReq(value.DictOf("cacheable", true), value.NewDict(0), &w))
	require.Equal(t, "No key/value pairs provided, at least one is required for this action to succeed", actionFail(t, err))

	for name, want := range map[string]string{"bad name": "Invalid variable name 'bad name'.", "1x": "Invalid variable name '1x'.",
		"None": "Invalid variable name 'None'.", "é": "Invalid variable name 'é'."} {
		req := newReq(value.DictOf(name, 1), value.NewDict(0), &w)
		req.Host.(*recHost).Positions[name] = value.Pos{File: "p.yml", Line: 8, Col: 9}
		_, err := setFactModule(req)
		var pe *diag.Diagnostic
		require.True(t, errors.As(err, &pe), "%s: %v", name, err)
		require.Equal(t, want, pe.Summary)
		require.Equal(t, value.Pos{File: "p.yml", Line: 8, Col: 9}, *pe.Origin)
		require.Equal(t, varNameHelp, pe.Help)
	}
	// Python keywords other than Jinja's are valid names.
	_, err = setFactModule(newReq(value.DictOf("class", 1, "_x9", 2), value.NewDict(0), &w))
	require.NoError(t, err)
}

func TestAssertResults(t *testing.T) {
	var w []warning
	vars := value.DictOf("n", 5)
	res, err := assertModule(newReq(value.DictOf("that", []any{"n > 1", "n > 100"}, "fail_msg", "too small"), vars, &w))
	require.NoError(t, err)
	// A failure is shown in full too (_ansible_verbose_always).
	require.Equal(t, true, res.Default("_ansible_verbose_always", nil))
	require.Equal(t, true, res.Default("failed", nil))
	require.Equal(t, "n > 100", res.Default("assertion", nil))
	require.Equal(t, false, res.Default("evaluated_to", nil))
	require.Equal(t, "too small", res.Default("msg", nil))

	res, err = assertModule(newReq(value.DictOf("that", "n == 5", "quiet", true, "msg", "unused"), vars, &w))
	require.NoError(t, err)
	require.False(t, res.Has("_ansible_verbose_always"))
	require.Equal(t, "All assertions passed", res.Default("msg", nil))

	res, err = assertModule(newReq(value.DictOf("that", false, "msg", []any{"a", "b"}), vars, &w))
	require.NoError(t, err)
	require.Equal(t, []any{"a", "b"}, res.Default("msg", nil))

	_, err = assertModule(newReq(value.DictOf("fail_msg", "x"), vars, &w))
	require.Equal(t, "missing required arguments: that", actionFail(t, err))
	_, err = assertModule(newReq(value.DictOf("that", "true", "fail_msg", 3), vars, &w))
	require.Contains(t, actionFail(t, err), "a string or list of strings is required")
}

// assert evaluates through the executor's conditional hook, which applies
// 2.19's strict typing at the position of `that`.
func TestAssertUsesConditionalHook(t *testing.T) {
	var w []warning
	req := newReq(value.DictOf("that", "items"), value.DictOf("items", []any{1}), &w)
	var gotPos value.Pos
	req.Host.(*recHost).cond = func(c any, pos value.Pos) (bool, error) {
		gotPos = pos
		return false, errors.New("Conditionals must have a boolean result.")
	}
	_, err := assertModule(req)
	require.EqualError(t, err, "Conditionals must have a boolean result.")
	require.Equal(t, 5, gotPos.Line)
}

func TestPauseMinimumAndUnits(t *testing.T) {
	var w []warning
	req := newReq(value.DictOf("minutes", 0), value.NewDict(0), &w)
	start := time.Now()
	res, err := pauseModule(req)
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(start), time.Second)
	require.Equal(t, "Pausing for 1 seconds\n", req.Host.(*recHost).Out.String())
	require.Equal(t, "Paused for 0.02 minutes", res.Default("stdout", nil))

	_, err = pauseModule(newReq(value.DictOf("minutes", 1, "seconds", 1), value.NewDict(0), &w))
	require.Equal(t, "parameters are mutually exclusive: minutes|seconds", actionFail(t, err))
	_, err = pauseModule(newReq(value.DictOf("seconds", "1.5"), value.NewDict(0), &w))
	require.Equal(t, "argument 'seconds' is of type str and we were unable to convert to int: invalid literal for int() with base 10: '1.5'", actionFail(t, err))

	// Nothing can answer a prompt: warn and go on.
	req = newReq(value.NewDict(0), value.NewDict(0), &w)
	_, err = pauseModule(req)
	require.NoError(t, err)
	require.Equal(t, "Not waiting for response to prompt as stdin is not interactive", w[len(w)-1].msg)
}
