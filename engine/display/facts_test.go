package display

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// TestCapturedErrorsAsSubEvents checks the rendering of an action's
// captured module failures (gather_facts): a section of their own, each
// failure framed as a sub-event.
func TestCapturedErrorsAsSubEvents(t *testing.T) {
	err := &run.ChainError{Msg: "Task failed.", Cause: &run.ChainError{Msg: "Action failed.",
		Cause: &module.CapturedErrors{Msg: "The following modules failed to execute: m.", Events: []string{"first\nsecond line"}}}}
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
