package template

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// fileLookups returns ansible-core's lookups of files on the controller.
func fileLookups() family {
	return family{collection: "ansible.builtin", lookups: map[string]LookupFunc{
		"file":     lookupFile,
		"fileglob": lookupFileglob,
		"template": lookupTemplate,
	}}
}

// readTextFile reads a file as the loader's get_text_file_contents does,
// with Python's wording for a failure.
func readTextFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", Errorf("An error occurred while trying to read the file '%s': %s", path, py.OSErrorText(err, path))
	}
	return string(b), nil
}

func lookupFile(c *Ctx, terms []any, a *Args) ([]any, error) {
	opts, err := lookupOptions(c, "file", a)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		name := value.Str(t)
		fail := func(cause string) error {
			return Errorf("Unable to access the file %s: %s", value.Repr(name), cause)
		}
		p := c.findFile("files", name, true)
		if p == "" {
			return nil, fail("File not found. Use -vvvvv to see paths searched.")
		}
		s, err := readTextFile(p)
		if err != nil {
			return nil, fail(err.Error())
		}
		if opts["lstrip"] == true {
			s = strings.TrimLeftFunc(s, py.IsSpace)
		}
		if opts["rstrip"] == true {
			s = strings.TrimRightFunc(s, py.IsSpace)
		}
		out = append(out, s)
	}
	return out, nil
}

// lookupTemplate renders template files found under templates/ on the
// search path, with the task's variables, the template_* variables and
// template_vars on top.
func lookupTemplate(c *Ctx, terms []any, a *Args) ([]any, error) {
	opts, err := lookupOptions(c, "template", a)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		name := value.Str(t)
		p := c.findFile("templates", name, false)
		if p == "" {
			return nil, Errorf("the template file %s could not be found for the lookup", name)
		}
		src, err := readTextFile(p)
		if err != nil {
			return nil, err
		}
		locals := templateVars(c, name, p)
		if tv, ok := opts["template_vars"].(*value.Dict); ok {
			locals.Update(tv)
		}
		res, err := c.renderFile(src, locals, templateDialect(opts))
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// templateDialect is the template lookup's delimiter and trim_blocks
// options as the lexer takes them.
func templateDialect(opts map[string]any) syntax.Dialect {
	str := func(k string) string { s, _ := opts[k].(string); return s }
	return syntax.Dialect{
		VariableStart: str("variable_start_string"), VariableEnd: str("variable_end_string"),
		CommentStart: str("comment_start_string"), CommentEnd: str("comment_end_string"),
		KeepBlockNewlines: opts["trim_blocks"] == false,
	}
}

// templateVars are the template_* variables ansible-core adds for a
// template file (generate_ansible_template_vars), and ansible_managed
// unless the task's variables set it.
func templateVars(c *Ctx, name, path string) *value.Dict {
	d := value.NewDict(8)
	d.Set("template_path", name)
	d.Set("template_fullpath", path)
	d.Set("template_destpath", nil)
	host, _ := os.Hostname()
	d.Set("template_host", host)
	st, err := os.Stat(path)
	if err != nil {
		return d
	}
	d.Set("template_mtime", &py.Datetime{Time: st.ModTime()})
	d.Set("template_uid", fileOwner(st))
	d.Set("template_run_date", &py.Datetime{Time: c.eng.Now()})
	if _, set, _ := c.vars.Lookup("ansible_managed"); !set {
		managed, _, err := c.eng.Settings.Core("DEFAULT_MANAGED_STR")
		if err == nil {
			// The setting may name {host}, {uid} and {file}, which become
			// templates over the template_* variables, and strftime fields
			// for the file's modification time.
			s := strings.NewReplacer("{host}", "{{ template_host }}", "{uid}", "{{ template_uid }}", "{file}", "{{ template_path }}").Replace(value.Str(managed))
			d.Set("ansible_managed", py.Strftime(st.ModTime(), s))
		}
	}
	return d
}

// fileOwner is the name of a file's owner, or its uid when the user is
// unknown.
func fileOwner(st os.FileInfo) any {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	uid := strconv.FormatUint(uint64(sys.Uid), 10)
	if u, err := user.LookupId(uid); err == nil {
		return u.Username
	}
	return int(sys.Uid)
}

// lookupFileglob lists the files matching each pattern. A pattern with a
// directory looks for that directory (under files/ first) on the search
// path and globs in it; a bare pattern globs in each search directory's
// files/, then in the directory itself. The first directory with a match
// gives the pattern's files.
func lookupFileglob(c *Ctx, terms []any, _ *Args) ([]any, error) {
	out := []any{}
	for _, t := range terms {
		term := value.Str(t)
		base := py.Basename(term)
		var dirs []string
		if base != term {
			dirs = []string{c.findFile("files", py.Dirname(term), false)}
		} else {
			for _, p := range c.searchPath().SearchPath() {
				dirs = append(dirs, filepath.Join(p, "files"), p)
			}
		}
		for _, d := range dirs {
			if d == "" {
				continue
			}
			var found []any
			for _, m := range py.Glob(py.Join([]string{d, base}), "") {
				if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
					found = append(found, m)
				}
			}
			if len(found) > 0 {
				out = append(out, found...)
				break
			}
		}
	}
	return out, nil
}
