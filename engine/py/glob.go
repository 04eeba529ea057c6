package py

import (
	"os"
	"path/filepath"
	"strings"
)

// Glob is glob.glob(pattern) with relative paths taken from dir (the
// working directory when dir is empty): the paths that match, as written
// in the pattern, in the order the directories list them (Python does not
// sort them). As in Python, a wildcard does not match a name starting with
// a dot unless the pattern's component does too, and a pattern without
// wildcards matches a path that exists, even as a broken symbolic link.
func Glob(pattern, dir string) []string { return globPaths(pattern, dir, -1, false) }

// GlobAny reports whether Glob(pattern, dir) would find anything, without
// listing more than one match.
func GlobAny(pattern, dir string) bool { return len(globPaths(pattern, dir, 1, false)) > 0 }

// globPaths returns up to limit matches of pattern (every match when limit
// is negative); dirOnly keeps directories only, for the components before
// the last.
func globPaths(pattern, dir string, limit int, dirOnly bool) []string {
	at := func(p string) string {
		if filepath.IsAbs(p) || dir == "" {
			return p
		}
		return filepath.Join(dir, p)
	}
	parent, base := splitPath(pattern)
	if !hasMagic(pattern) {
		if (base != "" && lexists(at(pattern))) || (base == "" && isDir(at(parent))) {
			return []string{pattern}
		}
		return nil
	}
	parents := []string{parent}
	if parent != "" && parent != pattern && hasMagic(parent) {
		parents = globPaths(parent, dir, -1, true)
	}
	var out []string
	for _, p := range parents {
		for _, name := range globIn(at(p), p == "", base, dirOnly) {
			out = append(out, joinGlob(p, name))
			if limit > 0 && len(out) >= limit {
				return out
			}
		}
	}
	return out
}

// globIn lists the names in dir that match one pattern component.
func globIn(dir string, relative bool, component string, dirOnly bool) []string {
	if relative && dir == "" {
		dir = "."
	}
	if !hasMagic(component) {
		if (component == "" && isDir(dir)) || (component != "" && lexists(filepath.Join(dir, component))) {
			return []string{component}
		}
		return nil
	}
	names, err := listDir(dir)
	if err != nil {
		return nil
	}
	re := FnmatchRegexp(component)
	var out []string
	for _, name := range names {
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(component, ".") {
			continue
		}
		if dirOnly && !isDir(filepath.Join(dir, name)) {
			continue
		}
		if re.MatchString(name) {
			out = append(out, name)
		}
	}
	return out
}

// listDir lists a directory in the order the system returns its entries,
// as os.scandir does.
func listDir(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// splitPath is os.path.split: the part up to the last slash (without its
// trailing slashes, unless it is all slashes) and the rest.
func splitPath(p string) (string, string) {
	i := strings.LastIndexByte(p, '/') + 1
	head, tail := p[:i], p[i:]
	if trimmed := strings.TrimRight(head, "/"); trimmed != "" {
		head = trimmed
	}
	return head, tail
}

func joinGlob(parent, name string) string {
	switch {
	case parent == "":
		return name
	case strings.HasSuffix(parent, "/"):
		return parent + name
	}
	return parent + "/" + name
}

func hasMagic(s string) bool { return strings.ContainsAny(s, "*?[") }

func lexists(p string) bool { _, err := os.Lstat(p); return err == nil }

func isDir(p string) bool { fi, err := os.Stat(p); return err == nil && fi.IsDir() }
