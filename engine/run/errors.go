// Package run executes loaded playbooks: plays, blocks, tasks, loops,
// handlers and includes, emitting events to a display.
package run

import (
	"errors"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// ChainError is an ansible-core 2.19 style error: a message (worded as
// Ansible words it, usually with a final period), the source position it
// concerns, a cause, and optional help text. The display prints each link
// of the chain that has its own position.
type ChainError struct {
	Msg    string
	Origin *value.Pos
	Cause  error
	Help   string
	// Note is shown under an unknown origin (e.g. the offending value).
	Note string
	// Detached starts a "caused by" section of its own even without an
	// origin or help.
	Detached bool
}

// Error returns the brief message: every link's message joined with ": ",
// as ansible-core's format_event_brief_message.
func (e *ChainError) Error() string {
	return JoinMessages(ChainMessages(e))
}

func (e *ChainError) Unwrap() error { return e.Cause }

// ChainMessages lists the messages of an error chain, outermost first.
// A link with an empty message only carries an origin and is skipped.
func ChainMessages(err error) []string {
	var out []string
	for err != nil {
		var ce *ChainError
		if errors.As(err, &ce) && ce == err {
			if ce.Msg != "" {
				out = append(out, ce.Msg)
			}
			err = ce.Cause
			continue
		}
		out = append(out, err.Error())
		break
	}
	return out
}

// JoinMessages joins message parts the way ansible-core's
// deduplicate_message_parts does: trailing periods are dropped before
// ": ", and a part that already ends with the rest replaces it.
func JoinMessages(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	msg := parts[len(parts)-1]
	for i := len(parts) - 2; i >= 0; i-- {
		p := parts[i]
		if strings.HasSuffix(p, msg) {
			msg = p
		} else {
			msg = strings.TrimRight(p, ". ") + ": " + msg
		}
	}
	return msg
}

func chain(msg string, pos value.Pos, cause error) *ChainError {
	p := pos
	return &ChainError{Msg: msg, Origin: &p, Cause: cause}
}

// at gives err the origin pos unless it already has one. A template
// error keeps its structure: the origin goes to its first event.
func at(pos value.Pos, cause error) error {
	var ce *ChainError
	if errors.As(cause, &ce) && ce.Origin != nil {
		return cause
	}
	p := pos
	if ce, ok := cause.(*ChainError); ok {
		return &ChainError{Msg: ce.Msg, Origin: &p, Cause: ce.Cause, Help: ce.Help, Note: ce.Note}
	}
	return &ChainError{Origin: &p, Cause: cause}
}
