package playbook

import (
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// LoadError is a problem found while loading: malformed YAML, an unknown
// keyword or module, a missing file or role. Code is the exit status
// ansible-playbook uses for it (4 for parse errors, 1 otherwise).
type LoadError struct {
	Msg  string
	Pos  value.Pos
	Help string
	Code int
	// NoSource is set when the source excerpt cannot be shown.
	NoSource string
	// Note, when set, is shown under an unknown origin instead of a
	// source excerpt (the offending value).
	Note string
	Err  error
}

func (e *LoadError) Error() string {
	if e.Pos.IsZero() {
		return e.Msg
	}
	return fmt.Sprintf("%s (%s)", e.Msg, e.Pos)
}

func (e *LoadError) Unwrap() error { return e.Err }

func parseErr(pos value.Pos, format string, a ...any) *LoadError {
	return &LoadError{Msg: fmt.Sprintf(format, a...), Pos: pos, Code: 4}
}
