package files

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/files/pyre"
)

// iniFileDef is community.general.ini_file (plugins/modules/ini_file.py),
// which ansible-core also routes the short name ini_file to.
func iniFileDef() *moduleDef {
	return &moduleDef{name: "ini_file", checkMode: true, run: runIniFile, spec: &argspec.Spec{
		Options: withFileCommon(
			argspec.Option{Name: "path", Type: argspec.Path, Required: true, Aliases: []string{"dest"}},
			argspec.Option{Name: "section", Type: argspec.Str},
			argspec.Option{Name: "section_has_values", Type: argspec.List, Elements: argspec.Dict},
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

// iniFileEntry registers ini_file under its collection's name.
func iniFileEntry() module.Entry {
	e := iniFileDef().entry()
	e.FQCN = "community.general.ini_file"
	return e
}

// iniFakeSection is the section name ini_file puts around the lines
// before the first section, so that options without a section live in it.
const iniFakeSection = "ad01e11446efb704fcdbdb21f2c43757423d91c5"

// iniEdit is one ini_file run over the lines of a file.
type iniEdit struct {
	option                             string
	values                             []string
	exclusive, allowNoValue, ignoreSp  bool
	match                              func(option, line string) []string
	changed                            bool
	msg                                string
	assignment                         string
	section, changedLines              []string
	noValuePresent                     bool
	lines                              []string
	sectionStart, sectionEnd, withinAt int
}

func runIniFile(m *amod) (*value.Dict, error) {
	path := m.p.Str("path")
	value1, hasValue := m.str("value")
	values := m.p.Strs("values")
	state := m.p.Str("state")
	if state == "present" && !m.p.Bool("allow_no_value") && !hasValue && len(values) == 0 {
		return nil, fail("Parameter 'value(s)' must be defined if state=present and allow_no_value=False.")
	}
	if hasValue {
		values = []string{value1}
	}
	changed, backup, diff, msg, err := doIni(m, path, values)
	if err != nil {
		return nil, err
	}
	if !m.check && exists(path) {
		if changed, err = m.setFSAttributes(m.fileArgs(""), changed, nil); err != nil {
			return nil, err
		}
	}
	res := value.DictOf("changed", changed, "diff", diff, "msg", msg, "path", path)
	if backup != "" {
		res.Set("backup_file", backup)
	}
	return res, nil
}

// doIni is ini_file's do_ini: it finds the section, edits the option's
// lines in it (or drops the section), adds what is missing and writes the
// file back when anything changed.
func doIni(m *amod, filename string, values []string) (bool, string, *value.Dict, string, error) {
	var uniq []string
	for _, v := range values {
		if !slices.Contains(uniq, v) {
			uniq = append(uniq, v)
		}
	}
	diff := value.DictOf("before", "", "after", "", "before_header", filename+" (content)", "after_header", filename+" (content)")
	target := filename
	if m.p.Bool("follow") {
		if fi, err := os.Lstat(filename); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			target = py.Realpath(filename)
		}
	}
	lines, err := readIniLines(m, target)
	if err != nil {
		return false, "", nil, "", err
	}
	if m.diff {
		diff.Set("before", strings.Join(lines, ""))
	}
	e := &iniEdit{values: uniq, exclusive: m.p.Bool("exclusive"), allowNoValue: m.p.Bool("allow_no_value"),
		ignoreSp: m.p.Bool("ignore_spaces"), msg: "OK", assignment: "%s = %s\n"}
	e.option, _ = m.str("option")
	if m.p.Bool("no_extra_spaces") {
		e.assignment = "%s=%s\n"
	}
	e.match = iniMatchOpt
	if !m.p.Bool("modify_inactive_option") {
		e.match = iniMatchActiveOpt
	}
	if len(lines) == 0 {
		lines = append(lines, "\n")
	}
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, "\n") {
		lines[len(lines)-1] += "\n"
		e.changed = true
	}
	section, _ := m.str("section")
	within := e.split(append(append([]string{"[" + iniFakeSection + "]"}, lines...), "["), section)
	state := m.p.Str("state")
	if state == "present" {
		e.present()
	} else {
		e.absent()
	}
	out := append(append(slices.Clone(e.lines[:e.sectionStart]), e.section...), e.lines[e.sectionEnd:]...)
	out = out[1 : len(out)-1]
	if !within && state == "present" {
		out = e.addSection(out, section)
	}
	if m.diff {
		diff.Set("after", strings.Join(out, ""))
	}
	backup := ""
	if e.changed && !m.check {
		if m.p.Bool("backup") && exists(target) {
			if backup, err = backupLocal(target, false); err != nil {
				return false, "", nil, "", err
			}
		}
		if err := writeIniFile(m, target, strings.Join(out, "")); err != nil {
			return false, "", nil, "", err
		}
	}
	return e.changed, backup, diff, e.msg, nil
}

// readIniLines reads the file's lines (with their newlines, CRLF read as
// LF and a UTF-8 BOM dropped, as Python's text mode with utf-8-sig does);
// a missing file is no lines, or the failure when create is off.
func readIniLines(m *amod, target string) ([]string, error) {
	data, err := os.ReadFile(target)
	if os.IsNotExist(err) {
		if !m.p.Bool("create") {
			return nil, fail("Destination "+target+" does not exist!", "rc", 257)
		}
		if dir := filepath.Dir(target); !exists(dir) && !m.check {
			if err := os.MkdirAll(dir, 0o777); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	return strings.SplitAfter(text, "\n")[:strings.Count(text, "\n")+boolInt(!strings.HasSuffix(text, "\n") && text != "")], nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// writeIniFile writes the new content beside the file and moves it in.
func writeIniFile(m *amod, target, content string) error {
	abs, err := filepath.Abs(target)
	if err != nil {
		return err
	}
	tmp, err := writeTempBeside(filepath.Dir(abs), []byte(content))
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	return atomicMove(tmp, abs, m.p.Bool("unsafe_writes"), true)
}

// split finds the section's lines in lines (the fake sections added) and
// reports whether the section was found.
func (e *iniEdit) split(lines []string, section string) bool {
	e.lines = lines
	if section == "" {
		section = iniFakeSection
	}
	pattern := regexp.MustCompile(`^\[\s*` + regexp.QuoteMeta(strings.TrimSpace(section)) + `\s*]`)
	within := false
	for i, line := range lines {
		if within && strings.HasPrefix(line, "[") {
			e.sectionEnd = i
			break
		}
		if pattern.MatchString(line) {
			within, e.sectionStart = true, i
		}
	}
	e.section = slices.Clone(lines[e.sectionStart:e.sectionEnd])
	e.changedLines = make([]string, len(e.section))
	return within
}

// present edits the option's lines of the section and adds the values
// still missing after its last non-blank, non-comment line.
func (e *iniEdit) present() {
	if e.option != "" {
		e.presentMatching()
	}
	if e.exclusive && !e.allowNoValue {
		e.presentExclusive()
	}
	for i := len(e.section); i > 0; i-- {
		if iniBlankOrComment.MatchString(strings.TrimSuffix(e.section[i-1], "\n")) {
			continue
		}
		switch {
		case e.option != "" && len(e.values) > 0:
			for j := len(e.values) - 1; j >= 0; j-- {
				e.section = slices.Insert(e.section, i, iniAssign(e.assignment, e.option, e.values[j]))
				e.msg, e.changed = "option added", true
			}
		case e.option != "" && len(e.values) == 0 && e.allowNoValue && !e.noValuePresent:
			e.section = slices.Insert(e.section, i, e.option+"\n")
			e.msg, e.changed = "option added", true
		}
		break
	}
}

// presentMatching rewrites the lines whose value is one of the values
// (or, without values and with allow_no_value, the first option line).
func (e *iniEdit) presentMatching() {
	for i, line := range e.section {
		g := e.match(e.option, line)
		if g == nil {
			continue
		}
		if len(e.values) > 0 && slices.Contains(e.values, g[8]) {
			newline := iniAssign(e.assignment, e.option, g[8])
			if g[8] == "" && e.allowNoValue {
				newline, e.noValuePresent = e.option+"\n", true
			}
			e.update(i, newline)
			e.values = slices.Delete(e.values, slices.Index(e.values, g[8]), slices.Index(e.values, g[8])+1)
		} else if len(e.values) == 0 && e.allowNoValue {
			e.update(i, e.option+"\n")
			e.noValuePresent = true
			break
		}
	}
}

// presentExclusive gives the remaining values to the other option lines
// and deletes the option lines left over.
func (e *iniEdit) presentExclusive() {
	if len(e.values) > 0 {
		for i, line := range e.section {
			if e.changedLines[i] == "" && e.match(e.option, line) != nil {
				v := e.values[0]
				e.values = e.values[1:]
				e.update(i, iniAssign(e.assignment, e.option, v))
				if len(e.values) == 0 {
					break
				}
			}
		}
	}
	for i := len(e.section) - 1; i > 0; i-- {
		if e.changedLines[i] == "" && e.match(e.option, e.section[i]) != nil {
			e.section = slices.Delete(e.section, i, i+1)
			e.changedLines = slices.Delete(e.changedLines, i, i+1)
			e.msg, e.changed = "option changed", true
		}
	}
}

// update is update_section_line: it replaces line i, comparing the values
// only when ignore_spaces is set and the old line is active.
func (e *iniEdit) update(i int, newline string) {
	changed, decided := false, false
	if e.ignoreSp {
		if old := iniMatchOpt(e.option, e.section[i]); old[2] == "" {
			changed, decided = old[8] != iniMatchOpt(e.option, newline)[8], true
		}
	}
	if !decided {
		changed = e.section[i] != newline
	}
	if changed {
		e.section[i] = newline
		e.msg, e.changed = "option changed", true
	}
	e.changedLines[i] = "1"
}

// absent deletes the option's active lines (all of them, or with
// exclusive off those holding one of the values), or the whole section
// when no option is given.
func (e *iniEdit) absent() {
	if e.option == "" {
		if len(e.section) > 0 {
			e.section, e.msg, e.changed = nil, "section removed", true
		}
		return
	}
	if !e.exclusive && len(e.values) == 0 {
		return
	}
	kept := slices.DeleteFunc(slices.Clone(e.section), func(line string) bool {
		g := iniMatchActiveOpt(e.option, line)
		return g != nil && (e.exclusive || slices.Contains(e.values, g[8]))
	})
	if !slices.Equal(kept, e.section) {
		e.section, e.msg, e.changed = kept, "option changed", true
	}
}

// addSection appends the missing section with the option's lines.
func (e *iniEdit) addSection(out []string, section string) []string {
	if section == "" {
		section = iniFakeSection
	}
	out = append(out, "["+section+"]\n")
	e.msg, e.changed = "section and option added", true
	switch {
	case e.option != "" && len(e.values) > 0:
		for _, v := range e.values {
			out = append(out, iniAssign(e.assignment, e.option, v))
		}
	case e.option != "" && e.allowNoValue:
		out = append(out, e.option+"\n")
	default:
		e.msg = "only section added"
	}
	return out
}

func iniAssign(format, option, v string) string {
	return strings.Replace(strings.Replace(format, "%s", option, 1), "%s", v, 1)
}

// iniBlankOrComment is a blank or comment line (without its newline).
var iniBlankOrComment = regexp.MustCompile(`^[ \t]*([#;].*)?$`)

// iniMatchOpt is match_opt: the option's line, active or commented out;
// the groups are Python's (index 2 the comment mark, 8 the value).
func iniMatchOpt(option, line string) []string {
	return iniMatch(`^( |\t)*([#;]?)( |\t)*(`, option, line)
}

// iniMatchActiveOpt is match_active_opt: the option's active line.
func iniMatchActiveOpt(option, line string) []string {
	return iniMatch(`^()()( |\t)*(`, option, line)
}

func iniMatch(prefix, option, line string) []string {
	re, err := pyre.Compile(prefix+regexp.QuoteMeta(option)+`)( |\t)*(=|$)( |\t)*(.*)`, pyre.Text)
	if err != nil {
		return nil
	}
	return re.FindStringSubmatch(line)
}
