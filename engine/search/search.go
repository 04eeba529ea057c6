// Package search finds the files a task names, on Ansible's search path:
// the roles of the task's dependency chain, the directory of the file the
// task was written in, then the play's directory as a last resort, each
// tried with the kind's subdirectory ("files", "templates", "vars") and
// without it (DataLoader.path_dwim_relative_stack).
package search

import (
	"os"
	"path/filepath"
	"strings"
)

// Path is the search path of one task.
type Path struct {
	// Dirs are the task's search stack (ansible_search_path without the
	// play directory): role directories, innermost first, then the task
	// file's directory.
	Dirs []string
	// Base is the play's directory, tried last.
	Base string
	// InRole is set for a task written in a role.
	InRole bool
}

// Candidates lists the paths tried for source, in order.
func (p Path) Candidates(subdir, source string) []string {
	if filepath.IsAbs(source) {
		return []string{source}
	}
	withSub := subdir != "" && strings.Split(source, "/")[0] != subdir
	var out []string
	add := func(dir string) {
		if withSub {
			out = append(out, filepath.Join(dir, subdir, source))
		}
		out = append(out, filepath.Join(dir, source))
	}
	for _, d := range p.Dirs {
		parent := filepath.Dir(d)
		if p.InRole && strings.HasSuffix(parent, string(filepath.Separator)+"tasks") {
			out = append(out, filepath.Join(filepath.Dir(parent), subdir, source), filepath.Join(parent, source))
		}
		add(d)
	}
	if p.Base != "" {
		add(p.Base)
	}
	// Like ansible-core, the list may name a path twice (the task's
	// directory is often the play's); "Searched in" messages show both.
	return out
}

// Find returns the first candidate that exists (a file or a directory),
// and the candidates tried.
func (p Path) Find(subdir, source string) (string, []string, bool) {
	cands := p.Candidates(subdir, source)
	for _, c := range cands {
		if _, err := os.Stat(c); err == nil {
			return c, cands, true
		}
	}
	return "", cands, false
}

// All returns the directories a glob or a directory listing searches:
// each search directory with the subdirectory, then without it.
func (p Path) All(subdir string) []string {
	var out []string
	for _, d := range append(append([]string(nil), p.Dirs...), p.Base) {
		if d == "" {
			continue
		}
		if subdir != "" {
			out = append(out, filepath.Join(d, subdir))
		}
		out = append(out, d)
	}
	return dedupe(out)
}

func dedupe(l []string) []string {
	seen := map[string]bool{}
	out := l[:0]
	for _, s := range l {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
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
