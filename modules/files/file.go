package files

import (
	"os"
	"path/filepath"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// fileDef is ansible.builtin.file (modules/file.py).
func fileDef() *moduleDef {
	return &moduleDef{name: "file", checkMode: true, run: runFile, spec: fileSpec()}
}

func fileSpec() *argspec.Spec {
	return &argspec.Spec{Options: withFileCommon(
		argspec.Option{Name: "state", Type: argspec.Str, Choices: []any{"absent", "directory", "file", "hard", "link", "touch"}},
		argspec.Option{Name: "path", Type: argspec.Path, Required: true, Aliases: []string{"dest", "name"}},
		argspec.Option{Name: "_original_basename", Type: argspec.Str},
		argspec.Option{Name: "recurse", Type: argspec.Bool, Default: false},
		argspec.Option{Name: "force", Type: argspec.Bool, Default: false},
		argspec.Option{Name: "follow", Type: argspec.Bool, Default: true},
		argspec.Option{Name: "_diff_peek", Type: argspec.Bool},
		argspec.Option{Name: "src", Type: argspec.Path},
		argspec.Option{Name: "modification_time", Type: argspec.Str},
		argspec.Option{Name: "modification_time_format", Type: argspec.Str, Default: "%Y%m%d%H%M.%S"},
		argspec.Option{Name: "access_time", Type: argspec.Str},
		argspec.Option{Name: "access_time_format", Type: argspec.Str, Default: "%Y%m%d%H%M.%S"},
	)}
}

// fileRun is one run of the file module: the parameters after
// additional_parameter_handling.
type fileRun struct {
	*amod
	path, state string
	src         *string
	follow      bool
	force       bool
	recurse     bool
	mtime       stamp
	atime       stamp
}

// stamp is a requested modification or access time: kept, now, or a
// Unix time.
type stamp struct {
	keep, now bool
	at        float64
}

func runFile(m *amod) (*value.Dict, error) {
	r := &fileRun{amod: m, follow: m.p.Bool("follow"), force: m.p.Bool("force"), recurse: m.p.Bool("recurse")}
	r.src = m.optStr("src")
	if err := r.handleParameters(); err != nil {
		return nil, err
	}
	if m.check && r.state != "absent" {
		r.warnMissingOwner()
	}
	if m.p.IsSet("_diff_peek") {
		return value.DictOf("path", r.path, "changed", false, "appears_binary", appearsBinary(r.path)), nil
	}
	var err error
	if r.mtime, err = r.timestamp("modification_time"); err != nil {
		return nil, err
	}
	if r.atime, err = r.timestamp("access_time"); err != nil {
		return nil, err
	}
	var res *value.Dict
	switch r.state {
	case "file":
		res, err = r.ensureFile()
	case "directory":
		res, err = r.ensureDirectory()
	case "link":
		res, err = r.ensureSymlink()
	case "hard":
		res, err = r.ensureHardlink()
	case "touch":
		res, err = r.touch()
	default:
		res, err = r.ensureAbsent()
	}
	if err != nil {
		return nil, err
	}
	if !m.diff {
		res.Delete("diff")
	}
	return res, nil
}

// handleParameters is additional_parameter_handling: a directory path
// gets the source's basename appended, and state defaults from what is
// on disk.
func (r *fileRun) handleParameters() error {
	r.path = r.p.Str("path")
	state, hasState := r.str("state")
	if state != "link" && state != "absent" && isDir(r.path) {
		base := r.p.Str("_original_basename")
		if base == "" && r.src != nil && *r.src != "" {
			base = filepath.Base(*r.src)
		}
		if base != "" {
			r.path = filepath.Join(r.path, base)
		}
	}
	prev := pathState(r.path)
	switch {
	case hasState:
	case prev != "absent":
		state = prev
	case r.recurse:
		state = "directory"
	default:
		state = "file"
	}
	r.state = state
	if r.recurse && state != "directory" {
		return module.Fail("recurse option requires state to be 'directory'", "path", r.path)
	}
	if r.src != nil && *r.src != "" && state != "link" && state != "hard" {
		return module.Fail("src option requires state to be 'link' or 'hard'", "path", r.path)
	}
	return nil
}

// warnMissingOwner warns in check mode about an owner or group that does
// not exist yet (check_owner_exists, check_group_exists).
func (r *fileRun) warnMissingOwner() {
	if o, ok := r.str("owner"); ok && o != "" {
		if n, isNum := pyInt(o); isNum {
			if userName(n) == "" {
				r.warn("failed to look up user with uid " + o + ". Create user up to this point in real play")
			}
		} else if _, found := lookupUID(o); !found {
			r.warn("failed to look up user " + o + ". Create user up to this point in real play")
		}
	}
	if g, ok := r.str("group"); ok && g != "" {
		if n, isNum := pyInt(g); isNum {
			if groupName(n) == "" {
				r.warn("failed to look up group with gid " + g + ". Create group up to this point in real play")
			}
		} else if _, found := lookupGID(g); !found {
			r.warn("failed to look up group " + g + ". Create group up to this point in real play")
		}
	}
}

// timestamp reads modification_time or access_time with its format.
// Unset means keep, except for touch, which sets now.
func (r *fileRun) timestamp(key string) (stamp, error) {
	v, ok := r.str(key)
	if !ok {
		if r.state == "touch" {
			return stamp{now: true}, nil
		}
		if r.state != "absent" {
			return stamp{keep: true}, nil
		}
		// ansible-core passes None through for absent, which never
		// reads it.
		return stamp{keep: true}, nil
	}
	switch v {
	case "preserve":
		return stamp{keep: true}, nil
	case "now":
		return stamp{now: true}, nil
	}
	format := r.p.Str(key + "_format")
	parsed, err := py.Strptime(v, format)
	if err != nil {
		return stamp{}, module.Fail("Error while obtaining timestamp for time " + v + " using format " + format + ": " + err.Error())
	}
	// time.mktime reads the fields as local time.
	t := parsed.(*py.Datetime).Time
	local := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.Local)
	return stamp{at: float64(local.Unix())}, nil
}

// updateTimestamps sets the requested times on path
// (update_timestamp_for_file) and reports a change.
func (r *fileRun) updateTimestamps(path string, diff *value.Dict) (bool, error) {
	if r.mtime.keep && r.atime.keep {
		return false, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return false, module.Fail("Error while updating modification or access time: "+pyOSError(err), "path", path)
	}
	prevM, prevA := unixSeconds(st.ModTime()), unixSeconds(atime(st))
	nowF := unixSeconds(time.Now())
	pick := func(s stamp, prev float64) float64 {
		switch {
		case s.keep:
			return prev
		case s.now:
			return nowF
		}
		return s.at
	}
	m, a := pick(r.mtime, prevM), pick(r.atime, prevA)
	bothNow := r.mtime.now && r.atime.now
	if !bothNow && m == prevM && a == prevA {
		return false, nil
	}
	if !r.check {
		if err := os.Chtimes(path, floatTime(a), floatTime(m)); err != nil {
			return false, module.Fail("Error while updating modification or access time: "+pyOSError(err), "path", path)
		}
	}
	if diff != nil {
		if m != prevM {
			recordDiff(diff, "mtime", prevM, m)
		}
		if a != prevA {
			recordDiff(diff, "atime", prevA, a)
		}
	}
	return true, nil
}

// unixSeconds is a time as Python's float st_mtime.
func unixSeconds(t time.Time) float64 {
	return float64(t.Unix()) + float64(t.Nanosecond())*1e-9
}

func floatTime(f float64) time.Time {
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9))
}

// appearsBinary is execute_diff_peek: a NUL byte in the first 8 KiB.
func appearsBinary(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 8192)
	n, _ := f.Read(buf)
	for _, b := range buf[:n] {
		if b == 0 {
			return true
		}
	}
	return false
}

// initialDiff is the diff every state starts with: the path, and the
// state change when there is one (with the directory's content when it
// is removed).
func initialDiff(path, state, prev string) *value.Dict {
	before := value.DictOf("path", path)
	after := value.DictOf("path", path)
	if prev != state {
		before.Set("state", prev)
		after.Set("state", state)
		if state == "absent" && prev == "directory" {
			before.Set("path_content", walkList(path))
		}
	}
	return value.DictOf("before", before, "after", after)
}

// walkList lists the directories and files under path in os.walk order.
func walkList(path string) *value.Dict {
	dirs, files := []any{}, []any{}
	walkTopDown(path, false, nil, func(dir string, subdirs, names []string) []string {
		for _, d := range subdirs {
			dirs = append(dirs, filepath.Join(dir, d))
		}
		for _, n := range names {
			files = append(files, filepath.Join(dir, n))
		}
		return subdirs
	})
	return value.DictOf("directories", dirs, "files", files)
}
