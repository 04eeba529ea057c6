// Package search finds the files a task names, on Ansible's search path:
// the roles of the task's dependency chain, the directory of the file the
// task was written in, then the play's directory as a last resort, each
// tried with the kind's subdirectory ("files", "templates", "vars") and
// without it (DataLoader.path_dwim_relative_stack). It is the only place
// that knows this order: modules, include_vars, vars_files and lookups all
// ask it.
package search

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// Path is the search path of one task.
type Path struct {
	// Dirs are the task's search stack (Task.get_search_path): the role
	// directories of its dependency chain, innermost first, then the task
	// file's directory unless it is one of them.
	Dirs []string
	// Base is the play's directory (the loader's basedir), tried last.
	Base string
	// InRole is set for a task written in a role. Lookups pass it to the
	// search (their variables hold role_path); modules rely on the
	// directory test alone, as ansible-core's action plugins do.
	InRole bool
}

// SearchPath is the ansible_search_path variable lookups see: the search
// stack, then the play's directory unless the stack already holds it.
func (p Path) SearchPath() []string {
	out := append([]string(nil), p.Dirs...)
	if p.Base != "" && !contains(out, p.Base) {
		out = append(out, p.Base)
	}
	if len(out) == 0 {
		// Without a task, lookups search the loader's directory, which is
		// the working directory when no playbook is loaded.
		wd, _ := os.Getwd()
		out = []string{wd}
	}
	return out
}

// ForLookups returns the path a lookup plugin searches: ansible-core's
// find_file_in_search_path hands ansible_search_path (which already ends
// with the play's directory) to the same search, which appends the play's
// directory once more; the role test holds for every role task.
func (p Path) ForLookups() Path {
	return Path{Dirs: p.SearchPath(), Base: p.Base, InRole: p.InRole}
}

// Candidates lists the paths tried for source, in order, as
// path_dwim_relative_stack builds them. An absolute source (or one that
// starts with ~) is the only candidate and is not listed as searched, so
// the list is empty for it.
//
// ansible-core 2.19 means to skip the subdirectory when source already
// starts with it, but compares bytes with a string, so it never does:
// "files/a" is tried as files/files/a, then files/a, and "Searched in"
// messages list both. Like ansible-core, the list may also name a path
// twice (the task's directory is often the play's).
func (p Path) Candidates(subdir, source string) []string {
	if isAbsolute(source) {
		return nil
	}
	var out []string
	for _, d := range p.Dirs {
		dir := unfrack(d)
		parent := filepath.Dir(dir)
		if strings.HasSuffix(parent, string(filepath.Separator)+"tasks") && (p.InRole || looksLikeRole(d)) {
			out = append(out, filepath.Join(filepath.Dir(parent), subdir, source), filepath.Join(parent, source))
		}
		out = append(out, filepath.Join(dir, subdir, source), filepath.Join(dir, source))
	}
	base := p.Base
	if base == "" {
		base, _ = os.Getwd()
	}
	return append(out, filepath.Join(base, subdir, source), filepath.Join(base, source))
}

// Find returns the first candidate that exists (a file or a directory),
// and the candidates tried.
func (p Path) Find(subdir, source string) (string, []string, bool) {
	if isAbsolute(source) {
		abs := unfrack(source)
		_, err := os.Stat(abs)
		return abs, nil, err == nil
	}
	cands := p.Candidates(subdir, source)
	for _, c := range cands {
		if _, err := os.Stat(c); err == nil {
			return c, cands, true
		}
	}
	return "", cands, false
}

// NotFoundError is ansible-core's AnsibleFileNotFound: the file name and
// the places searched.
type NotFoundError struct {
	Name     string
	Searched []string
}

func (e *NotFoundError) Error() string { return NotFoundMessage(e.Name, e.Searched) }

// Resolve is Find that reports a missing file as a *NotFoundError.
func (p Path) Resolve(subdir, source string) (string, error) {
	found, searched, ok := p.Find(subdir, source)
	if !ok {
		return "", &NotFoundError{Name: source, Searched: searched}
	}
	return found, nil
}

// isAbsolute is the test path_dwim_relative_stack makes before searching.
func isAbsolute(source string) bool {
	return strings.HasPrefix(source, "~") || strings.HasPrefix(source, "/")
}

// unfrack is ansible-core's unfrackpath without following links:
// environment variables and ~ expanded, made absolute, normalized.
func unfrack(p string) string {
	p = py.ExpandUser(py.ExpandVars(p, os.LookupEnv), os.LookupEnv)
	return py.Abspath(p)
}

// looksLikeRole is DataLoader._is_role: a directory holding main.yml, or
// whose own or parent directory has tasks/main or meta/main.
func looksLikeRole(dir string) bool {
	up := unfrack(dir)
	parent := filepath.Dir(dir)
	for _, name := range []string{"main.yml", "main.yaml", "main"} {
		if exists(filepath.Join(dir, name)) {
			return true
		}
	}
	for _, d := range []string{up, parent} {
		for _, sub := range []string{"tasks", "meta"} {
			for _, name := range []string{"main.yml", "main.yaml", "main"} {
				if exists(filepath.Join(d, sub, name)) {
					return true
				}
			}
		}
	}
	return false
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// NotFoundMessage is ansible-core's AnsibleFileNotFound text for a file
// looked up on the controller: the candidates searched are listed unless
// the name was absolute.
func NotFoundMessage(name string, searched []string) string {
	where := ""
	if !filepath.IsAbs(name) && len(searched) > 0 {
		where = "\nSearched in:\n\t" + strings.Join(searched, "\n\t")
	}
	return "Could not find or access '" + name + "'" + where +
		" on the Ansible Controller.\nIf you are using a module and expect the file to exist on the remote, see the remote_src option"
}

// DwimRelative is DataLoader.path_dwim_relative: one file looked up
// relative to path (a role or a play directory), with and without the
// dirname subdirectory, then relative to the working directory and to
// basedir (the loader's directory, the play's). It returns the first
// candidate that exists, else the last one, as ansible-core does. isRole
// is detected as _is_role does when not given.
func DwimRelative(path, dirname, source string, isRole bool, basedir string) string {
	cands := DwimRelativeCandidates(path, dirname, source, isRole, basedir)
	for _, c := range cands {
		if exists(c) {
			return c
		}
	}
	return cands[len(cands)-1]
}

// DwimRelativeCandidates lists the paths DwimRelative tries, in order.
func DwimRelativeCandidates(path, dirname, source string, isRole bool, basedir string) []string {
	if isAbsolute(source) {
		return []string{unfrack(source)}
	}
	// The first candidate is joined as os.path.join does, without
	// cleaning: "included:" lines show it as written.
	out := []string{py.Join([]string{path, dirname, source})}
	base := unfrack(path)
	if !isRole {
		isRole = looksLikeRole(path)
	}
	if isRole && reTasks.MatchString(path) {
		base = unfrack(py.Dirname(path))
	}
	out = append(out, unfrack(filepath.Join(base, dirname, source)))
	if isRole && !strings.HasSuffix(source, dirname) {
		out = append(out, unfrack(filepath.Join(base, "tasks", source)))
	}
	out = append(out,
		unfrack(filepath.Join(dirname, source)),
		unfrack(filepath.Join(base, source)),
		dwim(basedir, filepath.Join(dirname, source)),
		dwim(basedir, source))
	return out
}

// reTasks is dataloader's RE_TASKS: a path that ends in a tasks directory.
var reTasks = regexp.MustCompile(`(?:^|/)+tasks/?$`)

// dwim is DataLoader.path_dwim: given relative to the loader's directory.
func dwim(basedir, given string) string {
	given = unquote(given)
	if isAbsolute(given) {
		return unfrack(given)
	}
	if basedir == "" {
		basedir, _ = os.Getwd()
	}
	return unfrack(py.Join([]string{basedir, given}))
}

// unquote is ansible's parsing.quoting.unquote: one pair of matching
// quotes around the whole string is removed, unless the last one is
// escaped.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] && s[len(s)-2] != '\\' {
		return s[1 : len(s)-1]
	}
	return s
}
