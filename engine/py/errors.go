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
