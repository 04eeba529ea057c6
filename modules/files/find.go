package files

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/files/pyre"
)

// findDef is ansible.builtin.find (modules/find.py).
func findDef() *moduleDef {
	return &moduleDef{name: "find", checkMode: true, run: runFind, spec: &argspec.Spec{Options: []argspec.Option{
		{Name: "paths", Type: argspec.List, Required: true, Aliases: []string{"name", "path"}, Elements: argspec.Path},
		{Name: "patterns", Type: argspec.List, Default: []any{}, Aliases: []string{"pattern"}, Elements: argspec.Str},
		{Name: "excludes", Type: argspec.List, Aliases: []string{"exclude"}, Elements: argspec.Str},
		{Name: "contains", Type: argspec.Str},
		{Name: "read_whole_file", Type: argspec.Bool, Default: false},
		{Name: "file_type", Type: argspec.Str, Default: "file", Choices: []any{"any", "directory", "file", "link"}},
		{Name: "age", Type: argspec.Str},
		{Name: "age_stamp", Type: argspec.Str, Default: "mtime", Choices: []any{"atime", "ctime", "mtime"}},
		{Name: "size", Type: argspec.Str},
		{Name: "recurse", Type: argspec.Bool, Default: false},
		{Name: "hidden", Type: argspec.Bool, Default: false},
		{Name: "follow", Type: argspec.Bool, Default: false},
		{Name: "get_checksum", Type: argspec.Bool, Default: false},
		{Name: "checksum_algorithm", Type: argspec.Str, Default: "sha1", Choices: checksumAlgorithms,
			Aliases: []string{"checksum", "checksum_algo"}},
		{Name: "use_regex", Type: argspec.Bool, Default: false},
		{Name: "depth", Type: argspec.Int},
		{Name: "mode", Type: argspec.Raw},
		{Name: "exact_mode", Type: argspec.Bool, Default: true},
		{Name: "encoding", Type: argspec.Str},
		{Name: "limit", Type: argspec.Int},
	}}}
}

// finder holds one find run's filters.
type finder struct {
	*amod
	patterns, excludes []string
	// regexes and exRegexes are the patterns and excludes compiled
	// (globs translated as fnmatch does).
	regexes, exRegexes []*py.Regexp
	age, size          *int64
	mode               *int64
	contains           *py.Regexp
	now                float64
	matched            []any
	skipped            *value.Dict
	examined           int
	warned             bool
}

func runFind(m *amod) (*value.Dict, error) {
	f := &finder{amod: m, skipped: value.NewDict(0), now: unixSeconds(time.Now())}
	if err := f.parseFilters(); err != nil {
		return nil, err
	}
	msg := "All paths examined"
	limit := m.p.Int("limit")
	for _, root := range m.p.Strs("paths") {
		if f.search(root) {
			msg = "Limit of matches reached"
		}
		if limit > 0 && len(f.matched) == limit {
			break
		}
	}
	if f.warned {
		msg = "Not all paths examined, check warnings for details"
	}
	return value.DictOf("files", append([]any{}, f.matched...), "changed", false, "msg", msg,
		"matched", len(f.matched), "examined", f.examined, "skipped_paths", f.skipped), nil
}

// parseFilters checks and compiles the patterns, age, size and mode.
func (f *finder) parseFilters() error {
	if mode, ok := f.p.Get("mode"); ok && mode != nil {
		if _, isStr := mode.(string); !isStr {
			return module.Fail(fmt.Sprintf("argument 'mode' is not a string and conversion is not allowed, value is of type %s", value.TypeName(mode)))
		}
	}
	f.patterns = f.p.Strs("patterns")
	if len(f.patterns) == 0 {
		f.patterns = []string{"*"}
		if f.p.Bool("use_regex") {
			f.patterns = []string{".*"}
		}
		// The module sets the parameter, so its invocation shows it.
		f.p.Set("patterns", []any{f.patterns[0]})
	}
	f.excludes = f.p.Strs("excludes")
	translate := func(p string) string { return p }
	if !f.p.Bool("use_regex") {
		translate = func(p string) string { return py.FnmatchRegexp(p).String() }
	}
	var err error
	if f.regexes, err = compileAll(f.patterns, translate); err != nil {
		return err
	}
	if f.exRegexes, err = compileAll(f.excludes, translate); err != nil {
		return err
	}
	if s, ok := f.str("age"); ok {
		n, ok := parseUnits(s, `^(-?\d+)(s|m|h|d|w)?$`, map[string]int64{"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800})
		if !ok {
			return module.Fail("failed to process age", "age", s)
		}
		f.age = &n
	}
	if s, ok := f.str("size"); ok {
		n, ok := parseUnits(s, `^(-?\d+)(b|k|m|g|t)?$`, map[string]int64{"b": 1, "k": 1024, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40})
		if !ok {
			return module.Fail("failed to process size", "size", s)
		}
		f.size = &n
	}
	if limit := f.p.Int("limit"); f.p.IsSet("limit") && limit <= 0 {
		return module.Fail(fmt.Sprintf("limit cannot be %d (use None for unlimited)", limit))
	}
	if s, ok := f.str("mode"); ok && s != "" {
		n, ok := pyIntBase8(s)
		if !ok {
			var err error
			if n, err = symbolicMode(nil, s); err != nil {
				return err
			}
		}
		n &= permBits
		f.mode = &n
	}
	if s, ok := f.str("contains"); ok {
		re, err := pyre.Compile(s, pyre.Text)
		if err != nil {
			return module.Fail(err.Error())
		}
		f.contains = re
	}
	return nil
}

// compileAll compiles patterns, each first passed through translate.
func compileAll(patterns []string, translate func(string) string) ([]*py.Regexp, error) {
	out := make([]*py.Regexp, 0, len(patterns))
	for _, p := range patterns {
		re, err := pyre.Compile(translate(p), pyre.Text)
		if err != nil {
			return nil, module.Fail(err.Error())
		}
		out = append(out, re)
	}
	return out, nil
}

// parseUnits reads "<number><unit>" (lower-cased) against pattern.
func parseUnits(s, pattern string, units map[string]int64) (int64, bool) {
	m := regexp.MustCompile(pattern).FindStringSubmatch(strings.ToLower(s))
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0, false
	}
	if mult, ok := units[m[2]]; ok {
		n *= mult
	}
	return n, true
}

// search walks one of the paths; it reports whether the limit was hit.
func (f *finder) search(root string) (limitHit bool) {
	if !isDir(root) {
		msg := "'" + root + "' is not a directory"
		f.skipped.Set(root, msg)
		f.warn("Skipped '" + root + "' path due to this access issue: " + msg + "\n")
		f.warned = true
		return false
	}
	limit := f.p.Int("limit")
	stop := false
	onErr := func(err error) {
		var pe *fs.PathError
		if errors.As(err, &pe) && (errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist)) {
			f.skipped.Set(pe.Path, pyOSError(err))
		}
	}
	walkTopDown(root, f.p.Bool("follow"), onErr, func(dir string, dirs, files []string) []string {
		if stop {
			return nil
		}
		f.examined += len(files) + len(dirs)
		for _, name := range append(append([]string(nil), files...), dirs...) {
			full := filepath.Clean(filepath.Join(dir, name))
			if depth := f.p.Int("depth"); depth > 0 && entryDepth(root, full) > depth {
				dirs = nil
				continue
			}
			if strings.HasPrefix(name, ".") && !f.p.Bool("hidden") {
				continue
			}
			f.consider(full, name)
			if limit > 0 && len(f.matched) == limit {
				limitHit, stop = true, true
				return nil
			}
		}
		if !f.p.Bool("recurse") {
			stop = true
			return nil
		}
		return dirs
	})
	return limitHit
}

// entryDepth is how many levels below root a path is (1: directly in it).
func entryDepth(root, full string) int {
	w := strings.TrimRight(root, "/") + "/"
	return strings.Count(full, "/") - strings.Count(w, "/") + 1
}

// consider applies the filters to one entry and records a match.
func (f *finder) consider(full, name string) {
	st, err := os.Lstat(full)
	if err != nil {
		f.warn("Skipped entry " + value.Repr(full) + " due to access issue.")
		f.skipped.Set(full, pyOSError(err))
		f.warned = true
		return
	}
	mode := st.Mode()
	common := func() bool { return f.nameMatches(name) && f.ageMatches(st) && f.modeMatches(st) }
	var ok bool
	switch f.p.Str("file_type") {
	case "any":
		ok = common() && (!mode.IsRegular() || f.sizeMatches(st))
	case "directory":
		ok = mode.IsDir() && common()
	case "file":
		ok = mode.IsRegular() && f.nameMatches(name) && f.ageMatches(st) && f.sizeMatches(st) &&
			f.contentMatches(full) && f.modeMatches(st)
	case "link":
		ok = mode&os.ModeSymlink != 0 && common()
	}
	if !ok {
		return
	}
	r := value.DictOf("path", full)
	r.Update(findStatInfo(st))
	if mode.IsRegular() && f.p.Bool("get_checksum") && f.p.Str("file_type") != "directory" {
		sum, _ := fileDigest(full, f.p.Str("checksum_algorithm"))
		r.Set("checksum", sum)
	}
	f.matched = append(f.matched, r)
}

// nameMatches is pfilter: a pattern matches (a regex at the start of the
// name, a glob the whole name) and no exclude does.
func (f *finder) nameMatches(name string) bool {
	for _, re := range f.regexes {
		if matchAtStart(re, name) {
			for _, ex := range f.exRegexes {
				if matchAtStart(ex, name) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// matchAtStart is Python's re.match: a match that begins at the start
// (the leftmost match starts there when any does).
// A match the backtracking engine timed out on counts as none.
func matchAtStart(re *py.Regexp, s string) bool {
	loc, _ := re.FindStringIndex(s)
	return loc != nil && loc[0] == 0
}

func (f *finder) ageMatches(st os.FileInfo) bool {
	if f.age == nil {
		return true
	}
	sys := st.Sys().(*syscall.Stat_t)
	var ts syscall.Timespec
	switch f.p.Str("age_stamp") {
	case "atime":
		ts = sys.Atim
	case "ctime":
		ts = sys.Ctim
	default:
		ts = sys.Mtim
	}
	elapsed := f.now - timespecFloat(ts)
	age := float64(*f.age)
	if age >= 0 {
		return elapsed >= age
	}
	return elapsed <= -age
}

func (f *finder) sizeMatches(st os.FileInfo) bool {
	if f.size == nil {
		return true
	}
	if *f.size >= 0 {
		return st.Size() >= *f.size
	}
	return st.Size() <= -*f.size
}

func (f *finder) modeMatches(st os.FileInfo) bool {
	if f.mode == nil {
		return true
	}
	cur := permOf(st)
	if f.p.Bool("exact_mode") {
		return cur == *f.mode
	}
	return cur&*f.mode != 0
}

// contentMatches is contentfilter: a line that matches at its start, or
// a match anywhere with read_whole_file.
func (f *finder) contentMatches(path string) bool {
	if f.contains == nil {
		return true
	}
	data, err := os.ReadFile(path)
	if err != nil || !utf8.Valid(data) {
		return false
	}
	if f.p.Bool("read_whole_file") {
		ok, _ := f.contains.MatchString(string(data))
		return ok
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 64*1024), len(data)+1)
	sc.Split(splitKeepNewline)
	for sc.Scan() {
		if matchAtStart(f.contains, sc.Text()) {
			return true
		}
	}
	return false
}

// splitKeepNewline splits lines keeping their "\n", as iterating a file does.
func splitKeepNewline(data []byte, atEOF bool) (int, []byte, error) {
	if i := strings.IndexByte(string(data), '\n'); i >= 0 {
		return i + 1, data[:i+1], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// findStatInfo is find's statinfo: stat's keys without the access checks
// and with empty owner names when there are none.
func findStatInfo(st os.FileInfo) *value.Dict {
	sys := st.Sys().(*syscall.Stat_t)
	out := value.NewDict(32)
	addStatCore(out, sys)
	out.Set("gr_name", groupName(int(sys.Gid)))
	out.Set("pw_name", userName(int(sys.Uid)))
	setPermissionFlags(out, sys.Mode)
	return out
}
