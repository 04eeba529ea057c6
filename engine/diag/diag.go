// Package diag is cfzt-runner's one model of what goes wrong: every error,
// warning and deprecation the loader, the template engine, the executor
// and the modules report is a Diagnostic (or, for the template engine's
// typed errors, converts itself into one), so that one writer
// (engine/display) renders ansible-core 2.19's [ERROR], [WARNING] and
// [DEPRECATION WARNING] text from it and one function (ExitCode) maps it
// to ansible-playbook's exit status.
package diag

import (
	"errors"
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Severity says how a diagnostic is shown.
type Severity uint8

// The severities, as ansible-core's display names them.
const (
	// Error is an [ERROR]: the task, play or run failed.
	Error Severity = iota
	// Warning is a [WARNING]: the run goes on.
	Warning
	// Deprecation is a [DEPRECATION WARNING] for a feature ansible-core
	// removes in Version.
	Deprecation
)

// The exit statuses ansible-playbook gives the errors that end a run.
const (
	// ExitFailure is any error without a status of its own.
	ExitFailure = 1
	// ExitParse is AnsibleParserError: malformed YAML, an unknown keyword
	// or module.
	ExitParse = 4
	// ExitOptions is AnsibleOptionsError, such as an unknown play `order`.
	ExitOptions = 5
	// ExitUnexpected is an exception ansible-core does not anticipate
	// ("Unexpected Exception, this is probably a bug").
	ExitUnexpected = 250
)

// Diagnostic is one event of an error chain, or a warning. An error is
// a chain of diagnostics linked by Cause, outermost first, each with the
// message ansible-core words for it; the display prints the chain as one
// section per diagnostic that brings its own origin or help, joined by
// "<<< caused by >>>".
type Diagnostic struct {
	Severity Severity
	// Summary is the message, worded as ansible-core words it (usually a
	// sentence with its final period). An error link with no summary only
	// lends its origin to the next link.
	Summary string
	// Help is advice printed after the message and its origin.
	Help string
	// Origin is where the problem was written: nil when this link has
	// none of its own, a zero Pos for "Origin: <unknown>".
	Origin *value.Pos
	// Note is shown under an unknown origin in place of a source excerpt
	// (the offending value, or the task ansible-core names).
	Note string
	// Detached starts a "caused by" section of its own even without an
	// origin or help: Python raised it while handling the link before.
	Detached bool
	// Cause is the next link of the chain, shown below this one.
	Cause error
	// Wrapped is an error this one was made from whose text Summary
	// already holds: errors.Is and errors.As see it, the display does not.
	Wrapped error
	// Code is the exit status of an error that ends the run (see the Exit
	// constants); zero for an error of one task.
	Code int
	// Events are sub-events shown framed below the summary: the failures
	// an action captured from the modules it ran.
	Events []string
	// Version is the ansible-core version that removes a deprecated
	// feature, and Plugin the plugin it belongs to ("lookup plugin
	// 'first_found'"; empty for ansible-core's own features).
	Version, Plugin string
	// Collection is the collection whose Version removes a deprecated
	// feature (empty when ansible-core does).
	Collection string
	// AsResult marks a module's own failure (ansible-core's
	// AnsibleActionFail): the executor reports it as a failed result whose
	// msg is Summary rather than as a raised error.
	AsResult bool
}

// Error returns the brief message: every link's summary joined with ": ",
// as ansible-core's format_event_brief_message does. An error that ends
// the run (Code set) also names where it was written, as a compiler
// does, since it is often logged as one line without its origin section;
// the message of a task's error is the result's msg, which ansible-core
// words without one.
func (d *Diagnostic) Error() string {
	msg := JoinMessages(Messages(d))
	if d.Code != 0 && d.Origin != nil && !d.Origin.IsZero() {
		msg = fmt.Sprintf("%s (%s)", msg, *d.Origin)
	}
	return msg
}

// Unwrap returns the cause, or else the error this one was made from.
func (d *Diagnostic) Unwrap() error {
	if d.Cause != nil {
		return d.Cause
	}
	return d.Wrapped
}

// At returns the position as an origin: nil for a zero position, which
// means "no origin of its own" rather than "<unknown>".
func At(pos value.Pos) *value.Pos {
	if pos.IsZero() {
		return nil
	}
	return &pos
}

// Unknown is the origin ansible-core prints as "Origin: <unknown>".
func Unknown() *value.Pos { return &value.Pos{} }

// Chain returns an error link with its summary at pos, caused by cause.
func Chain(summary string, pos value.Pos, cause error) *Diagnostic {
	p := pos
	return &Diagnostic{Summary: summary, Origin: &p, Cause: cause}
}

// Located gives err the origin pos unless it already has one. An error
// that is a chain keeps its structure: the origin goes to its first
// link; any other error becomes the cause of a link that only carries
// the origin.
func Located(pos value.Pos, err error) error {
	var d *Diagnostic
	if errors.As(err, &d) && d.Origin != nil {
		return err
	}
	p := pos
	if d, ok := err.(*Diagnostic); ok {
		c := *d
		c.Origin = &p
		return &c
	}
	return &Diagnostic{Origin: &p, Cause: err}
}

// Warn returns a warning at origin (nil: none).
func Warn(summary string, origin *value.Pos) *Diagnostic {
	return &Diagnostic{Severity: Warning, Summary: summary, Origin: origin}
}

// Deprecate returns a deprecation warning at origin (nil: none) for a
// feature ansible-core removes in version. Without a version it is an
// ordinary warning, since the deprecation text names the version.
func Deprecate(summary, version string, origin *value.Pos) *Diagnostic {
	if version == "" {
		return Warn(summary, origin)
	}
	return &Diagnostic{Severity: Deprecation, Summary: summary, Origin: origin, Version: version}
}

// ExitCode is the one place an error becomes ansible-playbook's exit
// status: the Code of the outermost diagnostic in err's chain that has
// one, else ExitFailure; 0 for no error.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	if d := Fatal(err); d != nil {
		return d.Code
	}
	return ExitFailure
}

// Fatal returns the outermost diagnostic in err's chain that ends the run
// (has an exit code), or nil.
func Fatal(err error) *Diagnostic {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if d, ok := e.(*Diagnostic); ok && d.Code != 0 {
			return d
		}
	}
	return nil
}
