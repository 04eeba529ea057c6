package run

import (
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Status of a task result.
type Status int

// Result statuses, as the default callback distinguishes them.
const (
	StatusOK Status = iota
	StatusChanged
	StatusSkipped
	StatusFailed
)

// Event is one task result for the display.
type Event struct {
	Host    string
	Task    *playbook.Task
	Name    string // rendered task name
	Status  Status
	Result  *value.Dict
	Item    bool // a loop item result
	Ignored bool
	NoLog   bool
}

// Stats are the PLAY RECAP counters of one host.
type Stats struct {
	Host                                                        string
	OK, Changed, Unreachable, Failed, Skipped, Rescued, Ignored int
}

// Display receives the run's events. Implementations format them; the
// executor never writes text itself (except through Display).
type Display interface {
	PlaybookStart(pb *playbook.Playbook)
	PlayStart(name string)
	TaskStart(name string, t *playbook.Task, handler bool)
	Result(ev *Event)
	Included(file string, host string, label any, hasItem bool)
	Retry(host, taskName string, result *value.Dict)
	Error(err error)
	Warning(msg string)
	Recap(stats []*Stats)
	// Verbosity returns the -v level.
	Verbosity() int
}
