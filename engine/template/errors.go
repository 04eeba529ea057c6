package template

import (
	"errors"
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// UndefinedError reports use of an undefined variable or attribute. Ansible
// prints its message without a prefix.
type UndefinedError struct{ Msg string }

func (e *UndefinedError) Error() string { return e.Msg }

// RuntimeError is a Python-level failure while rendering (a TypeError, a
// ZeroDivisionError, ...). Ansible prefixes it with "Error rendering template".
type RuntimeError struct{ Msg string }

func (e *RuntimeError) Error() string { return "Error rendering template: " + e.Msg }

// FilterError is raised by a filter, test or lookup with its own wording.
type FilterError struct{ Msg string }

func (e *FilterError) Error() string { return e.Msg }

// TemplateSyntaxError wraps a parse failure.
type TemplateSyntaxError struct {
	Msg  string
	Line int
	Col  int
}

func (e *TemplateSyntaxError) Error() string { return "Syntax error in template: " + e.Msg }

// Errorf returns a FilterError; filters use it for argument problems.
func Errorf(format string, a ...any) error { return &FilterError{Msg: fmt.Sprintf(format, a...)} }

// typeErrorf returns a RuntimeError for Python TypeErrors and friends.
func typeErrorf(format string, a ...any) error {
	return &RuntimeError{Msg: fmt.Sprintf(format, a...)}
}

func undefinedErr(u value.Undefined) error { return &UndefinedError{Msg: u.Msg} }

// IsUndefined reports whether err (or its cause) is an UndefinedError.
func IsUndefined(err error) bool {
	var u *UndefinedError
	return errors.As(err, &u)
}

// undefinedName returns the Undefined value for a missing variable.
func undefinedName(name string) value.Undefined {
	return value.Undefined{Msg: fmt.Sprintf("'%s' is undefined", name)}
}

func noAttr(obj any, attr string) value.Undefined {
	return value.Undefined{Msg: fmt.Sprintf("object of type '%s' has no attribute '%s'", value.TypeName(obj), attr)}
}
