package display

import (
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
)

// pendingBanner is a task banner not shown yet: with display_skipped_hosts
// or display_ok_hosts off, ansible-core's default callback shows a task's
// banner only before the first result it shows.
type pendingBanner struct {
	text string
	task *playbook.Task
}

// flushBanner shows the pending banner, with its task path from -vv.
func (d *Default) flushBanner() {
	p := d.pending
	if p == nil {
		return
	}
	d.pending = nil
	d.banner(p.text)
	if d.Verbose >= 2 && !p.task.Pos.IsZero() {
		d.line(colorDebug, fmt.Sprintf("task path: %s:%d", p.task.Pos.File, p.task.Pos.Line))
	}
}

// hidden reports whether a result is left out: a skipped one with
// display_skipped_hosts off, an unchanged ok one with display_ok_hosts
// off (an include's result still shows its banner, as its "included"
// line follows).
func (d *Default) hidden(ev *run.Event) bool {
	switch ev.Status {
	case run.StatusSkipped:
		return d.HideSkipped
	case run.StatusOK:
		include := ev.Task.Info.Kind == module.KindIncludeTasks || ev.Task.Info.Kind == module.KindIncludeRole
		return d.HideOK && !include
	}
	return false
}
