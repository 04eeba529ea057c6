// Package display renders run events the way ansible-core 2.19's default
// stdout callback does, with colours from fatih/color.
package display

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/fatih/color"
)

// Default is the default callback.
type Default struct {
	Out       io.Writer
	Err       io.Writer
	Verbose   int
	Color     bool
	ConfigMsg string
	lastTask  *playbook.Task
	sources   map[string][]string
}

// Verbosity implements run.Display.
func (d *Default) Verbosity() int { return d.Verbose }

func (d *Default) paint(c color.Attribute, s string) string {
	if !d.Color {
		return s
	}
	return color.New(c).Sprint(s)
}

func (d *Default) line(c color.Attribute, s string) {
	fmt.Fprintln(d.Out, d.paint(c, s))
}

func (d *Default) banner(msg string) {
	stars := 79 - utf8.RuneCountInString(msg)
	if stars <= 3 {
		stars = 3
	}
	fmt.Fprintf(d.Out, "\n%s %s\n", msg, strings.Repeat("*", stars))
}

// PlaybookStart implements run.Display.
func (d *Default) PlaybookStart(pb *playbook.Playbook) {
	if d.Verbose >= 2 {
		fmt.Fprintf(d.Out, "cfzt-runner [core 2.19.11]\n  config file = None\n  executable location = %s\n", os.Args[0])
	}
	if d.Verbose >= 1 {
		fmt.Fprintln(d.Out, d.ConfigMsg)
	}
	if d.Verbose >= 2 {
		fmt.Fprintln(d.Out, "Skipping callback 'minimal', as we already have a stdout callback.")
		fmt.Fprintln(d.Out, "Skipping callback 'oneline', as we already have a stdout callback.")
		d.banner("PLAYBOOK: " + filepath.Base(pb.Path))
		fmt.Fprintf(d.Out, "%d plays in %s\n", len(pb.Plays), filepath.Base(pb.Path))
	}
}

// PlayStart implements run.Display.
func (d *Default) PlayStart(name string) {
	if name == "" {
		d.banner("PLAY")
		return
	}
	d.banner("PLAY [" + name + "]")
}

// TaskStart implements run.Display.
func (d *Default) TaskStart(name string, t *playbook.Task, handler bool) {
	prefix := "TASK"
	if handler {
		prefix = "RUNNING HANDLER"
	}
	d.banner(fmt.Sprintf("%s [%s]", prefix, strings.TrimSpace(name)))
	if d.Verbose >= 2 {
		fmt.Fprintf(d.Out, "task path: %s:%d\n", t.Pos.File, t.Pos.Line)
	}
	d.lastTask = t
}

var debugKeep = map[string]bool{"msg": true, "exception": true, "warnings": true, "deprecations": true}
var hideInDebug = []string{"changed", "failed", "skipped", "invocation", "skip_reason", "ansible_loop_var", "ansible_index_var", "ansible_loop"}

// cleanResult applies ansible-core's callback result filtering.
func (d *Default) cleanResult(ev *run.Event) *value.Dict {
	res := ev.Result
	if ev.NoLog || value.Truthy(res.Default("_ansible_no_log", false)) {
		c := value.NewDict(4)
		for _, k := range []string{"attempts", "changed", "retries"} {
			if v, ok := res.Get(k); ok {
				c.Set(k, v)
			}
		}
		c.Set("censored", "the output has been hidden due to the fact that 'no_log: true' was specified for this result")
		return c
	}
	out := value.NewDict(res.Len())
	isDebug := ev.Task.Module == "debug"
	res.Each(func(k string, v any) bool {
		if k == "failed" || k == "skipped" || (isDebug && k == "invocation") {
			return true
		}
		if strings.HasPrefix(k, "_ansible") && k != "_ansible_verbose_always" && k != "_ansible_item_label" && k != "_ansible_no_log" {
			return true
		}
		out.Set(k, v)
		return true
	})
	if isDebug {
		if out.Has("msg") {
			for _, k := range append([]string(nil), out.Keys()...) {
				if !debugKeep[k] && !strings.HasPrefix(k, "_") {
					out.Delete(k)
				}
			}
		} else {
			for _, k := range hideInDebug {
				out.Delete(k)
			}
		}
	}
	return out
}

func (d *Default) dump(res *value.Dict) string {
	indent := 0
	if value.Truthy(res.Default("_ansible_verbose_always", false)) || d.Verbose > 2 {
		indent = 4
	}
	out := value.NewDict(res.Len())
	res.Each(func(k string, v any) bool {
		if strings.HasPrefix(k, "_ansible") {
			return true
		}
		if (k == "invocation" || k == "diff") && d.Verbose < 3 {
			return true
		}
		if k == "exception" || k == "warnings" || k == "deprecations" {
			return true
		}
		out.Set(k, v)
		return true
	})
	return value.JSON(Mask(out), value.JSONOptions{Indent: indent, SortKeys: true})
}

func itemLabel(ev *run.Event) string {
	if ev.NoLog || value.Truthy(ev.Result.Default("_ansible_no_log", false)) {
		return "(censored due to no_log)"
	}
	if l, ok := ev.Result.Get("_ansible_item_label"); ok {
		return value.Str(l)
	}
	loopVar := value.Str(ev.Result.Default("ansible_loop_var", "item"))
	return value.Str(ev.Result.Default(loopVar, nil))
}

func verbose(ev *run.Event, v int) bool {
	return v > 0 || value.Truthy(ev.Result.Default("_ansible_verbose_always", false))
}

// Result implements run.Display.
func (d *Default) Result(ev *run.Event) {
	host := ev.Host
	if dt, ok := ev.Task.DelegateTo.(string); ok && dt != "" && dt != host && !template.HasMarkers(dt) {
		host = host + " -> " + dt
	}
	res := d.cleanResult(ev)
	switch ev.Status {
	case run.StatusOK, run.StatusChanged:
		word, c := "ok", color.FgGreen
		if ev.Status == run.StatusChanged {
			word, c = "changed", color.FgYellow
		}
		msg := fmt.Sprintf("%s: [%s]", word, host)
		if ev.Item {
			msg += fmt.Sprintf(" => (item=%s)", itemLabel(ev))
		}
		if verbose(ev, d.Verbose) {
			msg += " => " + d.dump(res)
		}
		d.line(c, msg)
	case run.StatusSkipped:
		msg := fmt.Sprintf("skipping: [%s]", ev.Host)
		if ev.Item {
			msg += fmt.Sprintf(" => (item=%s) ", itemLabel(ev))
		}
		if d.Verbose > 0 {
			msg += " => " + d.dump(res)
		}
		d.line(color.FgCyan, msg)
	case run.StatusFailed:
		if ev.Item {
			d.line(color.FgRed, fmt.Sprintf("failed: [%s] (item=%s) => %s", host, itemLabel(ev), d.dump(res)))
		} else {
			d.line(color.FgRed, fmt.Sprintf("fatal: [%s]: FAILED! => %s", host, d.dump(res)))
		}
		if ev.Ignored {
			d.line(color.FgCyan, "...ignoring")
		}
	}
}

// Included implements run.Display.
func (d *Default) Included(file, host string, label any, hasItem bool) {
	msg := fmt.Sprintf("included: %s for %s", file, host)
	if hasItem {
		msg += fmt.Sprintf(" => (item=%s)", value.Str(label))
	}
	d.line(color.FgCyan, msg)
}

// Retry implements run.Display.
func (d *Default) Retry(host, taskName string, res *value.Dict) {
	attempts, _ := value.AsInt(res.Default("attempts", 0))
	retries, _ := value.AsInt(res.Default("retries", 0))
	msg := fmt.Sprintf("FAILED - RETRYING: [%s]: %s (%d retries left).", host, taskName, retries-attempts)
	if d.Verbose >= 2 || value.Truthy(res.Default("_ansible_verbose_always", false)) {
		msg += "Result was: " + value.JSON(Mask(stripForRetry(res)), value.JSONOptions{Indent: 4, SortKeys: true})
	}
	d.line(color.FgHiBlack, msg)
}

func stripForRetry(res *value.Dict) *value.Dict {
	out := value.NewDict(res.Len())
	res.Each(func(k string, v any) bool {
		if !strings.HasPrefix(k, "_ansible") && k != "failed" && k != "skipped" && k != "invocation" {
			out.Set(k, v)
		}
		return true
	})
	return out
}

// Warning implements run.Display.
func (d *Default) Warning(msg string) {
	d.line(color.FgCyan, msg)
}

// Error implements run.Display: 2.19's [ERROR] block on stdout.
func (d *Default) Error(err error) {
	fmt.Fprint(d.Out, d.paint(color.FgRed, d.FormatError(err)))
}

// Recap implements run.Display.
func (d *Default) Recap(stats []*run.Stats) {
	d.banner("PLAY RECAP")
	for _, s := range stats {
		fmt.Fprintf(d.Out, "%-26s : %s %s %s %s %s %s %s\n", s.Host,
			counter("ok", s.OK), counter("changed", s.Changed), counter("unreachable", s.Unreachable),
			counter("failed", s.Failed), counter("skipped", s.Skipped), counter("rescued", s.Rescued), counter("ignored", s.Ignored))
	}
	fmt.Fprintln(d.Out)
}

func counter(name string, n int) string { return fmt.Sprintf("%s=%-4d", name, n) }

// errLink is one printed section of an error chain.
type errLink struct {
	msg    string
	origin *value.Pos
	help   string
	note   string
}

// FormatError renders an error as ansible-core 2.19 does: the joined
// message, then each link that has its own origin with a source excerpt.
func (d *Default) FormatError(err error) string {
	var links []errLink
	var parts []string
	for e := err; e != nil; {
		var ce *run.ChainError
		if errors.As(e, &ce) && ce == e {
			parts = append(parts, ce.Msg)
			if ce.Origin != nil || len(links) == 0 {
				links = append(links, errLink{msg: ce.Msg, origin: ce.Origin, help: ce.Help, note: ce.Note})
			} else {
				links[len(links)-1].msg += ": " + ce.Msg
				if ce.Help != "" {
					links[len(links)-1].help = ce.Help
				}
			}
			e = ce.Cause
			continue
		}
		var le *playbook.LoadError
		msg := e.Error()
		if errors.As(e, &le) && le == e {
			msg = le.Msg
		}
		parts = append(parts, msg)
		if len(links) == 0 {
			links = append(links, errLink{msg: msg})
		} else {
			links[len(links)-1].msg += ": " + msg
		}
		break
	}
	var b strings.Builder
	b.WriteString("[ERROR]: " + strings.Join(parts, ": ") + "\n")
	if len(links) == 1 {
		d.writeOrigin(&b, links[0])
		return b.String()
	}
	b.WriteString("\n")
	for i, l := range links {
		if i > 0 {
			b.WriteString("<<< caused by >>>\n\n")
		}
		m := l.msg
		if i < len(links)-1 {
			m += "."
		}
		b.WriteString(m + "\n")
		d.writeOrigin(&b, l)
	}
	return b.String()
}

func (d *Default) writeOrigin(b *strings.Builder, l errLink) {
	if l.origin != nil {
		b.WriteString("Origin: " + l.origin.String() + "\n\n")
		if ex := d.excerpt(*l.origin); ex != "" {
			b.WriteString(ex + "\n")
		}
	}
	if l.help != "" {
		b.WriteString(l.help + "\n\n")
	}
}

// excerpt shows up to two lines before pos and a caret under its column.
func (d *Default) excerpt(pos value.Pos) string {
	if d.sources == nil {
		d.sources = map[string][]string{}
	}
	lines, ok := d.sources[pos.File]
	if !ok {
		data, err := os.ReadFile(pos.File)
		if err != nil {
			return ""
		}
		lines = strings.Split(string(data), "\n")
		d.sources[pos.File] = lines
	}
	if pos.Line < 1 || pos.Line > len(lines) {
		return ""
	}
	first := pos.Line - 2
	if first < 1 {
		first = 1
	}
	w := len(fmt.Sprint(pos.Line))
	var b strings.Builder
	for n := first; n <= pos.Line; n++ {
		fmt.Fprintf(&b, "%*d %s\n", w, n, lines[n-1])
	}
	fmt.Fprintf(&b, "%s^ column %d\n", strings.Repeat(" ", w+1+pos.Col-1), pos.Col)
	return b.String()
}
