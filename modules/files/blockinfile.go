package files

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/files/pyre"
)

// blockinfileDef is ansible.builtin.blockinfile (modules/blockinfile.py).
func blockinfileDef() *moduleDef {
	return &moduleDef{name: "blockinfile", checkMode: true, run: runBlockinfile, spec: &argspec.Spec{
		Options: withFileCommon(
			argspec.Option{Name: "path", Type: argspec.Path, Required: true, Aliases: []string{"dest", "destfile", "name"}},
			argspec.Option{Name: "state", Type: argspec.Str, Default: "present", Choices: []any{"absent", "present"}},
			argspec.Option{Name: "marker", Type: argspec.Str, Default: "# {mark} ANSIBLE MANAGED BLOCK"},
			argspec.Option{Name: "block", Type: argspec.Str, Default: "", Aliases: []string{"content"}},
			argspec.Option{Name: "insertafter", Type: argspec.Str},
			argspec.Option{Name: "insertbefore", Type: argspec.Str},
			argspec.Option{Name: "create", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "backup", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "validate", Type: argspec.Str},
			argspec.Option{Name: "marker_begin", Type: argspec.Str, Default: "BEGIN"},
			argspec.Option{Name: "marker_end", Type: argspec.Str, Default: "END"},
			argspec.Option{Name: "append_newline", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "prepend_newline", Type: argspec.Bool, Default: false},
		),
		Rules: argspec.Rules{MutuallyExclusive: [][]string{{"insertbefore", "insertafter"}}},
	}}
}

func runBlockinfile(m *amod) (*value.Dict, error) {
	path := m.p.Str("path")
	if isDir(path) {
		return nil, module.Fail("Path "+path+" is a directory !", "rc", 256)
	}
	pathExists := exists(path)
	var original []byte
	var lines [][]byte
	if !pathExists {
		if !m.p.Bool("create") {
			return nil, module.Fail("Path "+path+" does not exist !", "rc", 257)
		}
		if dir := filepath.Dir(path); dir != "" && !exists(dir) && !m.check {
			if err := os.MkdirAll(dir, 0o777); err != nil {
				return nil, module.Fail(fmt.Sprintf("Error creating %s Error code: %d Error description: %s", dir, errnoOf(err), strerrorOf(err)))
			}
		}
	} else {
		var err error
		if original, err = os.ReadFile(path); err != nil {
			return nil, err
		}
		lines = pySplitlinesKeep(original)
	}
	diff := value.DictOf("before", "", "after", "", "before_header", path+" (content)", "after_header", path+" (content)")
	if m.diff && len(original) > 0 {
		diff.Set("before", string(original))
	}
	present := m.p.Str("state") == "present"
	if !present && !pathExists {
		return value.DictOf("changed", false, "msg", "File "+path+" not present"), nil
	}
	result, blockLen, err := placeBlock(m, lines, original, present)
	if err != nil {
		return nil, err
	}
	if m.diff {
		diff.Set("after", string(result))
	}
	msg, changed := "", true
	switch {
	case pathExists && bytes.Equal(original, result):
		changed = false
	case !pathExists:
		msg = "File created"
	case blockLen == 0:
		msg = "Block removed"
	default:
		msg = "Block inserted"
	}
	return finishBlock(m, path, pathExists, result, msg, changed, diff)
}

// finishBlock writes the result and applies the file attributes.
func finishBlock(m *amod, path string, pathExists bool, result []byte, msg string, changed bool, diff *value.Dict) (*value.Dict, error) {
	backupFile := ""
	if changed && !m.check {
		if m.p.Bool("backup") && pathExists {
			b, err := backupLocal(path, false)
			if err != nil {
				return nil, err
			}
			backupFile = b
		}
		if err := writeChanges(m, result, path, true); err != nil {
			return nil, err
		}
	}
	if m.check && !pathExists {
		return value.DictOf("changed", changed, "msg", msg, "diff", diff), nil
	}
	res := value.NewDict(4)
	if err := finishWithAttributes(m, path, res, changed, msg, diff); err != nil {
		return nil, err
	}
	if backupFile != "" {
		res.Set("backup_file", backupFile)
	}
	return res, nil
}

// placeBlock removes the old block (between the markers) and puts the new
// one where it was, or after insertafter / before insertbefore. It
// returns the new content and the number of block lines written.
func placeBlock(m *amod, lines [][]byte, original []byte, present bool) ([]byte, int, error) {
	marker := m.p.Str("marker")
	marker0 := []byte(strings.ReplaceAll(marker, "{mark}", m.p.Str("marker_begin")) + "\n")
	marker1 := []byte(strings.ReplaceAll(marker, "{mark}", m.p.Str("marker_end")) + "\n")
	var blockLines [][]byte
	if block := m.p.Str("block"); present && block != "" {
		if !strings.HasSuffix(block, "\n") {
			block += "\n"
		}
		blockLines = append([][]byte{marker0}, pySplitlinesKeep([]byte(block))...)
		blockLines = append(blockLines, marker1)
	}
	n0, n1 := -1, -1
	for i, l := range lines {
		if bytes.Equal(l, marker0) {
			n0 = i
		}
		if bytes.Equal(l, marker1) {
			n1 = i
		}
	}
	var at int
	switch {
	case n0 < 0 || n1 < 0:
		var err error
		if at, err = insertionPoint(m, lines, original); err != nil {
			return nil, 0, err
		}
	case n0 < n1:
		lines = append(lines[:n0], lines[n1+1:]...)
		at = n0
	default:
		lines = append(lines[:n1], lines[n0+1:]...)
		at = n1
	}
	if at > 0 && !bytes.HasSuffix(lines[at-1], []byte("\n")) {
		lines[at-1] = append(append([]byte(nil), lines[at-1]...), '\n')
	}
	if m.p.Bool("prepend_newline") && present && at != 0 && !bytes.Equal(lines[at-1], []byte("\n")) {
		lines = insertLines(lines, at, [][]byte{[]byte("\n")})
		at++
	}
	lines = insertLines(lines, at, blockLines)
	if m.p.Bool("append_newline") && present {
		after := at + len(blockLines)
		if after < len(lines) && !bytes.Equal(lines[after], []byte("\n")) {
			lines = insertLines(lines, after, [][]byte{[]byte("\n")})
		}
	}
	return bytes.Join(lines, nil), len(blockLines), nil
}

func insertLines(lines [][]byte, at int, add [][]byte) [][]byte {
	out := make([][]byte, 0, len(lines)+len(add))
	out = append(out, lines[:at]...)
	out = append(out, add...)
	return append(out, lines[at:]...)
}

// insertionPoint is where a block without markers in the file goes.
func insertionPoint(m *amod, lines [][]byte, original []byte) (int, error) {
	after, hasAfter := m.str("insertafter")
	before, hasBefore := m.str("insertbefore")
	if !hasAfter && !hasBefore {
		after, hasAfter = "EOF", true
	}
	var pattern string
	switch {
	case hasAfter && after != "EOF":
		pattern = after
	case hasBefore && before != "BOF":
		pattern = before
	case hasBefore:
		return 0, nil
	default:
		return len(lines), nil
	}
	re, err := compileBytes(pattern)
	if err != nil {
		return 0, err
	}
	n0 := -1
	if pyre.IsMultiline(pattern) {
		loc, err := re.FindIndex(original)
		if err != nil {
			return 0, err
		}
		if loc != nil {
			if hasAfter {
				n0 = bytes.Count(original[:loc[1]], []byte("\n"))
			} else {
				n0 = bytes.Count(original[:loc[0]], []byte("\n"))
			}
		}
	} else {
		for i, l := range lines {
			ok, err := re.Match(l)
			if err != nil {
				return 0, err
			}
			if ok {
				n0 = i
			}
		}
	}
	switch {
	case n0 < 0:
		return len(lines), nil
	case hasAfter:
		return n0 + 1, nil
	}
	return n0, nil
}

// pySplitlinesKeep is bytes.splitlines(True): lines end at \n, \r or
// \r\n and keep their end.
func pySplitlinesKeep(data []byte) [][]byte {
	var out [][]byte
	start := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '\n':
			out = append(out, data[start:i+1])
			start = i + 1
		case '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			out = append(out, data[start:i+1])
			start = i + 1
		}
	}
	if start < len(data) {
		out = append(out, data[start:])
	}
	return out
}
