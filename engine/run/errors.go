// Package run executes loaded playbooks: plays, blocks, tasks, loops,
// handlers and includes, emitting events to a display.
package run

import (
	"errors"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// ChainError is an ansible-core 2.19 style error: a message, the source
// position it concerns, a cause, and optional help text. The display
// prints each link of the chain that has its own position.
type ChainError struct {
	Msg    string
	Origin *value.Pos
	Cause  error
	Help   string
	// Note is shown under an unknown origin (e.g. the offending value).
	Note string
}

func (e *ChainError) Error() string {
	if e.Cause == nil {
		return e.Msg
	}
	return e.Msg + ": " + e.Cause.Error()
}

func (e *ChainError) Unwrap() error { return e.Cause }

func chain(msg string, pos value.Pos, cause error) *ChainError {
	p := pos
	return &ChainError{Msg: msg, Origin: &p, Cause: cause}
}

func at(pos value.Pos, cause error) error {
	var ce *ChainError
	if errors.As(cause, &ce) && ce.Origin != nil {
		return cause
	}
	p := pos
	return &ChainError{Msg: cause.Error(), Origin: &p, Help: helpOf(cause)}
}

func helpOf(err error) string {
	var ce *ChainError
	if errors.As(err, &ce) {
		return ce.Help
	}
	return ""
}
