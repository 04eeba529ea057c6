package template

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// UndefinedError reports use of an undefined variable or attribute. Ansible
// prints its message without a prefix.
type UndefinedError struct{ Msg string }

func (e *UndefinedError) Error() string { return e.Msg }

// RuntimeError is a Python-level failure while rendering (a TypeError, a
// ZeroDivisionError, ...). Ansible prefixes it with "Error rendering template".
type RuntimeError struct {
	Msg string
	// Value is the repr of the offending value when Ansible shows it under
	// an unknown origin (e.g. "range(0, 2)"); usually empty.
	Value string
	// UnknownOrigin reports that ansible-core prints this error as its own
	// "<<< caused by >>>" section with "Origin: <unknown>" (and Value, if
	// any, as the excerpt), below an "Error rendering template." link.
	UnknownOrigin bool
}

func (e *RuntimeError) Error() string {
	if e.Msg == "" {
		return "Error rendering template."
	}
	return "Error rendering template: " + e.Msg
}

// macroRecursionError is a macro calling itself beyond maxMacroDepth.
type macroRecursionError struct{ recursionError }

// VaultError is the use of a `!vault` value that cannot be decrypted
// (ansible-core's "Attempt to use undecryptable variable"); Pos is where
// the value was written, Expression that an expression (a conditional,
// debug's var) was being evaluated rather than a template rendered.
type VaultError struct {
	Pos        value.Pos
	Err        error
	Expression bool
}

func (e *VaultError) what() string {
	if e.Expression {
		return "expression"
	}
	return "template"
}

func (e *VaultError) use() string { return "Attempt to use undecryptable variable: " + e.Err.Error() }

func (e *VaultError) Error() string { return "Error rendering " + e.what() + ": " + e.use() }

// Unwrap returns the vault's error.
func (e *VaultError) Unwrap() error { return e.Err }

// FilterError is raised by a filter, test or lookup with its own wording.
type FilterError struct {
	Msg string
	// Detached marks an error Python raises while handling another
	// exception; ansible-core then shows it as its own section below the
	// plugin's "failed." message instead of joining the two.
	Detached bool
	// Help is advice ansible-core shows after the message in the error's
	// own section, but not in the one-line summary.
	Help string
	// Value, when set, is the repr of the offending value, which
	// ansible-core shows under "Origin: <unknown>" in a section of its own.
	Value string
}

func (e *FilterError) Error() string { return e.Msg }

// Detachedf returns a Detached FilterError.
func Detachedf(format string, a ...any) error {
	return &FilterError{Msg: fmt.Sprintf(format, a...), Detached: true}
}

// PluginError is a failing filter, test or lookup as ansible-core 2.19
// reports it: "The filter plugin 'X' failed." caused by the plugin's own
// error. Error() joins the two as ansible-core's one-line summary does.
type PluginError struct {
	Kind  string // filter, test or lookup
	Name  string // as invoked, e.g. ansible.builtin.to_json or file
	Cause error
}

func (e *PluginError) Error() string {
	msg := plainMsg(e.Cause)
	if msg == "" {
		return e.Message() // an exception with no message (MemoryError)
	}
	return strings.TrimSuffix(e.Message(), ".") + ": " + msg
}

// Unwrap returns the plugin's own error.
func (e *PluginError) Unwrap() error { return e.Cause }

// Message is the error's own message, without its cause.
func (e *PluginError) Message() string {
	return fmt.Sprintf("The %s plugin '%s' failed.", e.Kind, e.Name)
}

// CauseMessage is the plugin's own message.
func (e *PluginError) CauseMessage() string { return plainMsg(e.Cause) }

// Detached reports that ansible-core prints the cause in its own
// "<<< caused by >>>" section (with no origin) rather than after ": ".
func (e *PluginError) Detached() bool {
	fe, ok := e.Cause.(*FilterError)
	return ok && fe.Detached
}

// TemplateSyntaxError wraps a parse failure.
type TemplateSyntaxError struct {
	Msg  string
	Line int
	Col  int
}

func (e *TemplateSyntaxError) Error() string { return "Syntax error in template: " + e.Msg }

// Errorf returns a FilterError; filters use it for argument problems.
func Errorf(format string, a ...any) error { return &FilterError{Msg: fmt.Sprintf(format, a...)} }

// TypeErrorf returns a RuntimeError for Python TypeErrors and friends.
func TypeErrorf(format string, a ...any) error {
	return &RuntimeError{Msg: fmt.Sprintf(format, a...)}
}

// UndefinedErr is the error of using the undefined value u.
func UndefinedErr(u value.Undefined) error {
	if u.Err != nil {
		return u.Err
	}
	return &UndefinedError{Msg: u.Msg}
}

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
	return value.Undefined{Msg: "object of type '" + value.TypeName(obj) + "' has no attribute '" + attr + "'"}
}

// Origins may be implemented by a Vars to give the source position of a
// variable's value, or of the element at path inside it (dict keys and list
// indexes), so that an error in a template it holds names where that
// template was written, as ansible-core's tagged values do.
type Origins interface {
	Origin(name string, path []any) (value.Pos, bool)
}

// VarError is an error in the template a variable holds; Pos is where that
// template was defined.
type VarError struct {
	Pos value.Pos
	Err error
	// File marks the template of a file (the template module, the
	// template lookup) rather than a variable's.
	File bool
}

func (e *VarError) Error() string { return e.Err.Error() }

// Unwrap returns the template's error.
func (e *VarError) Unwrap() error { return e.Err }

// passThrough is an error a lookup returns in place of a result: the
// failure of a template it rendered, which ansible-core carries as a
// marker value, so lookup() neither wraps it in its plugin error nor
// lets errors=ignore hide it.
type passThrough struct{ err error }

func (e *passThrough) Error() string { return e.err.Error() }

// Unwrap returns the template's error.
func (e *passThrough) Unwrap() error { return e.err }

// recursionError is a variable whose template refers back to itself.
type recursionError struct{}

func (*recursionError) Error() string {
	return "Recursive loop detected in template: maximum recursion depth exceeded"
}

// fromPy turns an error of engine/py into the template error it stands
// for: a Python exception becomes a RuntimeError, the use of an undefined
// value that undefined value's own error.
func fromPy(err error) error {
	switch e := err.(type) {
	case *py.Error:
		return &RuntimeError{Msg: e.Msg}
	case *py.UndefinedUse:
		return UndefinedErr(e.Value)
	}
	return err
}
