package command

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// globMatches reports whether Python's glob.glob(pattern) would find
// anything, relative paths being taken from dir: `creates` and `removes`
// are such patterns. As in Python, a wildcard does not match a name
// starting with a dot unless the pattern's component does too, and a
// pattern without wildcards matches a path that exists, even as a broken
// symbolic link.
func globMatches(pattern, dir string) bool {
	return len(globPaths(pattern, dir, 1)) > 0
}

// globPaths returns up to limit matches of pattern (as written, not joined
// with dir).
func globPaths(pattern, dir string, limit int) []string {
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
		parents = globPaths(parent, dir, -1)
	}
	var out []string
	for _, p := range parents {
		for _, name := range globIn(at(p), p == "", base) {
			out = append(out, joinGlob(p, name))
			if limit > 0 && len(out) >= limit {
				return out
			}
		}
	}
	return out
}

// globIn lists the names in dir that match one pattern component.
func globIn(dir string, relative bool, component string) []string {
	if relative && dir == "" {
		dir = "."
	}
	if !hasMagic(component) {
		if (component == "" && isDir(dir)) || (component != "" && lexists(filepath.Join(dir, component))) {
			return []string{component}
		}
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	re := py.FnmatchRegexp(component)
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(component, ".") {
			continue
		}
		if re.MatchString(name) {
			out = append(out, name)
		}
	}
	return out
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
