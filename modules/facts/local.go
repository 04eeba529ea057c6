package facts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// collectLocal is the local collector: every *.fact file of fact_path,
// run when executable, read as JSON or else INI, under its base name.
// Files that fail become a message string, with a warning.
func collectLocal(s *system, _ *value.Dict) *value.Dict {
	local := value.NewDict(0)
	if s.factPath == "" || !exists(s.factPath) {
		return facts("local", local)
	}
	files, _ := filepath.Glob(globEscape(s.factPath) + "/*.fact")
	sort.Strings(files)
	for _, fn := range files {
		base := strings.ReplaceAll(filepath.Base(fn), ".fact", "")
		fact, warning := localFact(s, fn)
		if warning != "" {
			s.warn(warning)
		}
		local.Set(base, fact)
	}
	return facts("local", local)
}

// globEscape quotes the wildcard characters of a literal directory.
func globEscape(p string) string {
	r := strings.NewReplacer("[", `\[`, "*", `\*`, "?", `\?`)
	return r.Replace(p)
}

// localFact reads one fact file; warning is set when it failed.
func localFact(s *system, fn string) (fact any, warning string) {
	st, err := os.Stat(fn)
	if err != nil {
		msg := fmt.Sprintf("Could not stat fact (%s): %s", fn, pyOSError(err, fn))
		return msg, msg
	}
	var out string
	if st.Mode()&0o100 != 0 {
		rc, stdout, stderr, startErr := s.runErr(fn)
		switch {
		case startErr != nil:
			msg := fmt.Sprintf("Could not execute fact script (%s): %s", fn, pyOSError(startErr, fn))
			return msg, msg
		case rc != 0:
			msg := fmt.Sprintf("Failure executing fact script (%s), rc: %d, err: %s", fn, rc, stderr)
			return msg, msg
		}
		out = stdout
	} else if data, err := os.ReadFile(fn); err == nil {
		out = strings.TrimSpace(string(data))
	}
	if !utf8.ValidString(out) {
		msg := fmt.Sprintf(`error loading fact - output of running "%s" was not utf-8`, fn)
		return msg, msg
	}
	if v, err := value.DecodeJSON([]byte(out)); err == nil {
		return v, ""
	}
	d, err := parseINI(out)
	var interp *interpolationError
	switch {
	case errors.As(err, &interp):
		msg := fmt.Sprintf("error loading facts as ini - please check content: %s (%s)", fn, interp.msg)
		return msg, msg
	case err != nil:
		msg := "error loading facts as JSON or ini - please check content: " + fn
		return msg, msg
	}
	return d, ""
}

// pyOSError formats an error about path as Python's str(OSError) does:
// "[Errno 2] No such file or directory: '/path'".
func pyOSError(err error, path string) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	return fmt.Sprintf("[Errno %d] %s: '%s'", int(errno), py.Strerror(errno), path)
}

// iniError is a configparser error: the file is not INI.
type iniError struct{ msg string }

func (e *iniError) Error() string { return e.msg }

// interpolationError is a configparser error in a value's %-references,
// which ansible-core reports with its detail.
type interpolationError struct{ msg string }

func (e *interpolationError) Error() string { return e.msg }

// parseINI reads text as Python's ConfigParser does with its defaults:
// [sections], key = value or key: value (keys lowercased), indented
// continuation lines, # and ; comment lines, DEFAULT values in every
// section, and %(name)s interpolation. It returns section → option →
// value.
func parseINI(text string) (*value.Dict, error) {
	type section struct {
		name string
		opts *value.Dict
	}
	defaults := value.NewDict(0)
	var sections []*section
	var cur *value.Dict
	var lastKey string
	lastIndent := -1
	seen := map[string]bool{}
	for _, raw := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		stripped := strings.TrimSpace(raw)
		indent := len(raw) - len(strings.TrimLeft(raw, " \t"))
		if strings.HasPrefix(stripped, "#") || strings.HasPrefix(stripped, ";") {
			continue
		}
		if stripped == "" {
			if cur != nil && lastKey != "" {
				v, _ := cur.Get(lastKey)
				cur.Set(lastKey, value.Str(v)+"\n")
			}
			continue
		}
		if cur != nil && lastKey != "" && indent > lastIndent {
			v, _ := cur.Get(lastKey)
			cur.Set(lastKey, value.Str(v)+"\n"+stripped)
			continue
		}
		if strings.HasPrefix(stripped, "[") && strings.HasSuffix(stripped, "]") {
			name := stripped[1 : len(stripped)-1]
			if seen[name] {
				return nil, &iniError{fmt.Sprintf("section %q already exists", name)}
			}
			seen[name] = true
			lastKey = ""
			if name == "DEFAULT" {
				cur = defaults
				continue
			}
			sec := &section{name: name, opts: value.NewDict(4)}
			sections = append(sections, sec)
			cur = sec.opts
			continue
		}
		if cur == nil {
			return nil, &iniError{"File contains no section headers."}
		}
		i := strings.IndexAny(stripped, "=:")
		if i < 0 {
			return nil, &iniError{"Source contains parsing errors"}
		}
		key := strings.ToLower(strings.TrimSpace(stripped[:i]))
		if cur.Has(key) {
			return nil, &iniError{fmt.Sprintf("option %q already exists", key)}
		}
		cur.Set(key, strings.TrimSpace(stripped[i+1:]))
		lastKey, lastIndent = key, indent
	}
	out := value.NewDict(len(sections))
	for _, sec := range sections {
		merged := sec.opts.Copy()
		defaults.Each(func(k string, v any) bool {
			if !merged.Has(k) {
				merged.Set(k, v)
			}
			return true
		})
		opts := value.NewDict(merged.Len())
		var ierr error
		merged.Each(func(k string, v any) bool {
			s, err := interpolate(strings.TrimRight(value.Str(v), "\n"), merged, 0)
			if err != nil {
				ierr = err
				return false
			}
			opts.Set(k, s)
			return true
		})
		if ierr != nil {
			return nil, ierr
		}
		out.Set(sec.name, opts)
	}
	return out, nil
}

// interpolate applies BasicInterpolation: %% is a percent sign and
// %(name)s the value of another option of the section.
func interpolate(s string, opts *value.Dict, depth int) (string, error) {
	if depth > 10 {
		return "", &interpolationError{"Recursion limit exceeded in value substitution"}
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '%')
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, "%%"):
			b.WriteByte('%')
			s = rest[2:]
		case strings.HasPrefix(rest, "%("):
			end := strings.Index(rest, ")s")
			if end < 0 {
				return "", &interpolationError{"bad interpolation variable reference " + value.Repr(rest)}
			}
			name := strings.ToLower(rest[2:end])
			v, ok := opts.Get(name)
			if !ok {
				return "", &interpolationError{"Bad value substitution: option " + value.Repr(name)}
			}
			sub, err := interpolate(strings.TrimRight(value.Str(v), "\n"), opts, depth+1)
			if err != nil {
				return "", err
			}
			b.WriteString(sub)
			s = rest[end+2:]
		default:
			return "", &interpolationError{"'%' must be followed by '%' or '(', found: " + value.Repr(rest)}
		}
	}
}
