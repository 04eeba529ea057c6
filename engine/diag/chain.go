package diag

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Diagnoser is implemented by typed errors that are not Diagnostics
// themselves, such as the template engine's (undefined variable, syntax
// error, failing plugin): Diagnose returns the chain of diagnostics
// ansible-core shows for the error, so the display renders it like any
// other.
type Diagnoser interface {
	Diagnose() *Diagnostic
}

// Of returns err as a diagnostic chain: err itself when it is one, the
// chain a Diagnoser in its chain gives, or else a link with err's text.
func Of(err error) *Diagnostic {
	switch e := err.(type) {
	case nil:
		return nil
	case *Diagnostic:
		return e
	case Diagnoser:
		return e.Diagnose()
	}
	if dg := asDiagnoser(err); dg != nil {
		return dg.Diagnose()
	}
	return &Diagnostic{Summary: err.Error()}
}

// asDiagnoser finds a Diagnoser wrapped in err's chain.
func asDiagnoser(err error) Diagnoser {
	for e := err; e != nil; {
		if dg, ok := e.(Diagnoser); ok {
			return dg
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return nil
		}
		e = u.Unwrap()
	}
	return nil
}

// Messages lists the summaries of an error chain, outermost first: each
// diagnostic's, then the text of the first error that is not one (or that
// ends the run, whose text names its position). A link with an empty
// summary only carries an origin and is skipped.
func Messages(err error) []string {
	var out []string
	for top := true; err != nil; top = false {
		d, ok := err.(*Diagnostic)
		if !ok || (d.Code != 0 && !top) {
			out = append(out, err.Error())
			break
		}
		if d.Summary != "" {
			out = append(out, d.Summary)
		}
		err = d.Cause
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

// Links flattens an error chain into its events, outermost first, each a
// diagnostic without a cause. A link with no summary only lends its
// origin to the next event; typed errors expand into the chain they
// diagnose.
func Links(err error) []Diagnostic {
	var links []Diagnostic
	var pending *value.Pos
	for d := Of(err); d != nil; d = Of(d.Cause) {
		if d.Summary == "" {
			if d.Origin != nil {
				pending = d.Origin
			}
			continue
		}
		l := *d
		l.Cause, l.Wrapped = nil, nil
		if pending != nil && l.Origin == nil {
			l.Origin = pending
		}
		pending = nil
		links = append(links, l)
	}
	return links
}
