package py

import (
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Error is a Python exception (a TypeError, ValueError, ...) raised by a
// function of this package; Msg is its str(). The template layer reports it
// as a template runtime error, or as a plugin's cause.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Errorf returns an *Error with the formatted message.
func Errorf(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// UndefinedUse reports that a function met an Ansible undefined value where
// it needed a real one; the template layer raises the undefined value's own
// error in its place.
type UndefinedUse struct{ Value value.Undefined }

func (e *UndefinedUse) Error() string { return e.Value.Msg }

// The largest string (in bytes) and list (in elements) that an operation
// of a template may build. CPython has no such limit: it raises
// MemoryError when the machine's memory runs out, or the operating
// system ends it first. cfzt-runner raises MemoryError, before allocating
// anything, at these sizes instead, so that hostile input (`'a' *
// 10**10`, `range(10**8) | list`, doubling in a loop) gives the template
// error ansible-core gives there rather than a crash; they are far beyond
// what a playbook renders. A deliberate difference (README).
const (
	MaxStrLen  = 1 << 26 // 64 MiB
	MaxListLen = 1 << 23 // 8 Mi elements (128 MiB of []any)
)

// MemoryError is Python's MemoryError, whose str() is empty: ansible-core
// reports it with no detail ("Error rendering template.", "The filter
// plugin '...' failed.").
func MemoryError() error { return &Error{Msg: ""} }
