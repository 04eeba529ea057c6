// Package display renders run events the way ansible-core 2.19's default
// stdout callback does, with colours from fatih/color.
package display

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/fatih/color"
)

// Default is the default callback.
type Default struct {
	Out     io.Writer
	Err     io.Writer
	Verbose int
	Color   bool
	// ConfigMsg is the "Using ... as config file" line shown with -v;
	// ConfigFile the config file path ("" for none).
	ConfigMsg  string
	ConfigFile string
	// VersionBlock, when set, is the header of -vv and above: the block
	// --version prints, as ansible-playbook shows it there.
	VersionBlock string
	// InventoryMsgs are the "Parsed ... inventory source" lines of -vvv.
	InventoryMsgs []string
	// HideSkipped and HideOK are display_skipped_hosts=false and
	// display_ok_hosts=false: those results are not shown, and a task's
	// banner waits (in pending) for a result that is.
	HideSkipped, HideOK bool
	// ResultYAML is callback_result_format=yaml: results are shown as
	// YAML rather than JSON.
	ResultYAML bool
	// CommunityYAML is stdout_callback=community.general.yaml: results as
	// that callback dumps them (a changed=/skipped= header, two-space
	// YAML).
	CommunityYAML bool
	// Style is the stdout callback when it is ansible-core's minimal or
	// oneline ("" for the default callback): one line per result (see
	// style.go), no banners and no recap.
	Style    string
	pending  *pendingBanner
	lastTask *playbook.Task
	text     diagText
	// shown dedups warnings and errors, as ansible-core's display does.
	shown map[string]bool
	// preambleShown is set once the version header and config line
	// are out: the command line shows them once, before loading.
	preambleShown bool
}

// Ansible's default colours (constants.COLOR_CODES), as SGR attributes.
var (
	colorOK          = []color.Attribute{0, color.FgGreen}
	colorChanged     = []color.Attribute{0, color.FgYellow}
	colorSkip        = []color.Attribute{0, color.FgCyan}
	colorError       = []color.Attribute{0, color.FgRed}
	colorUnreachable = []color.Attribute{color.Bold, color.FgRed}
	colorWarn        = []color.Attribute{color.Bold, color.FgMagenta}
	colorDebug       = []color.Attribute{color.Bold, color.FgBlack}
	colorVerbose     = []color.Attribute{0, color.FgBlue}
	colorIncluded    = colorSkip
	colorDeprecate   = []color.Attribute{0, color.FgMagenta}
)

var _ run.Display = (*Default)(nil)

// Verbosity implements run.Display.
func (d *Default) Verbosity() int { return d.Verbose }

// paint colours every line of s, as ansible.utils.color.stringc does:
// each line is wrapped in the colour's SGR sequence and a plain reset.
func (d *Default) paint(c []color.Attribute, s string) string {
	if !d.Color || c == nil {
		return s
	}
	codes := make([]string, len(c))
	for i, a := range c {
		codes[i] = fmt.Sprint(int(a))
	}
	open := "\x1b[" + strings.Join(codes, ";") + "m"
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = open + l + "\x1b[0m"
	}
	return strings.Join(lines, "\n")
}

func (d *Default) line(c []color.Attribute, s string) {
	fmt.Fprintln(d.Out, d.paint(c, s))
}

func (d *Default) errOut() io.Writer {
	if d.Err != nil {
		return d.Err
	}
	return os.Stderr
}

func (d *Default) banner(msg string) {
	msg = strings.TrimSpace(msg)
	stars := 79 - textWidth(msg)
	if stars <= 3 {
		stars = 3
	}
	fmt.Fprintf(d.Out, "\n%s %s\n", msg, strings.Repeat("*", stars))
}

// textWidth approximates the terminal width of s (wide runes count 2).
func textWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case r >= 0x1100 && (r <= 0x115f || r == 0x2329 || r == 0x232a ||
			(r >= 0x2e80 && r <= 0xa4cf && r != 0x303f) || (r >= 0xac00 && r <= 0xd7a3) ||
			(r >= 0xf900 && r <= 0xfaff) || (r >= 0xfe30 && r <= 0xfe6f) || (r >= 0xff00 && r <= 0xff60) ||
			(r >= 0xffe0 && r <= 0xffe6) || (r >= 0x1f300 && r <= 0x1faff) || (r >= 0x20000 && r <= 0x3fffd)):
			w += 2
		case r < 0x20 || (r >= 0x7f && r < 0xa0):
		default:
			w++
		}
	}
	return w
}

// Header prints the version header of -vv and above.
func (d *Default) header() {
	if d.VersionBlock != "" {
		fmt.Fprint(d.Out, d.VersionBlock)
		return
	}
	exe, _ := os.Executable()
	cfg := d.ConfigFile
	if cfg == "" {
		cfg = "None"
	}
	fmt.Fprintf(d.Out, "cfzt-runner [core 2.19.11]\n  config file = %s\n  executable location = %s\n  go version = %s\n", cfg, exe, runtime.Version())
}

// PlaybookStart implements run.Display.
func (d *Default) PlaybookStart(pb *playbook.Playbook) {
	d.Preamble()
	if d.Verbose >= 3 {
		for _, m := range d.InventoryMsgs {
			d.line(colorVerbose, m)
		}
	}
	if d.Verbose >= 2 {
		for _, m := range pb.Messages {
			d.line(colorVerbose, m)
		}
	}
	if d.Verbose >= 2 && d.Style == "" {
		fmt.Fprintln(d.Out, "Skipping callback 'minimal', as we already have a stdout callback.")
		fmt.Fprintln(d.Out, "Skipping callback 'oneline', as we already have a stdout callback.")
		d.banner("PLAYBOOK: " + filepath.Base(pb.Path))
		fmt.Fprintf(d.Out, "%d plays in %s\n", len(pb.Plays), pb.Arg)
	}
}

// Preamble shows, once, what ansible-playbook prints before it loads
// anything: the version header at -vv and the config file line at -v.
func (d *Default) Preamble() {
	if d.preambleShown {
		return
	}
	d.preambleShown = true
	if d.Verbose >= 2 {
		d.header()
	}
	if d.Verbose >= 1 && d.ConfigMsg != "" {
		fmt.Fprintln(d.Out, d.ConfigMsg)
	}
}

// PlayStart implements run.Display.
func (d *Default) PlayStart(name string) {
	if d.Style != "" {
		return
	}
	d.pending = nil
	name = strings.TrimSpace(name)
	if name == "" {
		d.banner("PLAY")
		return
	}
	d.banner("PLAY [" + name + "]")
}

// TaskStart implements run.Display.
func (d *Default) TaskStart(name string, t *playbook.Task, handler bool) {
	if d.Style != "" {
		return
	}
	prefix := "TASK"
	if handler {
		prefix = "RUNNING HANDLER"
	}
	d.pending = &pendingBanner{text: fmt.Sprintf("%s [%s]", prefix, strings.TrimSpace(name)), task: t}
	if !d.HideSkipped && !d.HideOK {
		d.flushBanner()
	}
	d.lastTask = t
}

// Message implements run.Display: verbose lines such as handler
// notifications.
func (d *Default) Message(level int, msg string) {
	if d.Verbose >= level {
		d.line(colorVerbose, msg)
	}
}

// NoHostsRemaining implements run.Display.
func (d *Default) NoHostsRemaining() {
	if d.Style != "" {
		return
	}
	d.banner("NO MORE HOSTS LEFT")
}

// NoHostsMatched implements run.Display.
func (d *Default) NoHostsMatched() {
	if d.Style != "" {
		return
	}
	d.line(colorSkip, "skipping: no hosts matched")
}

var debugKeep = map[string]bool{"msg": true, "exception": true, "warnings": true, "deprecations": true}
var hideInDebug = []string{"changed", "failed", "skipped", "invocation", "skip_reason", "ansible_loop_var", "ansible_index_var", "ansible_loop"}

// preserved are the keys a no_log result keeps (task_result._PRESERVE).
var preserved = []string{"attempts", "changed", "retries", "_ansible_no_log", "warnings", "deprecations"}

// keptInternal are the internal keys callbacks still see.
var keptInternal = map[string]bool{"_ansible_verbose_always": true, "_ansible_item_label": true, "_ansible_no_log": true, "_ansible_verbose_override": true}

func censored(ev *run.Event) bool {
	return ev.NoLog && !ev.Item || value.Truthy(ev.Result.Default("_ansible_no_log", false))
}

// cleanResult applies ansible-core's callback result filtering: no_log
// censoring, internal keys, debug's own trimming, and the loop results
// the items already showed.
func (d *Default) cleanResult(ev *run.Event) *value.Dict {
	return d.cleanResultTrim(ev, true)
}

// cleanResultTrim is cleanResult, with debug's trimming (the callback's
// _clean_results) only when trimDebug.
func (d *Default) cleanResultTrim(ev *run.Event, trimDebug bool) *value.Dict {
	res := ev.Result
	var out *value.Dict
	if censored(ev) {
		out = value.NewDict(4)
		for _, k := range preserved {
			if v, ok := res.Get(k); ok {
				out.Set(k, v)
			}
		}
		out.Set("censored", "the output has been hidden due to the fact that 'no_log: true' was specified for this result")
	} else {
		out = value.NewDict(res.Len())
		isDebug := ev.Task.Info.FQCN == "ansible.builtin.debug"
		res.Each(func(k string, v any) bool {
			switch {
			case k == "failed" || k == "skipped" || k == "exception":
			case isDebug && k == "invocation":
			case strings.HasPrefix(k, "_ansible_") && !keptInternal[k]:
			default:
				out.Set(k, stripInternal(v))
			}
			return true
		})
	}
	if trimDebug && ev.Task.Info.FQCN == "ansible.builtin.debug" {
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

// stripInternal removes _ansible_* keys at every level.
func stripInternal(v any) any {
	switch x := v.(type) {
	case *value.Dict:
		var out *value.Dict
		for i, k := range x.Keys() {
			e, _ := x.Get(k)
			se := stripInternal(e)
			if out == nil && (strings.HasPrefix(k, "_ansible_") || !sameRef(se, e)) {
				out = value.NewDict(x.Len())
				for _, pk := range x.Keys()[:i] {
					pv, _ := x.Get(pk)
					out.Set(pk, pv)
				}
			}
			if out != nil && !strings.HasPrefix(k, "_ansible_") {
				out.Set(k, se)
			}
		}
		if out != nil {
			return out
		}
	case []any:
		var out []any
		for i, e := range x {
			se := stripInternal(e)
			if out == nil && !sameRef(se, e) {
				out = make([]any, len(x))
				copy(out, x[:i])
			}
			if out != nil {
				out[i] = se
			}
		}
		if out != nil {
			return out
		}
	case *run.ResultError:
		return "(traceback unavailable)"
	}
	return v
}

func sameRef(a, b any) bool {
	switch x := a.(type) {
	case *value.Dict:
		y, ok := b.(*value.Dict)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	}
	return true
}

// dump renders a cleaned result as _dump_results does.
func (d *Default) dump(res *value.Dict) string {
	indent := 0
	if value.Truthy(res.Default("_ansible_verbose_always", false)) || d.Verbose > 2 {
		indent = 4
	}
	return d.dumpIndent(res, indent)
}

// dumpIndent is dump with the given indent (0: one line).
func (d *Default) dumpIndent(res *value.Dict, indent int) string {
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
	if d.CommunityYAML {
		return dumpCommunityYAML(Mask(out))
	}
	if d.ResultYAML {
		return dumpYAML(Mask(out))
	}
	return value.JSON(Mask(out), value.JSONOptions{Indent: indent, SortKeys: true})
}

func itemLabel(ev *run.Event) string {
	if value.Truthy(ev.Result.Default("_ansible_no_log", false)) {
		return "(censored due to no_log)"
	}
	if l, ok := ev.Result.Get("_ansible_item_label"); ok {
		return value.Str(l)
	}
	return value.Str(ev.Result.Default("item", nil))
}

// verbose is _run_is_verbose: -v or a result that asks to be shown.
func verbose(ev *run.Event, v int) bool {
	res := ev.Result
	if censored(ev) {
		return v > 0
	}
	return (v > 0 || res.Default("_ansible_verbose_always", false) == true) && res.Default("_ansible_verbose_override", false) != true
}

func hostLabel(ev *run.Event) string {
	if ev.Delegate != "" && ev.Delegate != ev.Host {
		return ev.Host + " -> " + ev.Delegate
	}
	return ev.Host
}

// warnings prints a result's warnings and deprecations.
func (d *Default) warnings(res *value.Dict) {
	if module.WarningsShown(res) {
		return
	}
	if l, ok := res.Default("warnings", nil).([]any); ok {
		for _, w := range l {
			d.Warn(diag.Warn(value.Str(w), nil))
		}
	}
	if l, ok := res.Default("deprecations", nil).([]any); ok {
		for _, w := range l {
			msg := w
			if dd, ok := w.(*value.Dict); ok {
				msg = dd.Default("msg", "")
				// ansible-core's own deprecation of a module's result (a
				// version, collection ansible.builtin) is shown as
				// ansible-core shows its own: once, after the note, with
				// the version and help text.
				if v, ok := dd.Get("version"); ok && v != nil && value.Str(dd.Default("collection_name", "")) == "ansible.builtin" {
					dep := diag.Deprecate(value.Str(msg), value.Str(v), nil)
					if h, ok := dd.Get("help_text"); ok && h != nil {
						dep.Help = value.Str(h)
					}
					d.Warn(dep)
					continue
				}
			}
			fmt.Fprintln(d.errOut(), d.paint(colorDeprecate, "[DEPRECATION WARNING]: "+value.Str(msg)))
		}
	}
}

// Result implements run.Display.
func (d *Default) Result(ev *run.Event) {
	if d.Style != "" {
		d.styleResult(ev)
		return
	}
	host := hostLabel(ev)
	if d.hidden(ev) {
		return
	}
	d.flushBanner()
	d.warnings(ev.Result)
	// The cleaned result is only built when something shows it: results
	// can be large and most lines at -v0 do not.
	var cleaned *value.Dict
	clean := func() *value.Dict {
		if cleaned == nil {
			cleaned = d.cleanResult(ev)
		}
		return cleaned
	}
	switch ev.Status {
	case run.StatusOK, run.StatusChanged:
		if ev.Loop || ev.Task.Info.Kind == module.KindIncludeTasks || ev.Task.Info.Kind == module.KindIncludeRole {
			return
		}
		d.diff(ev)
		word, c := "ok", colorOK
		if ev.Status == run.StatusChanged {
			word, c = "changed", colorChanged
		}
		msg := fmt.Sprintf("%s: [%s]", word, host)
		if ev.Item {
			msg += fmt.Sprintf(" => (item=%s)", itemLabel(ev))
		}
		if verbose(ev, d.Verbose) {
			msg += " => " + d.dump(clean())
		}
		d.line(c, msg)
	case run.StatusSkipped:
		if ev.Loop {
			clean().Delete("results")
		}
		msg := fmt.Sprintf("skipping: [%s]", ev.Host)
		if ev.Item {
			msg += fmt.Sprintf(" => (item=%s) ", itemLabel(ev))
		}
		if verbose(ev, d.Verbose) {
			msg += " => " + d.dump(clean())
		}
		d.line(colorSkip, msg)
	case run.StatusFailed:
		if ev.Item {
			d.line(colorError, fmt.Sprintf("failed: [%s] (item=%s) => %s", host, itemLabel(ev), d.dump(clean())))
		} else if ev.Loop && clean().Has("results") {
			// The items were shown; only debug's trimming removes the
			// results and lets the summary through, as in ansible-core.
		} else {
			d.line(colorError, fmt.Sprintf("fatal: [%s]: FAILED! => %s", host, d.dump(clean())))
		}
		if ev.Ignored {
			d.line(colorSkip, "...ignoring")
		}
	case run.StatusUnreachable:
		d.line(colorUnreachable, fmt.Sprintf("fatal: [%s]: UNREACHABLE! => %s", host, d.dump(clean())))
		if ev.Ignored {
			d.line(colorSkip, "...ignoring")
		}
	}
}

// diff shows a changed result's diff with --diff (v2_on_file_diff, which
// ansible-core calls before the result line).
func (d *Default) diff(ev *run.Event) {
	if ev.Status != run.StatusChanged || !ev.Diff {
		return
	}
	d.showDiff(ev.Result.Default("diff", nil))
}

// showDiff prints one diff value.
func (d *Default) showDiff(df any) {
	if df == nil {
		return
	}
	text := formatDiff(df)
	if text == "" {
		return
	}
	if d.Color {
		lines := strings.SplitAfter(text, "\n")
		for i, l := range lines {
			body := strings.TrimSuffix(l, "\n")
			switch {
			case strings.HasPrefix(body, "+"):
				body = d.paint(colorOK, body)
			case strings.HasPrefix(body, "-"):
				body = d.paint(colorError, body)
			case strings.HasPrefix(body, "@@"):
				body = d.paint(colorSkip, body)
			}
			if strings.HasSuffix(l, "\n") {
				body += "\n"
			}
			lines[i] = body
		}
		text = strings.Join(lines, "")
	}
	fmt.Fprint(d.Out, text)
	if !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(d.Out)
	}
}

// Included implements run.Display.
func (d *Default) Included(file, host string, label any, hasItem bool) {
	if d.Style != "" {
		return
	}
	d.flushBanner()
	msg := fmt.Sprintf("included: %s for %s", file, host)
	if hasItem {
		msg += fmt.Sprintf(" => (item=%s)", value.Str(label))
	}
	d.line(colorIncluded, msg)
}

// Retry implements run.Display.
func (d *Default) Retry(host, taskName string, res *value.Dict) {
	if d.Style != "" {
		return
	}
	attempts, _ := value.AsInt(res.Default("attempts", 0))
	retries, _ := value.AsInt(res.Default("retries", 0))
	msg := fmt.Sprintf("FAILED - RETRYING: [%s]: %s (%d retries left).", host, taskName, retries-attempts)
	if d.Verbose >= 3 || res.Default("_ansible_verbose_always", false) == true {
		shown := stripForRetry(res)
		if value.Truthy(res.Default("_ansible_no_log", false)) {
			shown = value.NewDict(4)
			for _, k := range preserved {
				if v, ok := res.Get(k); ok && !strings.HasPrefix(k, "_") {
					shown.Set(k, v)
				}
			}
			shown.Set("censored", "the output has been hidden due to the fact that 'no_log: true' was specified for this result")
		}
		msg += "Result was: " + value.JSON(Mask(shown), value.JSONOptions{Indent: 4, SortKeys: true})
	}
	d.line(colorDebug, msg)
}

// Async implements run.Display: the default callback's
// v2_runner_on_async_poll/ok/failed lines. A no_log result hides the job
// id, which the callback then reads as None.
func (d *Default) Async(ev run.AsyncEvent) {
	if d.Style != "" {
		return
	}
	jid := ev.JID
	if ev.NoLog {
		jid = "None"
	}
	switch ev.Kind {
	case run.AsyncPoll:
		d.line(colorDebug, fmt.Sprintf("ASYNC POLL on %s: jid=%s started=%s finished=%s", ev.Host, jid, pyBool(ev.Started), pyBool(ev.Finished)))
	case run.AsyncOK:
		d.line(colorDebug, fmt.Sprintf("ASYNC OK on %s: jid=%s", ev.Host, jid))
	default:
		d.line(colorDebug, fmt.Sprintf("ASYNC FAILED on %s: jid=%s", ev.Host, jid))
	}
}

// pyBool is a bool as Python's str() writes it.
func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func stripForRetry(res *value.Dict) *value.Dict {
	out := value.NewDict(res.Len())
	res.Each(func(k string, v any) bool {
		if !strings.HasPrefix(k, "_ansible") && k != "failed" && k != "skipped" && k != "invocation" && k != "exception" {
			out.Set(k, stripInternal(v))
		}
		return true
	})
	return out
}

// Warn implements run.Display: 2.19's [WARNING] on stderr with its origin
// and excerpt, or a [DEPRECATION WARNING]. Like ansible-core's display,
// each text is shown once.
func (d *Default) Warn(w *diag.Diagnostic) {
	text := d.text.formatWarning(w)
	if d.once(text) {
		return
	}
	c := colorWarn
	if w.Severity == diag.Deprecation {
		c = colorDeprecate
		if !d.once("\x00deprecation note") {
			fmt.Fprintln(d.errOut(), d.paint(colorWarn, deprecationNote))
		}
	}
	fmt.Fprintln(d.errOut(), d.paint(c, text))
}

// once reports whether text was shown before, and records it.
func (d *Default) once(text string) bool {
	if d.shown == nil {
		d.shown = map[string]bool{}
	}
	seen := d.shown[text]
	d.shown[text] = true
	return seen
}

// Error implements run.Display: 2.19's [ERROR] block on stdout, after
// the banner of its task if that is still pending.
func (d *Default) Error(err error) {
	if d.Style == "oneline" {
		return
	}
	d.flushBanner()
	d.showError(d.Out, err)
}

// ControllerError implements run.Display: the [ERROR] block on stderr.
func (d *Default) ControllerError(err error) {
	d.showError(d.errOut(), err)
}

// showError writes an [ERROR] block unless the same text was shown
// before: like its warnings, ansible-core's display shows each error
// once (two hosts failing the same way show one block).
func (d *Default) showError(w io.Writer, err error) {
	text := strings.TrimSuffix(d.text.formatError(err), "\n")
	if d.once(text) {
		return
	}
	fmt.Fprint(w, d.paint(colorError, text)+"\n")
}

// FormatError renders an error as ansible-core 2.19 does, without colour.
func (d *Default) FormatError(err error) string { return d.text.formatError(err) }

// Recap implements run.Display.
func (d *Default) Recap(stats []*run.Stats) {
	if d.Style != "" {
		return
	}
	d.banner("PLAY RECAP")
	sorted := append([]*run.Stats(nil), stats...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Host < sorted[j].Host })
	for _, s := range sorted {
		fmt.Fprintf(d.Out, "%s : %s %s %s %s %s %s %s\n", d.hostColor(s),
			d.counter("ok", s.OK, colorOK), d.counter("changed", s.Changed, colorChanged),
			d.counter("unreachable", s.Unreachable, colorUnreachable), d.counter("failed", s.Failed, colorError),
			d.counter("skipped", s.Skipped, colorSkip), d.counter("rescued", s.Rescued, colorOK),
			d.counter("ignored", s.Ignored, colorWarn))
	}
	fmt.Fprintln(d.Out)
}

// CustomStats implements run.Display: set_stats data below
// the recap, one line per host and one for the run, each value dumped as
// the callback's _dump_results(indent=1) without its line breaks.
func (d *Default) CustomStats(hosts []string, perHost map[string]*value.Dict, runStats *value.Dict) {
	if d.Style != "" {
		return
	}
	d.banner("CUSTOM STATS: ")
	flat := func(v *value.Dict) string {
		return strings.ReplaceAll(value.JSON(v, value.JSONOptions{Indent: 1, SortKeys: true}), "\n", "")
	}
	for _, h := range hosts {
		fmt.Fprintf(d.Out, "\t%s: %s\n", h, flat(perHost[h]))
	}
	if runStats != nil {
		fmt.Fprintln(d.Out)
		fmt.Fprintf(d.Out, "\tRUN: %s\n", flat(runStats))
	}
	fmt.Fprintln(d.Out)
}

func (d *Default) hostColor(s *run.Stats) string {
	if !d.Color {
		return fmt.Sprintf("%-26s", s.Host)
	}
	c := colorOK
	switch {
	case s.Failed != 0 || s.Unreachable != 0:
		c = colorError
	case s.Changed != 0:
		c = colorChanged
	}
	return fmt.Sprintf("%-37s", d.paint(c, s.Host))
}

func (d *Default) counter(name string, n int, c []color.Attribute) string {
	s := fmt.Sprintf("%s=%-4d", name, n)
	if n != 0 {
		return d.paint(c, s)
	}
	return s
}
