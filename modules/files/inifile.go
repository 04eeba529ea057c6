package files

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// iniFakeSection is the section name ini_file puts above the first line so
// that the global section (options before any header) is a section like
// the others. It is the module's own constant, so an oddity of it (a
// section of that name in the file) behaves as in the original.
const iniFakeSection = "ad01e11446efb704fcdbdb21f2c43757423d91c5"

// iniFileDef is community.general.ini_file (plugins/modules/ini_file.py).
func iniFileDef() *moduleDef {
	return &moduleDef{name: "ini_file", checkMode: true, run: runIniFile, spec: &argspec.Spec{
		Options: withFileCommon(
			argspec.Option{Name: "path", Type: argspec.Path, Required: true, Aliases: []string{"dest"}},
			argspec.Option{Name: "section", Type: argspec.Str},
			argspec.Option{Name: "section_has_values", Type: argspec.List, Elements: argspec.Dict,
				Options: []argspec.Option{
					{Name: "option", Type: argspec.Str, Required: true},
					{Name: "value", Type: argspec.Str},
					{Name: "values", Type: argspec.List, Elements: argspec.Str},
				},
				Rules: argspec.Rules{MutuallyExclusive: [][]string{{"value", "values"}}}},
			argspec.Option{Name: "option", Type: argspec.Str},
			argspec.Option{Name: "value", Type: argspec.Str},
			argspec.Option{Name: "values", Type: argspec.List, Elements: argspec.Str},
			argspec.Option{Name: "backup", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "state", Type: argspec.Str, Default: "present", Choices: []any{"absent", "present"}},
			argspec.Option{Name: "exclusive", Type: argspec.Bool, Default: true},
			argspec.Option{Name: "no_extra_spaces", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "ignore_spaces", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "allow_no_value", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "modify_inactive_option", Type: argspec.Bool, Default: true},
			argspec.Option{Name: "create", Type: argspec.Bool, Default: true},
			argspec.Option{Name: "follow", Type: argspec.Bool, Default: false},
		),
		Rules: argspec.Rules{MutuallyExclusive: [][]string{{"value", "values"}}},
	}}
}

// iniFileEntry registers ini_file under its collection, and under the
// names ansible-core's runtime.yml redirects to it.
func iniFileEntry() module.Entry {
	d := iniFileDef()
	return module.Entry{FQCN: "community.general.ini_file",
		Aliases: []string{"ansible.builtin.ini_file", "ansible.legacy.ini_file"},
		Module:  module.Func(d.runTask)}
}

// iniCondition is one entry of section_has_values: a section qualifies
// when it has option set to one of values (any value when values is empty).
type iniCondition struct {
	option string
	values []string
}

// iniEdit is one ini_file run: the options that shape the edit.
type iniEdit struct {
	section, option                   string
	hasOption                         bool
	values                            []string
	conditions                        []iniCondition
	present, exclusive, allowNoValue  bool
	ignoreSpaces, modifyInactive      bool
	assignFormat                      func(opt, val string) string
	changed                           bool
	msg                               string
	optionNoValuePresent, withinFound bool
}

func runIniFile(m *amod) (*value.Dict, error) {
	e := newIniEdit(m)
	if e.present && !e.allowNoValue && len(e.values) == 0 {
		return nil, module.Fail("Parameter 'value(s)' must be defined if state=present and allow_no_value=False.")
	}
	path := m.p.Str("path")
	target := path
	if m.p.Bool("follow") && isLink(path) {
		target = py.Realpath(path)
	}
	diff := contentDiff(path)
	lines, err := readIniLines(m, target)
	if err != nil {
		return nil, err
	}
	if m.diff {
		diff.Set("before", strings.Join(lines, ""))
	}
	lines, err = e.apply(lines)
	if err != nil {
		return nil, err
	}
	if m.diff {
		diff.Set("after", strings.Join(lines, ""))
	}
	res := value.DictOf("changed", e.changed, "diff", diff, "msg", e.msg, "path", path)
	if e.changed && !m.check {
		if m.p.Bool("backup") {
			b, err := backupLocal(target, false)
			if err != nil {
				return nil, err
			}
			res.Set("backup_file", b)
		}
		abs, _ := filepath.Abs(target)
		if err := writeChanges(m, []byte(strings.Join(lines, "")), abs, false); err != nil {
			return nil, err
		}
	}
	if !m.check && exists(path) {
		changed, err := m.setFSAttributes(m.fileArgs(""), e.changed, nil)
		if err != nil {
			return nil, err
		}
		res.Set("changed", changed)
	}
	return res, nil
}

// newIniEdit reads the parameters as main() prepares them: value becomes
// values, duplicates go, and each condition gets its list of values.
func newIniEdit(m *amod) *iniEdit {
	e := &iniEdit{
		present: m.p.Str("state") == "present", exclusive: m.p.Bool("exclusive"),
		allowNoValue: m.p.Bool("allow_no_value"), ignoreSpaces: m.p.Bool("ignore_spaces"),
		modifyInactive: m.p.Bool("modify_inactive_option"), msg: "OK",
		assignFormat: func(o, v string) string { return o + " = " + v + "\n" },
	}
	if m.p.Bool("no_extra_spaces") {
		e.assignFormat = func(o, v string) string { return o + "=" + v + "\n" }
	}
	e.section, _ = m.str("section")
	e.option, e.hasOption = m.str("option")
	values := m.p.Strs("values")
	if v, ok := m.str("value"); ok {
		values = []string{v}
	}
	for _, v := range values {
		if !slices.Contains(e.values, v) {
			e.values = append(e.values, v)
		}
	}
	for _, c := range m.p.List("section_has_values") {
		d, _ := c.(*value.Dict)
		if d == nil {
			continue
		}
		cond := iniCondition{option: value.Str(d.Default("option", ""))}
		if v := d.Default("value", nil); v != nil {
			cond.values = []string{value.Str(v)}
		} else if l, ok := d.Default("values", nil).([]any); ok {
			for _, x := range l {
				cond.values = append(cond.values, value.Str(x))
			}
		}
		e.conditions = append(e.conditions, cond)
	}
	return e
}

// readIniLines reads the file as the module opens it (utf-8-sig, universal
// newlines, lines keeping their "\n"); a missing file is empty when create
// allows it, and its directory is made outside check mode.
func readIniLines(m *amod, target string) ([]string, error) {
	if !exists(target) {
		if !m.p.Bool("create") {
			return nil, module.Fail("Destination "+target+" does not exist!", "rc", 257)
		}
		if dir := filepath.Dir(target); dir != "" && !exists(dir) && !m.check {
			if err := os.MkdirAll(dir, 0o777); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	data, err := os.ReadFile(target)
	if err != nil {
		// An unreadable file (a directory) is the module's uncaught
		// OSError.
		return nil, errors.New(pyOSError(err))
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	var lines []string
	for _, l := range splitLinesKeep([]byte(text)) {
		lines = append(lines, string(l))
	}
	return lines, nil
}

// iniOptionMatch is one line read as "[#;] option = value": whether it is
// commented out, and the value (empty for a bare option).
type iniOptionMatch struct {
	commented bool
	value     string
}

// matchIniOption reads line as an assignment of option; inactive also
// accepts a line commented out with # or ;.
func matchIniOption(option, line string, inactive bool) (iniOptionMatch, bool) {
	comment := ""
	if inactive {
		comment = "([#;]?)"
	} else {
		comment = "()"
	}
	re := regexp.MustCompile(`^[ \t]*` + comment + `[ \t]*` + regexp.QuoteMeta(option) + `[ \t]*(=|$)[ \t]*(.*)`)
	sub := re.FindStringSubmatch(strings.TrimSuffix(line, "\n"))
	if sub == nil {
		return iniOptionMatch{}, false
	}
	return iniOptionMatch{commented: sub[1] != "", value: sub[3]}, true
}

var iniBlankOrComment = regexp.MustCompile(`^[ \t]*([#;].*)?$`)

// apply edits lines (do_ini) and returns the new ones.
func (e *iniEdit) apply(lines []string) ([]string, error) {
	if len(lines) == 0 {
		lines = []string{"\n"}
	}
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, "\n") {
		lines[len(lines)-1] = last + "\n"
		e.changed = true
	}
	lines = append(append([]string{"[" + iniFakeSection + "]"}, lines...), "[")
	section := e.section
	if section == "" {
		section = iniFakeSection
	}
	start, end := e.findSection(lines, section)
	before := slices.Clone(lines[:start])
	sectionLines := slices.Clone(lines[start:end])
	after := slices.Clone(lines[end:])
	if e.present {
		sectionLines = e.setOption(sectionLines)
	} else {
		sectionLines = e.removeOption(sectionLines)
	}
	lines = append(append(before, sectionLines...), after...)
	// Drop the first and the last line, which are the fake header and
	// "[" unless the fake (global) section itself was removed.
	lines = lines[1:]
	if len(lines) > 0 {
		lines = lines[:len(lines)-1]
	}
	if !e.withinFound && e.present {
		lines = e.addSection(lines, section)
	}
	return lines, nil
}

// findSection returns where the wanted section starts and ends: the first
// one whose lines satisfy section_has_values.
func (e *iniEdit) findSection(lines []string, section string) (int, int) {
	pattern := regexp.MustCompile(`^\[\s*` + regexp.QuoteMeta(strings.TrimSpace(section)) + `\s*]`)
	within := false
	start := 0
	for i, line := range lines {
		if within && strings.HasPrefix(line, "[") {
			if e.sectionQualifies(lines[start:i]) {
				e.withinFound = true
				return start, i
			}
			within, start = false, 0
		}
		if pattern.MatchString(line) {
			within, start = true, i
		}
	}
	return 0, 0
}

// sectionQualifies is check_section_has_values.
func (e *iniEdit) sectionQualifies(lines []string) bool {
	for _, c := range e.conditions {
		found := false
		for _, l := range lines {
			if m, ok := matchIniOption(c.option, l, true); ok && (len(c.values) == 0 || slices.Contains(c.values, m.value)) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// updateLine replaces section line i with newline (update_section_line):
// with ignore_spaces an active line whose value is unchanged stays.
func (e *iniEdit) updateLine(lines []string, touched []bool, i int, newline string) {
	optionChanged := lines[i] != newline
	if e.ignoreSpaces {
		if old, _ := matchIniOption(e.option, lines[i], true); !old.commented {
			nw, _ := matchIniOption(e.option, newline, true)
			optionChanged = old.value != nw.value
		}
	}
	if optionChanged {
		lines[i] = newline
		e.changed = true
		e.msg = "option changed"
	}
	touched[i] = true
}

// setOption is state=present inside the section: update matching lines,
// drop the extra ones when exclusive, insert what is missing.
func (e *iniEdit) setOption(lines []string) []string {
	touched := make([]bool, len(lines))
	values := e.values
	match := func(l string) (iniOptionMatch, bool) {
		if !e.hasOption {
			return iniOptionMatch{}, false
		}
		return matchIniOption(e.option, l, e.modifyInactive)
	}
	if e.hasOption && e.option != "" {
		for i, l := range lines {
			mt, ok := match(l)
			if !ok {
				continue
			}
			if len(values) > 0 && slices.Contains(values, mt.value) {
				newline := e.assignFormat(e.option, mt.value)
				if mt.value == "" && e.allowNoValue {
					newline = e.option + "\n"
					e.optionNoValuePresent = true
				}
				e.updateLine(lines, touched, i, newline)
				values = slices.Delete(values, slices.Index(values, mt.value), slices.Index(values, mt.value)+1)
			} else if len(values) == 0 && e.allowNoValue {
				e.updateLine(lines, touched, i, e.option+"\n")
				e.optionNoValuePresent = true
				break
			}
		}
	}
	if e.exclusive && !e.allowNoValue {
		for i, l := range lines {
			if len(values) == 0 {
				break
			}
			if _, ok := match(l); ok && !touched[i] {
				e.updateLine(lines, touched, i, e.assignFormat(e.option, values[0]))
				values = values[1:]
			}
		}
		for i := len(lines) - 1; i > 0; i-- {
			if _, ok := match(lines[i]); ok && !touched[i] {
				lines = slices.Delete(lines, i, i+1)
				touched = slices.Delete(touched, i, i+1)
				e.changed, e.msg = true, "option changed"
			}
		}
	}
	e.values = values
	return e.insertMissing(lines)
}

// insertMissing adds the values still missing after the section's last
// line that is neither blank nor a comment.
func (e *iniEdit) insertMissing(lines []string) []string {
	for i := len(lines); i > 0; i-- {
		if iniBlankOrComment.MatchString(strings.TrimSuffix(lines[i-1], "\n")) {
			continue
		}
		var add []string
		switch {
		case e.option != "" && len(e.values) > 0:
			for _, v := range e.values {
				add = append(add, e.assignFormat(e.option, v))
			}
		case e.option != "" && e.allowNoValue && !e.optionNoValuePresent:
			add = []string{e.option + "\n"}
		}
		if len(add) > 0 {
			lines = slices.Insert(lines, i, add...)
			e.changed, e.msg = true, "option added"
		}
		break
	}
	return lines
}

// removeOption is state=absent: remove the active option lines (those
// with one of values unless exclusive), or the whole section.
func (e *iniEdit) removeOption(lines []string) []string {
	if e.option == "" {
		if len(lines) > 0 {
			e.changed, e.msg = true, "section removed"
		}
		return nil
	}
	if !e.exclusive && len(e.values) == 0 {
		return lines
	}
	var kept []string
	for _, l := range lines {
		mt, ok := matchIniOption(e.option, l, false)
		if ok && (e.exclusive || slices.Contains(e.values, mt.value)) {
			continue
		}
		kept = append(kept, l)
	}
	if len(kept) != len(lines) {
		e.changed, e.msg = true, "option changed"
	}
	return kept
}

// addSection appends the missing section with its option and the options
// of section_has_values.
func (e *iniEdit) addSection(lines []string, section string) []string {
	lines = append(lines, "["+section+"]\n")
	e.msg = "section and option added"
	for _, c := range e.conditions {
		switch {
		case c.option != e.option && len(c.values) > 0:
			for _, v := range c.values {
				lines = append(lines, e.assignFormat(c.option, v))
			}
		case c.option != e.option && e.allowNoValue:
			lines = append(lines, c.option+"\n")
		case c.option == e.option && !e.exclusive:
			for _, v := range c.values {
				if !slices.Contains(e.values, v) {
					e.values = append(e.values, v)
				}
			}
		}
	}
	switch {
	case e.option != "" && len(e.values) > 0:
		for _, v := range e.values {
			lines = append(lines, e.assignFormat(e.option, v))
		}
	case e.option != "" && e.allowNoValue:
		lines = append(lines, e.option+"\n")
	default:
		e.msg = "only section added"
	}
	e.changed = true
	return lines
}
