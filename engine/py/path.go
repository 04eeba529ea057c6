package py

import (
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Fspath is os.fspath for a path argument: a str, or Python's TypeError.
func Fspath(in any) (string, error) {
	s, ok := in.(string)
	if !ok {
		return "", Errorf("expected str, bytes or os.PathLike object, not %s", value.TypeName(in))
	}
	return s, nil
}

// Basename is posixpath.basename (path.Base strips trailing slashes).
func Basename(p string) string { return p[strings.LastIndex(p, "/")+1:] }

// Dirname is posixpath.dirname.
func Dirname(p string) string {
	i := strings.LastIndex(p, "/") + 1
	head := p[:i]
	if head != "" && strings.Trim(head, "/") != "" {
		head = strings.TrimRight(head, "/")
	}
	return head
}

// Normpath is posixpath.normpath.
func Normpath(p string) string {
	if p == "" {
		return "."
	}
	initial := 0
	if strings.HasPrefix(p, "/") {
		initial = 1
		if strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///") {
			initial = 2
		}
	}
	var comps []string
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." {
			continue
		}
		if c != ".." || (initial == 0 && len(comps) == 0) || (len(comps) > 0 && comps[len(comps)-1] == "..") {
			comps = append(comps, c)
		} else if len(comps) > 0 {
			comps = comps[:len(comps)-1]
		}
	}
	out := strings.Repeat("/", initial) + strings.Join(comps, "/")
	if out == "" {
		return "."
	}
	return out
}

// Abspath is posixpath.abspath, against the process's working directory.
func Abspath(p string) string {
	if !strings.HasPrefix(p, "/") {
		wd, _ := os.Getwd()
		p = wd + "/" + p
	}
	return Normpath(p)
}

// Realpath is os.path.realpath: symlinks resolved as far as they exist.
func Realpath(p string) string {
	abs := Abspath(p)
	parts := strings.Split(strings.TrimPrefix(abs, "/"), "/")
	resolved := "/"
	for i, part := range parts {
		if part == "" {
			continue
		}
		next := filepath.Join(resolved, part)
		if r, err := filepath.EvalSymlinks(next); err == nil {
			resolved = r
			continue
		}
		return Normpath(filepath.Join(append([]string{resolved}, parts[i:]...)...))
	}
	return resolved
}

// Splitext is posixpath.splitext: leading dots do not start an extension.
func Splitext(p string) (string, string) {
	sep := strings.LastIndex(p, "/")
	dot := strings.LastIndex(p, ".")
	if dot > sep {
		fi := sep + 1
		for fi < dot {
			if p[fi] != '.' {
				return p[:dot], p[dot:]
			}
			fi++
		}
	}
	return p, ""
}

// Join is posixpath.join: an absolute part discards what precedes it.
func Join(parts []string) string {
	out := ""
	for i, p := range parts {
		switch {
		case i == 0 || strings.HasPrefix(p, "/"):
			out = p
		case out == "" || strings.HasSuffix(out, "/"):
			out += p
		default:
			out += "/" + p
		}
	}
	return out
}

// WinSplitdrive is ntpath.splitdrive: a drive letter or a UNC share.
func WinSplitdrive(p string) (string, string) {
	if len(p) >= 2 {
		norm := strings.ReplaceAll(p, "/", `\`)
		if strings.HasPrefix(norm, `\\`) && !strings.HasPrefix(norm, `\\\`) {
			idx := strings.Index(norm[2:], `\`)
			if idx < 0 {
				return p, ""
			}
			idx += 2
			idx2 := strings.Index(norm[idx+1:], `\`)
			if idx2 < 0 {
				return p, ""
			}
			idx2 += idx + 1
			if idx2 == idx+1 {
				return "", p
			}
			return p[:idx2], p[idx2:]
		}
		if p[1] == ':' {
			return p[:2], p[2:]
		}
	}
	return "", p
}

// WinSplit is ntpath.split: the head (drive and directory) and the tail.
func WinSplit(p string) (string, string) {
	d, rest := WinSplitdrive(p)
	i := len(rest)
	for i > 0 && !strings.ContainsRune(`/\`, rune(rest[i-1])) {
		i--
	}
	head, tail := rest[:i], rest[i:]
	trimmed := strings.TrimRight(head, `/\`)
	if trimmed == "" {
		trimmed = head
	}
	return d + trimmed, tail
}

// Relpath is posixpath.relpath(path, start); a nil start is the current
// directory.
func Relpath(path, start any) (string, error) {
	s, err := Fspath(path)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", Errorf("no path specified")
	}
	from := "."
	if start != nil {
		if from, err = Fspath(start); err != nil {
			return "", err
		}
	}
	sp := strings.Split(strings.Trim(Abspath(from), "/"), "/")
	pp := strings.Split(strings.Trim(Abspath(s), "/"), "/")
	if sp[0] == "" {
		sp = nil
	}
	if pp[0] == "" {
		pp = nil
	}
	i := 0
	for i < len(sp) && i < len(pp) && sp[i] == pp[i] {
		i++
	}
	var rel []string
	for j := i; j < len(sp); j++ {
		rel = append(rel, "..")
	}
	rel = append(rel, pp[i:]...)
	if len(rel) == 0 {
		return ".", nil
	}
	return strings.Join(rel, "/"), nil
}

// Commonpath is posixpath.commonpath(paths).
func Commonpath(paths []any) (string, error) {
	if len(paths) == 0 {
		return "", Errorf("commonpath() arg is an empty sequence")
	}
	var split [][]string
	abs := -1
	for _, it := range paths {
		s, err := Fspath(it)
		if err != nil {
			return "", err
		}
		isAbs := 0
		if strings.HasPrefix(s, "/") {
			isAbs = 1
		}
		if abs >= 0 && abs != isAbs {
			return "", Errorf("Can't mix absolute and relative paths")
		}
		abs = isAbs
		var comps []string
		for _, c := range strings.Split(s, "/") {
			if c != "" && c != "." {
				comps = append(comps, c)
			}
		}
		split = append(split, comps)
	}
	common := split[0]
	for _, s := range split[1:] {
		n := 0
		for n < len(common) && n < len(s) && common[n] == s[n] {
			n++
		}
		common = common[:n]
	}
	prefix := ""
	if abs == 1 {
		prefix = "/"
	}
	return prefix + strings.Join(common, "/"), nil
}

// ExpandUser is os.path.expanduser: a leading ~ or ~user becomes that home
// directory ($HOME for the current user, from getenv); anything else, or
// an unknown user, is left as written.
func ExpandUser(s string, getenv func(string) (string, bool)) string {
	if !strings.HasPrefix(s, "~") {
		return s
	}
	i := strings.Index(s, "/")
	if i < 0 {
		i = len(s)
	}
	var home string
	if i == 1 {
		h, ok := getenv("HOME")
		if !ok {
			u, err := user.Current()
			if err != nil {
				return s
			}
			h = u.HomeDir
		}
		home = h
	} else {
		u, err := user.Lookup(s[1:i])
		if err != nil {
			return s
		}
		home = u.HomeDir
	}
	home = strings.TrimRight(home, "/")
	if home == "" && i == len(s) {
		home = "/"
	}
	return home + s[i:]
}

var envVarRe = regexp.MustCompile(`\$(\w+|\{[^}]*\})`)

// ExpandVars is os.path.expandvars: $NAME and ${NAME} are replaced when
// getenv knows NAME and left as written otherwise.
func ExpandVars(s string, getenv func(string) (string, bool)) string {
	if !strings.Contains(s, "$") {
		return s
	}
	return envVarRe.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := getenv(strings.Trim(m[1:], "{}")); ok {
			return v
		}
		return m
	})
}
