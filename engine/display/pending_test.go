package display

import (
	"bytes"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// TestHiddenResultsDeferBanner checks display_skipped_hosts and
// display_ok_hosts off: hidden results print nothing, not even their
// task's banner, which waits for the first result that is shown.
func TestHiddenResultsDeferBanner(t *testing.T) {
	cases := []struct {
		name                string
		hideSkipped, hideOK bool
		status              run.Status
		want                string
	}{
		{"skipped hidden", true, false, run.StatusSkipped, ""},
		{"ok hidden", false, true, run.StatusOK, ""},
		{"changed shown after the banner", true, true, run.StatusChanged, "\nTASK [t] " + stars(71) + "\nchanged: [h1]\n"},
		{"skipped shown when only ok is hidden", false, true, run.StatusSkipped, "\nTASK [t] " + stars(71) + "\nskipping: [h1]\n"},
	}
	for _, c := range cases {
		var out bytes.Buffer
		d := &Default{Out: &out, HideSkipped: c.hideSkipped, HideOK: c.hideOK}
		d.TaskStart("t", moduleTask(), false)
		d.Result(&run.Event{Host: "h1", Task: moduleTask(), Status: c.status, Result: value.DictOf("changed", c.status == run.StatusChanged)})
		require.Equal(t, c.want, out.String(), c.name)
	}
}

func stars(n int) string { return string(bytes.Repeat([]byte("*"), n)) }
