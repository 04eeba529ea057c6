package lookup

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// fileTests returns ansible-core's tests on the files of the controller
// (abs, which reads no file, is the language's).
func fileTests() template.Library {
	return template.Library{Collection: "ansible.builtin", Tests: map[string]template.TestFunc{
		"directory":    pathTest("isdir", isDir),
		"exists":       pathTest("exists", func(p string) bool { _, err := os.Stat(p); return err == nil }),
		"file":         pathTest("isfile", isFile),
		"is_dir":       pathTest("isdir", isDir),
		"is_file":      pathTest("isfile", isFile),
		"is_link":      pathTest("islink", isLink),
		"is_mount":     pathTest("ismount", isMount),
		"is_same_file": testSameFile,
		"link":         pathTest("islink", isLink),
		"link_exists":  pathTest("lexists", func(p string) bool { _, err := os.Lstat(p); return err == nil }),
		"mount":        pathTest("ismount", isMount),
		"same_file":    testSameFile,
		"vaulted_file": testVaultedFile,
	}}
}

func pathTest(fn string, f func(string) bool) template.TestFunc {
	return func(_ *template.Ctx, in any, a *template.Args) (bool, error) {
		if _, err := py.Sig(fn).Bind(a); err != nil {
			return false, err
		}
		s, ok := in.(string)
		if !ok {
			return false, nil
		}
		return f(s), nil
	}
}

// testVaultedFile is vaulted_file: whether the file holds vault text.
func testVaultedFile(_ *template.Ctx, in any, a *template.Args) (bool, error) {
	if _, err := py.Sig("vaulted_file").Bind(a); err != nil {
		return false, err
	}
	b, err := os.ReadFile(value.Str(in))
	if err != nil {
		return false, template.Errorf("Cannot test if the file %s is a vault.", value.Repr(in))
	}
	return strings.HasPrefix(string(b), "$ANSIBLE_VAULT;"), nil
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

func testSameFile(_ *template.Ctx, in any, a *template.Args) (bool, error) {
	v, err := py.Sig("samefile", py.Req("f2")).Bind(a)
	if err != nil {
		return false, err
	}
	s1, err := os.Stat(value.Str(in))
	if err != nil {
		return false, template.TypeErrorf("[Errno 2] No such file or directory: %s", value.Repr(value.Str(in)))
	}
	s2, err := os.Stat(value.Str(v[0]))
	if err != nil {
		return false, template.TypeErrorf("[Errno 2] No such file or directory: %s", value.Repr(value.Str(v[0])))
	}
	return os.SameFile(s1, s2), nil
}

func isDir(p string) bool { st, err := os.Stat(p); return err == nil && st.IsDir() }

func isFile(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }
