package display

import (
	"fmt"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/fatih/color"
)

// noJSONModules are ansible-core's MODULE_NO_JSON: the minimal and
// oneline callbacks show their output as text.
var noJSONModules = map[string]bool{
	"ansible.builtin.command": true, "ansible.builtin.shell": true, "ansible.builtin.raw": true,
	"ansible.windows.win_command": true, "ansible.windows.win_shell": true,
}

// styleResult shows a result as ansible-core's minimal or oneline
// callback does: one message per task and host (loop items are not
// shown, only the loop's result).
func (d *Default) styleResult(ev *run.Event) {
	if ev.Item {
		return
	}
	if d.Style == "minimal" {
		d.warnings(ev.Result)
	}
	host := ev.Host
	res := ev.Result
	noJSON := noJSONModules[ev.Task.Info.FQCN]
	switch ev.Status {
	case run.StatusOK, run.StatusChanged:
		word, c := "SUCCESS", colorOK
		if ev.Status == run.StatusChanged || value.Truthy(res.Default("changed", false)) {
			word, c = "CHANGED", colorChanged
		}
		if d.Style == "minimal" {
			d.diff(ev)
		}
		if noJSON && !res.Has("ansible_job_id") {
			d.styleCommand(host, word, c, res)
			return
		}
		d.line(c, fmt.Sprintf("%s | %s => %s", host, word, d.styleDump(ev)))
	case run.StatusSkipped:
		d.line(colorSkip, host+" | SKIPPED")
	case run.StatusFailed:
		if value.Truthy(res.Default("unreachable", false)) {
			if d.Style == "oneline" {
				d.line(colorUnreachable, fmt.Sprintf("%s | UNREACHABLE!: %s", host, value.Str(res.Default("msg", ""))))
			} else {
				d.line(colorUnreachable, fmt.Sprintf("%s | UNREACHABLE! => %s", host, d.styleDump(ev)))
			}
			return
		}
		if d.Style == "oneline" {
			// A command's failure is its own (its result carries no
			// exception in ansible-core).
			if exc, ok := res.Get("exception"); ok && !noJSON {
				text := strings.TrimSpace(value.Str(stripInternal(exc)))
				if d.Verbose < 3 {
					lines := strings.Split(text, "\n")
					d.line(colorError, "An exception occurred during task execution. To see the full traceback, use -vvv. The error was: "+lines[len(lines)-1])
				} else {
					d.line(colorError, "An exception occurred during task execution. The full traceback is:\n"+strings.ReplaceAll(text, "\n", ""))
				}
			}
			if noJSON && !res.Has("module_stderr") {
				d.styleCommand(host, "FAILED", colorError, res)
			}
			d.line(colorError, fmt.Sprintf("%s | FAILED! => %s", host, d.styleDump(ev)))
			return
		}
		if noJSON && !res.Has("module_stderr") {
			d.styleCommand(host, "FAILED", colorError, res)
			return
		}
		d.line(colorError, fmt.Sprintf("%s | FAILED! => %s", host, d.styleDump(ev)))
	}
}

// styleCommand is the callbacks' _command_generic_msg.
func (d *Default) styleCommand(host, caption string, c []color.Attribute, res *value.Dict) {
	str := func(k string) string {
		v, ok := res.Get(k)
		if !ok {
			return ""
		}
		return value.Str(Mask(v))
	}
	rc := value.Str(res.Default("rc", -1))
	if d.Style == "oneline" {
		stdout := strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(str("stdout"))
		if e := str("stderr"); e != "" {
			stderr := strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(e)
			d.line(c, fmt.Sprintf("%s | %s | rc=%s | (stdout) %s (stderr) %s", host, caption, rc, stdout, stderr))
		} else {
			d.line(c, fmt.Sprintf("%s | %s | rc=%s | (stdout) %s", host, caption, rc, stdout))
		}
		return
	}
	// The message ends with a line break, so the display adds none.
	fmt.Fprint(d.Out, d.paint(c, fmt.Sprintf("%s | %s | rc=%s >>\n%s%s%s", host, caption, rc, str("stdout"), str("stderr"), str("msg")))+"\n")
}

// styleDump is _dump_results as the minimal callback (indent 4) and the
// oneline callback (indent 0, or 4 for a verbose result, on one line)
// call it.
func (d *Default) styleDump(ev *run.Event) string {
	// Only minimal cleans debug's result (_clean_results).
	res := d.cleanResultTrim(ev, d.Style == "minimal")
	if d.Style == "minimal" {
		return d.dumpIndent(res, 4)
	}
	indent := 0
	if value.Truthy(res.Default("_ansible_verbose_always", false)) || d.Verbose > 2 {
		indent = 4
	}
	text := d.dumpIndent(res, 4)
	if indent == 0 {
		// json.dumps(indent=0): a line break and no indentation between
		// items; joined into one line.
		lines := strings.Split(text, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimLeft(l, " ")
		}
		return strings.Join(lines, "")
	}
	return strings.ReplaceAll(text, "\n", "")
}
