package files

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/files/pyre"
)

// lineinfileDef is ansible.builtin.lineinfile (modules/lineinfile.py).
func lineinfileDef() *moduleDef {
	return &moduleDef{name: "lineinfile", checkMode: true, run: runLineinfile, spec: &argspec.Spec{
		Options: withFileCommon(
			argspec.Option{Name: "path", Type: argspec.Path, Required: true, Aliases: []string{"dest", "destfile", "name"}},
			argspec.Option{Name: "state", Type: argspec.Str, Default: "present", Choices: []any{"absent", "present"}},
			argspec.Option{Name: "regexp", Type: argspec.Str, Aliases: []string{"regex"}},
			argspec.Option{Name: "search_string", Type: argspec.Str},
			argspec.Option{Name: "line", Type: argspec.Str, Aliases: []string{"value"}},
			argspec.Option{Name: "insertafter", Type: argspec.Str},
			argspec.Option{Name: "insertbefore", Type: argspec.Str},
			argspec.Option{Name: "backrefs", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "create", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "backup", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "firstmatch", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "validate", Type: argspec.Str},
		),
		Rules: argspec.Rules{MutuallyExclusive: [][]string{
			{"insertbefore", "insertafter"}, {"regexp", "search_string"}, {"backrefs", "search_string"}}},
	}}
}

func runLineinfile(m *amod) (*value.Dict, error) {
	regexp, hasRegexp := m.str("regexp")
	search, hasSearch := m.str("search_string")
	if (hasRegexp && regexp == "") || (hasSearch && search == "") {
		name := "search string"
		extra := ""
		if hasRegexp && regexp == "" {
			name = "regular expression"
			extra = " If this is desired, use '^' to match every line in the file and avoid this warning."
		}
		m.warn("The " + name + " is an empty string, which will match every line in the file. " +
			"This may have unintended consequences, such as replacing the last line in the file rather than appending." + extra)
	}
	path := m.p.Str("path")
	if isDir(path) {
		return nil, module.Fail("Path "+path+" is a directory !", "rc", 256)
	}
	if m.p.Str("state") == "present" {
		if m.p.Bool("backrefs") && !hasRegexp {
			return nil, module.Fail("regexp is required with backrefs=true")
		}
		if _, ok := m.str("line"); !ok {
			return nil, module.Fail("line is required with state=present")
		}
		return lineinfilePresent(m, path)
	}
	if _, ok := m.str("line"); !ok && !hasRegexp && !hasSearch {
		return nil, module.Fail("one of line, search_string, or regexp is required with state=absent")
	}
	return lineinfileAbsent(m, path)
}

// contentDiff is the content part of a file module's diff.
func contentDiff(path string) *value.Dict {
	return value.DictOf("before", "", "after", "", "before_header", path+" (content)", "after_header", path+" (content)")
}

// readLines reads a file as Python's readlines(): each line keeps its
// "\n"; the last one may have none.
func readLines(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return splitLinesKeep(data), nil
}

func splitLinesKeep(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, data)
			break
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}

// lineState is what present() finds in the file.
type lineState struct {
	lines    [][]byte
	matchIdx int // the line the regexp or search string matched, or the exact line
	insIdx   int // where insertafter/insertbefore point
	match    []int
	matched  bool
	exact    bool
}

func lineinfilePresent(m *amod, path string) (*value.Dict, error) {
	diff := contentDiff(path)
	var lines [][]byte
	if !exists(path) {
		if !m.p.Bool("create") {
			return nil, module.Fail("Destination "+path+" does not exist !", "rc", 257)
		}
		if dir := filepath.Dir(path); dir != "" && !exists(dir) && !m.check {
			if err := os.MkdirAll(dir, 0o777); err != nil {
				return nil, module.Fail(fmt.Sprintf("Error creating %s (%s)", dir, pyOSError(err)))
			}
		}
	} else {
		var err error
		if lines, err = readLines(path); err != nil {
			return nil, err
		}
	}
	if m.diff {
		diff.Set("before", string(bytes.Join(lines, nil)))
	}
	st, err := scanForLine(m, lines)
	if err != nil {
		return nil, err
	}
	msg, changed := placeLine(m, st)
	if m.diff {
		diff.Set("after", string(bytes.Join(st.lines, nil)))
	}
	return finishLineEdit(m, path, st.lines, msg, changed, diff, nil)
}

// compileBytes compiles a module's pattern (a bytes pattern in Python).
func compileBytes(p string) (*py.Regexp, error) {
	re, err := pyre.Compile(p, pyre.Bytes)
	if err != nil {
		return nil, module.Fail(err.Error())
	}
	return re, nil
}

// scanForLine finds the regexp or search string match, else the exact
// line, and the insertafter/insertbefore position.
func scanForLine(m *amod, lines [][]byte) (*lineState, error) {
	st := &lineState{lines: lines, matchIdx: -1, insIdx: -1}
	line, _ := m.str("line")
	after, hasAfter := m.str("insertafter")
	before, hasBefore := m.str("insertbefore")
	if !hasAfter && !hasBefore {
		after, hasAfter = "EOF", true
	}
	var insRe *py.Regexp
	var err error
	switch {
	case hasAfter && after != "BOF" && after != "EOF":
		insRe, err = compileBytes(after)
	case hasBefore && before != "BOF":
		insRe, err = compileBytes(before)
	}
	if err != nil {
		return nil, err
	}
	firstmatch := m.p.Bool("firstmatch")
	if p, ok := m.str("regexp"); ok {
		re, err := compileBytes(p)
		if err != nil {
			return nil, err
		}
		for i, l := range lines {
			loc, err := re.FindSubmatchIndex(l)
			if err != nil {
				return nil, err
			}
			if loc != nil {
				st.matchIdx, st.match, st.matched = i, loc, true
				if firstmatch {
					break
				}
			}
		}
	}
	if s, ok := m.str("search_string"); ok {
		for i, l := range lines {
			if bytes.Contains(l, []byte(s)) {
				st.matchIdx, st.matched = i, true
				if firstmatch {
					break
				}
			}
		}
	}
	if st.matched {
		return st, nil
	}
	for i, l := range lines {
		if string(bytes.TrimRight(l, "\r\n")) == line {
			st.matchIdx, st.exact = i, true
		} else if insRe != nil && mustMatch(insRe, l, &err) {
			if hasAfter {
				st.insIdx = i + 1
			} else {
				st.insIdx = i
			}
			if firstmatch {
				break
			}
		}
	}
	return st, err
}

// mustMatch is re.Match(l), keeping the error of a match that timed out
// in *err (a match once one failed is false).
func mustMatch(re *py.Regexp, l []byte, err *error) bool {
	if *err != nil {
		return false
	}
	ok, e := re.Match(l)
	*err = e
	return ok
}

// placeLine edits st.lines as present() does and returns the message.
func placeLine(m *amod, st *lineState) (string, bool) {
	line, _ := m.str("line")
	withEOL := []byte(line + "\n")
	after, hasAfter := m.str("insertafter")
	before, hasBefore := m.str("insertbefore")
	if !hasAfter && !hasBefore {
		after, hasAfter = "EOF", true
	}
	lines := st.lines
	defer func() { st.lines = lines }()
	insert := func(at int) { lines = append(lines[:at], append([][]byte{withEOL}, lines[at:]...)...) }
	trimmed := func(i int) string { return string(bytes.TrimRight(lines[i], "\r\n")) }
	switch {
	case st.matchIdx != -1:
		newLine := []byte(line)
		if m.p.Bool("backrefs") && st.match != nil {
			newLine = []byte(expandBackrefs(m.p.Str("regexp"), line, lines[st.matchIdx], st.match))
		}
		if !bytes.HasSuffix(newLine, []byte("\n")) {
			newLine = append(newLine, '\n')
		}
		if bytes.Equal(lines[st.matchIdx], newLine) {
			return "", false
		}
		lines[st.matchIdx] = newLine
		return "line replaced", true
	case m.p.Bool("backrefs"):
		return "", false
	case (hasBefore && before == "BOF") || (hasAfter && after == "BOF"):
		insert(0)
	case (hasAfter && after == "EOF") || st.insIdx == -1:
		if n := len(lines); n > 0 && !endsWithEOL(lines[n-1]) {
			lines = append(lines, []byte("\n"))
		}
		lines = append(lines, withEOL)
	case hasAfter:
		if len(lines) == st.insIdx {
			if trimmed(st.insIdx-1) == line {
				return "", false
			}
			lines = append(lines, withEOL)
		} else if trimmed(st.insIdx) == line {
			return "", false
		} else {
			insert(st.insIdx)
		}
	default:
		insert(st.insIdx)
	}
	return "line added", true
}

// expandBackrefs is match.expand(line) for the regexp's match of cur.
func expandBackrefs(pattern, line string, cur []byte, match []int) string {
	re, err := pyre.Compile(pattern, pyre.Bytes)
	if err != nil {
		return line
	}
	t, err := py.ParseReplacement(line, re)
	if err != nil {
		return line
	}
	return t.Expand(string(cur), match)
}

func endsWithEOL(l []byte) bool {
	return len(l) > 0 && (l[len(l)-1] == '\n' || l[len(l)-1] == '\r')
}

// finishLineEdit writes the lines when they changed (with a backup), then
// applies the file attributes, as present() and absent() end.
func finishLineEdit(m *amod, path string, lines [][]byte, msg string, changed bool, diff *value.Dict, extra *value.Dict) (*value.Dict, error) {
	backup := ""
	if changed && !m.check {
		if m.p.Bool("backup") && exists(path) {
			b, err := backupLocal(path, false)
			if err != nil {
				return nil, err
			}
			backup = b
		}
		if err := writeChanges(m, bytes.Join(lines, nil), path, true); err != nil {
			return nil, err
		}
	}
	res := value.DictOf("changed", changed, "msg", msg, "backup", backup)
	if extra != nil {
		res.Update(extra)
	}
	if m.check && !exists(path) {
		res.Set("diff", diff)
		return res, nil
	}
	return res, finishWithAttributes(m, path, res, changed, msg, diff)
}

// finishWithAttributes applies the file attributes after an edit and sets
// the result's changed, msg and two-part diff (content, then attributes).
func finishWithAttributes(m *amod, path string, res *value.Dict, changed bool, msg string, diff *value.Dict) error {
	attrDiff := value.NewDict(4)
	msg, changed, err := checkFileAttrs(m, changed, msg, attrDiff)
	if err != nil {
		return err
	}
	attrDiff.Set("before_header", path+" (file attributes)")
	attrDiff.Set("after_header", path+" (file attributes)")
	res.Set("changed", changed)
	res.Set("msg", msg)
	res.Set("diff", []any{diff, attrDiff})
	return nil
}

// checkFileAttrs applies the file attributes after an edit and extends the
// message (check_file_attrs).
func checkFileAttrs(m *amod, changed bool, msg string, diff *value.Dict) (string, bool, error) {
	fa := m.fileArgs("")
	ch, err := m.setFSAttributes(fa, false, diff)
	if err != nil {
		return msg, changed, err
	}
	if ch {
		if changed {
			msg += " and "
		}
		changed = true
		msg += "ownership, perms or SE linux context changed"
	}
	return msg, changed, nil
}

// writeChanges writes content to a temporary file, validates it when the
// module has `validate`, and moves it over path (write_changes). With
// resolve, a symlinked path is written through to its target.
func writeChanges(m *amod, content []byte, path string, resolve bool) error {
	if resolve {
		path = py.Realpath(path)
	}
	tmp, err := writeTempBeside(filepath.Dir(path), content)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if validate, ok := m.str("validate"); ok {
		if !bytesContainsPercentS(validate) {
			return module.Fail("validate must contain %s: " + validate)
		}
		out, err := runCommand(m.req, pyPercentS(validate, tmp))
		if err != nil {
			return err
		}
		if out.rc != 0 {
			return module.Fail(fmt.Sprintf("failed to validate: rc:%d error:%s", out.rc, out.stderr))
		}
	}
	return atomicMove(tmp, path, m.p.Bool("unsafe_writes"), true)
}

func bytesContainsPercentS(s string) bool { return bytes.Contains([]byte(s), []byte("%s")) }

// lineinfileAbsent removes every line that matches the regexp, contains
// the search string, or equals line (absent()).
func lineinfileAbsent(m *amod, path string) (*value.Dict, error) {
	if !exists(path) {
		return value.DictOf("changed", false, "msg", "file not present"), nil
	}
	diff := contentDiff(path)
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	if m.diff {
		diff.Set("before", string(bytes.Join(lines, nil)))
	}
	matches, err := absentMatcher(m)
	if err != nil {
		return nil, err
	}
	var kept [][]byte
	found := 0
	for _, l := range lines {
		ok, err := matches(l)
		if err != nil {
			return nil, err
		}
		if ok {
			found++
		} else {
			kept = append(kept, l)
		}
	}
	if m.diff {
		diff.Set("after", string(bytes.Join(kept, nil)))
	}
	msg := ""
	if found > 0 {
		msg = fmt.Sprintf("%d line(s) removed", found)
	}
	return finishLineEdit(m, path, kept, msg, found > 0, diff, value.DictOf("found", found))
}

// absentMatcher is the test absent() applies to each line.
func absentMatcher(m *amod) (func([]byte) (bool, error), error) {
	if p, ok := m.str("regexp"); ok {
		re, err := compileBytes(p)
		if err != nil {
			return nil, err
		}
		return re.Match, nil
	}
	if s, ok := m.str("search_string"); ok {
		return func(l []byte) (bool, error) { return bytes.Contains(l, []byte(s)), nil }, nil
	}
	line, _ := m.str("line")
	return func(l []byte) (bool, error) { return string(bytes.TrimRight(l, "\r\n")) == line, nil }, nil
}
