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
	var interp *py.InterpolationError
	switch {
	case errors.As(err, &interp):
		msg := fmt.Sprintf("error loading facts as ini - please check content: %s (%s)", fn, interp.Msg)
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

// parseINI reads text as Python's ConfigParser does with its defaults
// (engine/py's ConfigParser) and returns section → option → value, the
// DEFAULT values in every section and %(name)s interpolated. Its errors
// are configparser's: *py.ConfigError for text that is not INI,
// *py.InterpolationError for a value's bad %-reference, which
// ansible-core reports with its detail.
func parseINI(text string) (*value.Dict, error) {
	cp, err := py.ParseConfig(text, false, false)
	if err != nil {
		return nil, err
	}
	out := value.NewDict(len(cp.Sections))
	for _, sec := range cp.Sections {
		opts := value.NewDict(len(sec.Keys))
		for _, k := range sec.Items() {
			v, err := sec.Get(k, true)
			if err != nil {
				return nil, err
			}
			opts.Set(k, v)
		}
		out.Set(sec.Name, opts)
	}
	return out, nil
}
