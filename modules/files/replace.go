package files

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/files/pyre"
)

// replaceDef is ansible.builtin.replace (modules/replace.py).
func replaceDef() *moduleDef {
	return &moduleDef{name: "replace", checkMode: true, run: runReplace, spec: &argspec.Spec{Options: withFileCommon(
		argspec.Option{Name: "path", Type: argspec.Path, Required: true, Aliases: []string{"dest", "destfile", "name"}},
		argspec.Option{Name: "regexp", Type: argspec.Str, Required: true},
		argspec.Option{Name: "replace", Type: argspec.Str, Default: ""},
		argspec.Option{Name: "after", Type: argspec.Str},
		argspec.Option{Name: "before", Type: argspec.Str},
		argspec.Option{Name: "backup", Type: argspec.Bool, Default: false},
		argspec.Option{Name: "validate", Type: argspec.Str},
		argspec.Option{Name: "encoding", Type: argspec.Str, Default: "utf-8"},
	)}}
}

func runReplace(m *amod) (*value.Dict, error) {
	path := m.p.Str("path")
	res := value.DictOf("rc", 0)
	if isDir(path) {
		return nil, module.Fail("Path "+path+" is a directory !", "rc", 256)
	}
	if !exists(path) {
		return nil, module.Fail("Path "+path+" does not exist !", "rc", 257)
	}
	enc := strings.ToLower(strings.ReplaceAll(m.p.Str("encoding"), "_", "-"))
	if enc != "utf-8" && enc != "utf8" && enc != "ascii" {
		return nil, module.Fail("encoding " + m.p.Str("encoding") + " is not supported by cfzt-runner (utf-8 and ascii are)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("Unable to read the contents of %s.", value.Repr(path))
	}
	if !utf8.Valid(data) {
		return nil, module.Fail(fmt.Sprintf("'utf-8' codec can't decode the contents of %s", value.Repr(path)))
	}
	contents := string(data)
	section, start, end, pattern, ok, err := replaceSection(m, contents)
	if err != nil {
		return nil, err
	}
	if !ok {
		res.Set("msg", "Pattern for before/after params did not match the given file: "+pattern)
		res.Set("changed", false)
		return res, nil
	}
	re, err := pyre.Compile(m.p.Str("regexp"), pyre.Text|pyre.Multiline)
	if err != nil {
		return nil, module.Fail("Unable to process replace due to error: " + err.Error())
	}
	tmpl, err := py.ParseReplacement(m.p.Str("replace"), re)
	if err != nil {
		return nil, module.Fail("Unable to process replace due to error: " + err.Error())
	}
	replaced, count, err := pyre.Sub(re, tmpl, section)
	if err != nil {
		return nil, module.Fail("Unable to process replace due to error: " + err.Error())
	}
	msg, changed := "", false
	if count > 0 && replaced != section {
		result := contents[:start] + replaced + contents[end:]
		msg, changed = fmt.Sprintf("%d replacements made", count), true
		if m.diff {
			res.Set("diff", value.DictOf("before_header", path, "before", contents, "after_header", path, "after", result))
		}
		if !m.check {
			if m.p.Bool("backup") && exists(path) {
				b, err := backupLocal(path, false)
				if err != nil {
					return nil, err
				}
				res.Set("backup_file", b)
			}
			if err := writeChanges(m, []byte(result), path, true); err != nil {
				return nil, err
			}
		}
	}
	msg, changed, err = checkFileAttrs(m, changed, msg, nil)
	if err != nil {
		return nil, err
	}
	res.Set("msg", msg)
	res.Set("changed", changed)
	return res, nil
}

// replaceSection narrows the contents to what lies between after and
// before (each optional); ok is false when they do not match.
func replaceSection(m *amod, contents string) (section string, start, end int, pattern string, ok bool, err error) {
	after, _ := m.str("after")
	before, _ := m.str("before")
	switch {
	case after != "" && before != "":
		pattern = after + "(?P<subsection>.*?)" + before
	case after != "":
		pattern = after + "(?P<subsection>.*)"
	case before != "":
		pattern = "(?P<subsection>.*)" + before
	default:
		return contents, 0, len(contents), "", true, nil
	}
	re, cerr := pyre.Compile(pattern, pyre.Text|pyre.DotAll)
	if cerr != nil {
		return "", 0, 0, pattern, false, module.Fail("Unable to process replace due to error: " + cerr.Error())
	}
	loc, merr := re.FindStringSubmatchIndex(contents)
	if merr != nil {
		return "", 0, 0, pattern, false, module.Fail("Unable to process replace due to error: " + merr.Error())
	}
	if loc == nil {
		return "", 0, 0, pattern, false, nil
	}
	g := re.SubexpIndex("subsection")
	start, end = loc[2*g], loc[2*g+1]
	return contents[start:end], start, end, pattern, true, nil
}
