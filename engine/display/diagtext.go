package display

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/engine/vault"
)

// diagText is the one writer of diagnostics: it renders errors, warnings
// and deprecations as ansible-core 2.19's display does ([ERROR],
// [WARNING], [DEPRECATION WARNING], Origin: with a source excerpt,
// "<<< caused by >>>"). It caches the source files its excerpts quote.
// It adds no colour: the displays paint what it returns.
type diagText struct {
	sources map[string][]string
}

// The prefixes of the three severities.
const (
	errorPrefix       = "[ERROR]: "
	warningPrefix     = "[WARNING]: "
	deprecationPrefix = "[DEPRECATION WARNING]: "
)

// deprecationNote is the warning ansible-core shows once, before the first
// deprecation.
const deprecationNote = "[WARNING]: Deprecation warnings can be disabled by setting `deprecation_warnings=False` in ansible.cfg."

// formatError renders an error: the brief message, then one section per
// link that brings its own origin or help, each with a source excerpt,
// joined by "<<< caused by >>>". The text ends with a newline (two when
// it has several lines).
func (t *diagText) formatError(err error) string {
	links := diag.Links(err)
	if len(links) == 0 {
		return ""
	}
	var all []string
	for _, l := range links {
		all = append(all, l.Summary)
	}
	var segments []string
	for i := 0; i < len(links); {
		seg := links[i]
		msgs := []string{seg.Summary}
		j := i + 1
		for ; j < len(links); j++ {
			c := links[j]
			if c.Detached || (hasContext(c) && !sameContext(c, seg)) {
				break
			}
			msgs = append(msgs, c.Summary)
		}
		segments = append(segments, t.segment(diag.JoinMessages(msgs), seg)+subEvents(seg.Events))
		i = j
	}
	text := strings.Join(segments, "\n<<< caused by >>>\n\n")
	if len(segments) > 1 {
		text = diag.JoinMessages(all) + "\n\n" + text
	}
	text = strings.TrimSpace(text)
	if strings.Contains(text, "\n") {
		text += "\n\n"
	} else {
		text += "\n"
	}
	return errorPrefix + text
}

// formatWarning renders a warning or deprecation without its final
// newline: the prefix, the message (a deprecation's with the version that
// removes the feature), its origin with an excerpt, and its help.
func (t *diagText) formatWarning(w *diag.Diagnostic) string {
	msg := w.Summary
	prefix := warningPrefix
	if w.Severity == diag.Deprecation {
		from := "ansible-core"
		switch {
		case w.Collection != "":
			from = "collection '" + w.Collection + "'"
		case w.Plugin != "":
			from = w.Plugin + " in ansible-core"
		}
		msg = strings.TrimRight(msg, ".") + ". This feature will be removed from " + from + " version " + w.Version + "."
		prefix = deprecationPrefix
	}
	text := strings.TrimSpace(t.segment(msg, *w))
	if strings.Contains(text, "\n") {
		text += "\n"
	}
	return prefix + text
}

// subEvents renders the sub-events of a section, each framed as
// ansible-core's format_event shows them.
func subEvents(events []string) string {
	var b strings.Builder
	for i, ev := range events {
		fmt.Fprintf(&b, "\n+--[ Sub-Event %d of %d ]---\n| \n", i+1, len(events))
		for _, line := range strings.Split(ev, "\n") {
			b.WriteString("| " + line + "\n")
		}
		b.WriteString("| \n+--[ End Sub-Event ]---\n")
	}
	return b.String()
}

// hasContext reports whether a link starts a section of its own.
func hasContext(l diag.Diagnostic) bool { return l.Origin != nil || l.Help != "" || l.Note != "" }

// sameContext reports whether two links have the same origin, help and
// note, so that the second continues the first's section.
func sameContext(a, b diag.Diagnostic) bool {
	if (a.Origin == nil) != (b.Origin == nil) || a.Help != b.Help || a.Note != b.Note {
		return false
	}
	return a.Origin == nil || *a.Origin == *b.Origin
}

// segment renders one section: message, origin with excerpt, help.
func (t *diagText) segment(msg string, l diag.Diagnostic) string {
	ctx := ""
	if l.Origin != nil {
		ctx = "Origin: " + l.Origin.String()
		var lines []string
		if strings.HasPrefix(l.Origin.File, "<") && l.Origin.Line == 0 && l.Note == "" {
			// A described origin (<inventory script output from ...>)
			// has no source to quote.
		} else if l.Origin.File == "" || (l.Note != "" && l.Origin.Line == 0) {
			// An origin with no source (unknown, or a command-line
			// option) shows the note in place of an excerpt.
			if l.Note != "" {
				lines = []string{l.Note}
			}
		} else {
			lines = t.excerpt(*l.Origin)
		}
		if len(lines) > 0 {
			ctx += "\n\n" + strings.Join(lines, "\n")
		}
	}
	if l.Help != "" && ctx == "" && !strings.Contains(msg, "\n") && !strings.Contains(l.Help, "\n") {
		return msg + " " + l.Help + "\n"
	}
	out := []string{msg}
	if ctx != "" {
		out = append(out, ctx)
	}
	if l.Help != "" {
		out = append(out, "", l.Help)
	}
	return strings.Join(out, "\n") + "\n"
}

// excerpt shows up to two lines before pos and a caret under its column,
// as ansible-core's SourceContext.from_origin.
func (t *diagText) excerpt(pos value.Pos) []string {
	lines, ok := t.source(pos.File)
	if !ok {
		return []string{"(source not shown: FileNotFoundError)"}
	}
	if pos.Line < 1 {
		return nil
	}
	if len(lines) > 0 && vault.IsEncrypted([]byte(lines[0])) {
		// A position in a vault-encrypted file is in its plaintext, which
		// is never shown.
		return []string{"(source not shown: content encrypted)"}
	}
	if pos.Line > len(lines) {
		return []string{"(source not shown: file truncated)"}
	}
	const maxWidth, marker = 120, "..."
	first := max(pos.Line-2, 1)
	w := len(fmt.Sprint(pos.Line))
	maxLen := maxWidth - w - 1
	usable := maxLen
	var out []string
	for n := first; n <= pos.Line; n++ {
		line := strings.ReplaceAll(lines[n-1], "\t", " ")
		line = strings.TrimRight(line, "\r")
		if utf8.RuneCountInString(line) > maxLen {
			line = string([]rune(line)[:maxLen-len(marker)]) + marker
			usable = maxLen - len(marker)
		}
		sep := ""
		if line != "" {
			sep = " "
		}
		out = append(out, fmt.Sprintf("%*d%s%s", w, n, sep, line))
	}
	if pos.Col >= 1 && usable >= pos.Col {
		cm := fmt.Sprintf("column %d", pos.Col)
		idx := pos.Col - 1
		if idx+2+len(cm) > maxLen {
			cm = strings.Repeat(" ", max(0, idx-len(cm)-1)) + cm + " ^"
		} else {
			cm = strings.Repeat(" ", idx) + "^ " + cm
		}
		out = append(out, strings.Repeat(" ", w)+" "+cm)
	}
	return out
}

// source returns the lines of a file, read once.
func (t *diagText) source(file string) ([]string, bool) {
	if lines, ok := t.sources[file]; ok {
		return lines, true
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, false
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if t.sources == nil {
		t.sources = map[string][]string{}
	}
	t.sources[file] = lines
	return lines, true
}
