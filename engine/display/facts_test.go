package display

import (
	"bytes"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// TestCapturedErrorsAsSubEvents checks the rendering of an action's
// captured module failures (gather_facts): a section of their own, each
// failure framed as a sub-event.
func TestCapturedErrorsAsSubEvents(t *testing.T) {
	err := &diag.Diagnostic{Summary: "Task failed.", Cause: &diag.Diagnostic{Summary: "Action failed.",
		Cause: module.CapturedErrors("The following modules failed to execute: m.", []string{"first\nsecond line"})}}
	require.Equal(t, `[ERROR]: Task failed: Action failed: The following modules failed to execute: m.

Task failed: Action failed.

<<< caused by >>>

The following modules failed to execute: m.

+--[ Sub-Event 1 of 1 ]---
| 
| first
| second line
| 
+--[ End Sub-Event ]---

`, (&Default{}).FormatError(err))
}

func TestCustomStats(t *testing.T) {
	var out bytes.Buffer
	d := &Default{Out: &out}
	d.CustomStats([]string{"h1"}, map[string]*value.Dict{"h1": value.DictOf("b", 1, "a", []any{"x"})}, value.DictOf("n", value.DictOf("k", 2)))
	require.Equal(t, "\nCUSTOM STATS: ******************************************************************\n"+
		"\th1: { \"a\": [  \"x\" ], \"b\": 1}\n\n\tRUN: { \"n\": {  \"k\": 2 }}\n\n", out.String())
}
