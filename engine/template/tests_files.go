package template

import (
	"os"
	"path/filepath"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// fileTests returns ansible-core's tests on paths and files of the controller.
func fileTests() family {
	return family{collection: "ansible.builtin", tests: map[string]TestFunc{
		"abs":          pathTest("isabs", filepath.IsAbs),
		"directory":    pathTest("isdir", isDir),
		"exists":       pathTest("exists", func(p string) bool { _, err := os.Stat(p); return err == nil }),
		"file":         pathTest("isfile", isFile),
		"is_abs":       pathTest("isabs", filepath.IsAbs),
		"is_dir":       pathTest("isdir", isDir),
		"is_file":      pathTest("isfile", isFile),
		"is_link":      pathTest("islink", isLink),
		"is_mount":     pathTest("ismount", isMount),
		"is_same_file": testSameFile,
		"link":         pathTest("islink", isLink),
		"link_exists":  pathTest("lexists", func(p string) bool { _, err := os.Lstat(p); return err == nil }),
		"mount":        pathTest("ismount", isMount),
		"same_file":    testSameFile,
	}}
}

func pathTest(fn string, f func(string) bool) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		if _, err := py.Sig(fn).Bind(a); err != nil {
			return false, err
		}
		s, ok := in.(string)
		if !ok {
			if fn == "isabs" {
				return false, typeErrorf("expected str, bytes or os.PathLike object, not %s", value.TypeName(in))
			}
			return false, nil
		}
		return f(s), nil
	}
}

func isLink(p string) bool {
	st, err := os.Lstat(p)
	return err == nil && st.Mode()&os.ModeSymlink != 0
}

func isMount(p string) bool {
	st, err := os.Lstat(p)
	if err != nil || st.Mode()&os.ModeSymlink != 0 {
		return false
	}
	parent, err := os.Lstat(filepath.Join(p, ".."))
	if err != nil {
		return false
	}
	s1, ok1 := st.Sys().(*syscall.Stat_t)
	s2, ok2 := parent.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 {
		return false
	}
	return s1.Dev != s2.Dev || s1.Ino == s2.Ino
}

func testSameFile(_ *Ctx, in any, a *Args) (bool, error) {
	v, err := py.Sig("samefile", py.Req("f2")).Bind(a)
	if err != nil {
		return false, err
	}
	s1, err := os.Stat(value.Str(in))
	if err != nil {
		return false, typeErrorf("[Errno 2] No such file or directory: %s", value.Repr(value.Str(in)))
	}
	s2, err := os.Stat(value.Str(v[0]))
	if err != nil {
		return false, typeErrorf("[Errno 2] No such file or directory: %s", value.Repr(value.Str(v[0])))
	}
	return os.SameFile(s1, s2), nil
}

func isDir(p string) bool { st, err := os.Stat(p); return err == nil && st.IsDir() }

func isFile(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }
