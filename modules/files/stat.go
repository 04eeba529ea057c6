package files

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// checksumAlgorithms are the digests stat and find accept.
var checksumAlgorithms = []any{"md5", "sha1", "sha224", "sha256", "sha384", "sha512"}

// statDef is ansible.builtin.stat (modules/stat.py).
func statDef() *moduleDef {
	return &moduleDef{name: "stat", checkMode: true, run: runStat, spec: &argspec.Spec{Options: []argspec.Option{
		{Name: "path", Type: argspec.Path, Required: true, Aliases: []string{"dest", "name"}},
		{Name: "follow", Type: argspec.Bool, Default: false},
		{Name: "get_checksum", Type: argspec.Bool, Default: true},
		{Name: "get_mime", Type: argspec.Bool, Default: true, Aliases: []string{"mime", "mime_type", "mime-type"}},
		{Name: "get_attributes", Type: argspec.Bool, Default: true, Aliases: []string{"attr", "attributes"}},
		{Name: "checksum_algorithm", Type: argspec.Str, Default: "sha1", Choices: checksumAlgorithms,
			Aliases: []string{"checksum", "checksum_algo"}},
	}}}
}

func runStat(m *amod) (*value.Dict, error) {
	path := m.p.Str("path")
	st, err := statPath(path, m.p.Bool("follow"))
	if errors.Is(err, fs.ErrNotExist) {
		return value.DictOf("changed", false, "stat", value.DictOf("exists", false)), nil
	}
	if err != nil {
		return nil, module.Fail(strerrorOf(err))
	}
	out := statOutput(path, st)
	if value.Truthy(out.Default("isreg", false)) && value.Truthy(out.Default("readable", false)) && m.p.Bool("get_checksum") {
		sum, err := fileDigest(path, m.p.Str("checksum_algorithm"))
		if err != nil {
			return nil, err
		}
		out.Set("checksum", sum)
	}
	if m.p.Bool("get_mime") {
		mimetype, charset := mimeOf(path)
		out.Set("mimetype", mimetype)
		out.Set("charset", charset)
	}
	if m.p.Bool("get_attributes") {
		out.Set("version", nil)
		out.Set("attributes", []any{})
		out.Set("attr_flags", "")
		if a := readAttributes(path, true); a.ok {
			out.Set("version", a.version)
			out.Set("attributes", a.names())
			out.Set("attr_flags", a.flags)
		}
	}
	return value.DictOf("changed", false, "stat", out), nil
}

// statPath is os.stat or os.lstat.
func statPath(path string, follow bool) (os.FileInfo, error) {
	if follow {
		return os.Stat(path)
	}
	return os.Lstat(path)
}

// strerrorOf is an OSError's strerror alone, as stat's fail_json uses it.
func strerrorOf(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		return py.Strerror(en)
	}
	return err.Error()
}

// statOutput is format_output plus the access checks, link details and
// owner names: the Linux keys of the stat result.
func statOutput(path string, st os.FileInfo) *value.Dict {
	sys := st.Sys().(*syscall.Stat_t)
	mode := sys.Mode
	typ := mode & syscall.S_IFMT
	out := value.DictOf("exists", true, "path", path)
	addStatCore(out, sys)
	setPermissionFlags(out, mode)
	out.Set("blocks", int(sys.Blocks))
	out.Set("block_size", int(sys.Blksize))
	out.Set("device_type", int(sys.Rdev))
	out.Set("readable", syscall.Access(path, 4) == nil)
	out.Set("writeable", syscall.Access(path, 2) == nil)
	out.Set("executable", syscall.Access(path, 1) == nil)
	if typ == syscall.S_IFLNK {
		real := py.Realpath(path)
		target, _ := os.Readlink(path)
		out.Set("lnk_source", real)
		out.Set("lnk_target", target)
	}
	if n := userName(int(sys.Uid)); n != "" {
		out.Set("pw_name", n)
	}
	if n := groupName(int(sys.Gid)); n != "" {
		out.Set("gr_name", n)
	}
	return out
}

// addStatCore adds the keys stat and find share, in their order: the
// mode, the file type booleans, ids, size, inode, device, links and times.
func addStatCore(out *value.Dict, sys *syscall.Stat_t) {
	typ := sys.Mode & syscall.S_IFMT
	for _, kv := range []struct {
		k string
		v any
	}{
		{"mode", fourOctal(int64(sys.Mode & permBits))},
		{"isdir", typ == syscall.S_IFDIR}, {"ischr", typ == syscall.S_IFCHR},
		{"isblk", typ == syscall.S_IFBLK}, {"isreg", typ == syscall.S_IFREG},
		{"isfifo", typ == syscall.S_IFIFO}, {"islnk", typ == syscall.S_IFLNK},
		{"issock", typ == syscall.S_IFSOCK},
		{"uid", int(sys.Uid)}, {"gid", int(sys.Gid)}, {"size", int(sys.Size)},
		{"inode", int(sys.Ino)}, {"dev", int(sys.Dev)}, {"nlink", int(sys.Nlink)},
		{"atime", timespecFloat(sys.Atim)}, {"mtime", timespecFloat(sys.Mtim)}, {"ctime", timespecFloat(sys.Ctim)},
	} {
		out.Set(kv.k, kv.v)
	}
}

// setPermissionFlags adds the wusr ... isgid booleans of a mode.
func setPermissionFlags(out *value.Dict, mode uint32) {
	for _, f := range []struct {
		key string
		bit uint32
	}{
		{"wusr", 0o200}, {"rusr", 0o400}, {"xusr", 0o100},
		{"wgrp", 0o020}, {"rgrp", 0o040}, {"xgrp", 0o010},
		{"woth", 0o002}, {"roth", 0o004}, {"xoth", 0o001},
		{"isuid", sISUID}, {"isgid", sISGID},
	} {
		out.Set(f.key, mode&f.bit != 0)
	}
}

// fourOctal formats permission bits as '%04o'.
func fourOctal(m int64) string {
	s := strings.TrimPrefix(octalMode(m), "0")
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}

// timespecFloat is a timestamp as Python's float st_atime.
func timespecFloat(ts syscall.Timespec) float64 {
	return float64(ts.Sec) + float64(ts.Nsec)*1e-9
}

// mimeOf runs `file --mime-type --mime-encoding` as stat does; without
// the command, or when it fails, both are "unknown".
func mimeOf(path string) (mimetype, charset string) {
	mimetype, charset = "unknown", "unknown"
	cmd := binPath("file")
	if cmd == "" {
		return
	}
	out, err := exec.Command(cmd, "--mime-type", "--mime-encoding", path).Output()
	if err != nil {
		return
	}
	s := strings.TrimRight(string(out), "\n")
	i := strings.LastIndex(s, ":")
	if i < 0 {
		return
	}
	typ, enc, ok := strings.Cut(s[i+1:], ";")
	if !ok {
		return
	}
	_, cs, ok := strings.Cut(enc, "=")
	if !ok {
		return
	}
	return strings.TrimSpace(typ), strings.TrimSpace(cs)
}
