package files

import (
	"errors"
	"os"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// withFileCommon appends the file common options a spec does not already
// declare, as add_file_common_args does.
func withFileCommon(opts ...argspec.Option) []argspec.Option {
	have := map[string]bool{}
	for _, o := range opts {
		have[o.Name] = true
	}
	for _, o := range argspec.FileCommonOptions() {
		if !have[o.Name] {
			opts = append(opts, o)
		}
	}
	return opts
}

// fileArgs are the file common arguments for one path
// (load_file_common_arguments). A nil field was not given. SELinux
// contexts are accepted and ignored (README: deliberate differences).
type fileArgs struct {
	path         string
	mode         any
	owner, group *string
	attributes   *string
}

// fileArgs loads the common arguments for path ("" means the module's
// path or dest parameter). With follow, a symlink path is replaced by its
// target.
func (m *amod) fileArgs(path string) fileArgs {
	if path == "" {
		path = m.p.Str("path")
		if !m.p.IsSet("path") {
			path = m.p.Str("dest")
		}
	}
	path = argspec.ExpandPath(path)
	if m.p.Bool("follow") {
		if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSymlink != 0 {
			path = py.Realpath(path)
		}
	}
	fa := fileArgs{path: path}
	if v, ok := m.p.Get("mode"); ok {
		fa.mode = v
	}
	fa.owner = m.optStr("owner")
	fa.group = m.optStr("group")
	fa.attributes = m.optStr("attributes")
	return fa
}

func (m *amod) optStr(k string) *string {
	if s, ok := m.str(k); ok {
		return &s
	}
	return nil
}

// diffSide returns diff[side] as a dict, creating it.
func diffSide(diff *value.Dict, side string) *value.Dict {
	if d, ok := diff.Default(side, nil).(*value.Dict); ok {
		return d
	}
	d := value.NewDict(2)
	diff.Set(side, d)
	return d
}

// recordDiff sets key in the before and after parts of diff (nil: no diff).
func recordDiff(diff *value.Dict, key string, before, after any) {
	if diff == nil {
		return
	}
	diffSide(diff, "before").Set(key, before)
	diffSide(diff, "after").Set(key, after)
}

// setFSAttributes applies owner, group, mode and attributes to fa.path
// when they differ (set_fs_attributes_if_different) and reports whether
// anything changed or would change in check mode.
func (m *amod) setFSAttributes(fa fileArgs, changed bool, diff *value.Dict) (bool, error) {
	var err error
	if changed, err = m.setOwner(fa.path, fa.owner, changed, diff); err != nil {
		return changed, err
	}
	if changed, err = m.setGroup(fa.path, fa.group, changed, diff); err != nil {
		return changed, err
	}
	if changed, err = m.setMode(fa.path, fa.mode, changed, diff); err != nil {
		return changed, err
	}
	return m.setAttributes(fa.path, fa.attributes, changed, diff)
}

// absentInCheckMode is check_file_absent_if_check_mode: in check mode a
// missing file would be created with the attributes, so they "change".
func (m *amod) absentInCheckMode(path string) bool {
	return m.check && !exists(path)
}

// ownership describes one of the two ids set_owner_if_different and
// set_group_if_different manage: how a name resolves, which id of the
// file it is, and the words of their failures.
type ownership struct {
	key, command, kind string
	lookup             func(string) (int, bool)
	current            func(uid, gid int) int
	chown              func(path string, id int) error
}

var (
	userOwnership = ownership{key: "owner", command: "chown", kind: "user", lookup: lookupUID,
		current: func(uid, _ int) int { return uid },
		chown:   func(p string, id int) error { return os.Lchown(p, id, -1) }}
	groupOwnership = ownership{key: "group", command: "chgrp", kind: "group", lookup: lookupGID,
		current: func(_, gid int) int { return gid },
		chown:   func(p string, id int) error { return os.Lchown(p, -1, id) }}
)

func (m *amod) setOwner(path string, owner *string, changed bool, diff *value.Dict) (bool, error) {
	return m.setOwnership(userOwnership, path, owner, changed, diff)
}

func (m *amod) setGroup(path string, group *string, changed bool, diff *value.Dict) (bool, error) {
	return m.setOwnership(groupOwnership, path, group, changed, diff)
}

// setOwnership sets the file's owner or group when it differs.
func (m *amod) setOwnership(o ownership, path string, want *string, changed bool, diff *value.Dict) (bool, error) {
	if want == nil {
		return changed, nil
	}
	if m.absentInCheckMode(path) {
		return true, nil
	}
	uid, gid, err := ownerOf(path)
	if err != nil {
		return changed, err
	}
	orig := o.current(uid, gid)
	id, ok := o.lookup(*want)
	if !ok {
		return changed, module.Fail(o.command+" failed: failed to look up "+o.kind+" "+*want, "path", path)
	}
	if orig == id {
		return changed, nil
	}
	recordDiff(diff, o.key, orig, id)
	if m.check {
		return true, nil
	}
	if err := o.chown(path, id); err != nil {
		if o.kind == "user" {
			// set_owner_if_different passes the OSError on; the group
			// setter does not.
			return changed, failCause(o.command+" failed", pyOSErrorBytes(err), "path", path)
		}
		return changed, module.Fail(o.command+" failed", "path", path)
	}
	return true, nil
}

func (m *amod) setMode(path string, mode any, changed bool, diff *value.Dict) (bool, error) {
	if mode == nil {
		return changed, nil
	}
	if m.absentInCheckMode(path) {
		return true, nil
	}
	st, err := os.Lstat(path)
	if err != nil {
		return changed, err
	}
	want, err := resolveMode(mode, st, path)
	if err != nil {
		return changed, err
	}
	prev := permOf(st)
	if prev == want {
		return changed, nil
	}
	recordDiff(diff, "mode", octalMode(prev), octalMode(want))
	if m.check {
		return true, nil
	}
	if err := chmodNoFollow(path, st, want); err != nil {
		return changed, module.Fail("chmod failed", "path", path, "details", pyOSError(err))
	}
	if st, err = os.Lstat(path); err == nil && permOf(st) != prev {
		changed = true
	}
	return changed, nil
}

// chmodNoFollow sets the mode of path. Linux cannot chmod a symlink
// itself, and ansible-core restores the target's mode after trying, so a
// symlink is left alone; a broken one is no error.
func chmodNoFollow(path string, st os.FileInfo, mode int64) error {
	if st.Mode()&os.ModeSymlink != 0 {
		return nil
	}
	if mode < 0 || mode > 0xFFFFFFFF {
		return errors.New("Python int too large to convert to C int")
	}
	err := syscall.Chmod(path, uint32(mode))
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ELOOP) {
		return nil
	}
	return err
}

func (m *amod) setAttributes(path string, attrs *string, changed bool, diff *value.Dict) (bool, error) {
	if attrs == nil {
		return changed, nil
	}
	if m.absentInCheckMode(path) {
		return true, nil
	}
	existing := readAttributes(path, false)
	op := "="
	want := *attrs
	if strings.HasPrefix(want, "-") || strings.HasPrefix(want, "+") {
		op, want = want[:1], want[1:]
	}
	if want == "" || (existing.flags == want && op != "-") || binPath("chattr") == "" {
		return changed, nil
	}
	var before any
	if existing.ok {
		before = existing.flags
	}
	recordDiff(diff, "attributes", before, op+want)
	if !m.check {
		if err := setAttributes(path, op+want); err != nil {
			return true, module.Fail("chattr failed", "path", path, "details", err.Error())
		}
	}
	return true, nil
}

// exists is os.path.exists: true when path resolves (symlinks followed).
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// lexists is os.path.lexists: true for a broken symlink too.
func lexists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// isLink is os.path.islink.
func isLink(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&os.ModeSymlink != 0
}

// isDir is os.path.isdir (symlinks followed).
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// isFile is os.path.isfile (symlinks followed).
func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
