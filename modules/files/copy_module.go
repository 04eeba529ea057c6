package files

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// copyModuleDef is the copy module proper (modules/copy.py): what the copy
// action runs on the target once the source is there.
func copyModuleDef() *moduleDef {
	return &moduleDef{name: "copy", checkMode: true, run: runCopyModule, spec: &argspec.Spec{Options: withFileCommon(
		argspec.Option{Name: "src", Type: argspec.Path},
		argspec.Option{Name: "_original_basename", Type: argspec.Str},
		argspec.Option{Name: "content", Type: argspec.Str, NoLog: true},
		argspec.Option{Name: "dest", Type: argspec.Path, Required: true},
		argspec.Option{Name: "backup", Type: argspec.Bool, Default: false},
		argspec.Option{Name: "force", Type: argspec.Bool, Default: true},
		argspec.Option{Name: "validate", Type: argspec.Str},
		argspec.Option{Name: "directory_mode", Type: argspec.Raw},
		argspec.Option{Name: "remote_src", Type: argspec.Bool, Default: false},
		argspec.Option{Name: "local_follow", Type: argspec.Bool},
		argspec.Option{Name: "checksum", Type: argspec.Str},
		argspec.Option{Name: "follow", Type: argspec.Bool, Default: false},
	)}}
}

// copyRun is one run of the copy module.
type copyRun struct {
	*amod
	src, dest string
	remoteSrc bool
}

func runCopyModule(m *amod) (*value.Dict, error) {
	c := &copyRun{amod: m, src: m.p.Str("src"), dest: m.p.Str("dest"), remoteSrc: m.p.Bool("remote_src")}
	if !strings.Contains(c.dest, "/") {
		c.dest = "./" + c.dest
	}
	if !exists(c.src) {
		return nil, module.Fail("Source " + c.src + " not found")
	}
	if syscall.Access(c.src, 4) != nil {
		return nil, module.Fail("Source " + c.src + " not readable")
	}
	if mode, _ := m.p.Get("mode"); mode == "preserve" {
		st, _ := os.Stat(c.src)
		m.p.Set("mode", octalMode(permOf(st)))
	}
	var checksumSrc, md5Src any
	if isFile(c.src) {
		checksumSrc, _ = fileDigest(c.src, "sha1")
		md5Src, _ = fileDigest(c.src, "md5")
	} else if c.remoteSrc && !isDir(c.src) {
		return nil, module.Fail("Cannot copy invalid source '" + c.src + "': not a file")
	}
	if want, ok := m.str("checksum"); ok && want != "" && checksumSrc != want {
		return nil, module.Fail("Copied file does not match the expected checksum. Transfer failed.",
			"checksum", checksumSrc, "expected_checksum", want)
	}
	changed, early, err := c.prepareDest()
	if early != nil || err != nil {
		return early, err
	}
	res, err := c.replace(checksumSrc, md5Src, changed)
	if err != nil {
		return nil, err
	}
	fa := m.fileArgs(c.dest)
	ch, err := m.setFSAttributes(fa, value.Truthy(res.Default("changed", false)), nil)
	if err != nil {
		return nil, err
	}
	res.Set("changed", ch)
	return res, nil
}

// prepareDest resolves dest (a directory gets the source's name, missing
// parents of a dest ending in / are created) and checks it can be
// written. early is a result that ends the run.
func (c *copyRun) prepareDest() (changed bool, early *value.Dict, err error) {
	base := c.p.Str("_original_basename")
	if strings.HasSuffix(c.dest, "/") {
		if base != "" {
			c.dest = py.Join([]string{c.dest, base})
		}
		dir := filepath.Dir(c.dest)
		if !exists(dir) {
			if c.check {
				return true, value.DictOf("msg", "dest directory "+dir+" would be created", "changed", true, "src", c.src), nil
			}
			if changed, err = c.makeDestDirs(dir); err != nil {
				return changed, nil, err
			}
		}
	}
	if isDir(c.dest) {
		name := filepath.Base(c.src)
		if base != "" {
			name = base
		}
		c.dest = py.Join([]string{c.dest, name})
	}
	if exists(c.dest) {
		if isLink(c.dest) && c.p.Bool("follow") {
			c.dest = py.Realpath(c.dest)
		}
		if !c.p.Bool("force") {
			return changed, value.DictOf("msg", "file already exists", "src", c.src, "dest", c.dest, "changed", false), nil
		}
	} else if dir := filepath.Dir(c.dest); !exists(dir) {
		if _, err := os.Stat(dir); err != nil && strings.Contains(strings.ToLower(pyOSError(err)), "permission denied") {
			return changed, nil, module.Fail("Destination directory " + dir + " is not accessible")
		}
		return changed, nil, module.Fail("Destination directory " + dir + " does not exist")
	}
	if syscall.Access(filepath.Dir(c.dest), 2) != nil && !c.p.Bool("unsafe_writes") {
		return changed, nil, module.Fail("Destination " + filepath.Dir(c.dest) + " not writable")
	}
	return changed, nil, nil
}

// makeDestDirs creates the missing directories above dest, giving the new
// ones directory_mode and the owner (adjust_recursive_directory_permissions).
func (c *copyRun) makeDestDirs(dir string) (bool, error) {
	existing, created := splitPreExistingDir(dir)
	if existing == "" {
		return false, module.Fail("The '/' directory doesn't exist on this machine.")
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return false, err
	}
	fa := c.fileArgs("")
	fa.mode, _ = c.p.Get("directory_mode")
	changed := true
	cur := existing
	for _, name := range created {
		cur = py.Join([]string{cur, name})
		fa.path = cur
		var err error
		if changed, err = c.setFSAttributes(fa, changed, nil); err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// splitPreExistingDir returns the deepest existing ancestor of dirname and
// the names of the directories below it that do not exist yet.
func splitPreExistingDir(dirname string) (string, []string) {
	head, tail := filepath.Split(dirname)
	head = strings.TrimSuffix(head, "/")
	if head == "" && !strings.HasPrefix(dirname, "/") {
		return ".", []string{tail}
	}
	if head == "" {
		head = "/"
	}
	if exists(head) {
		return head, []string{tail}
	}
	if head == "/" {
		return "", nil
	}
	pre, names := splitPreExistingDir(head)
	return pre, append(names, tail)
}

// replace writes src over dest when their checksums differ (or dest is a
// symlink): backup, validate, then an atomic move.
func (c *copyRun) replace(checksumSrc, md5Src any, changed bool) (*value.Dict, error) {
	var checksumDest any
	if exists(c.dest) && syscall.Access(c.dest, 4) == nil && isFile(c.dest) {
		checksumDest, _ = fileDigest(c.dest, "sha1")
	}
	var backupFile string
	if checksumSrc != checksumDest || isLink(c.dest) {
		if !c.check {
			var err error
			if backupFile, err = c.writeDest(); err != nil {
				return nil, err
			}
		}
		changed = true
	}
	if checksumSrc == nil && checksumDest == nil && c.remoteSrc && isDir(c.src) && (isDir(c.dest) || !exists(c.dest)) {
		ch, err := c.copyDirectoryTree()
		if err != nil {
			return nil, err
		}
		changed = changed || ch
	}
	res := value.DictOf("dest", c.dest, "src", c.src, "md5sum", md5Src, "checksum", checksumSrc, "changed", changed)
	if backupFile != "" {
		res.Set("backup_file", backupFile)
	}
	return res, nil
}

// writeDest does the replacing itself and returns the backup's name.
func (c *copyRun) writeDest() (string, error) {
	var backupFile string
	if c.p.Bool("backup") && exists(c.dest) {
		b, err := backupLocal(c.dest, false)
		if err != nil {
			return "", err
		}
		backupFile = b
	}
	if isLink(c.dest) {
		if err := os.Remove(c.dest); err != nil {
			return "", err
		}
		if f, err := os.Create(c.dest); err == nil {
			f.Close()
		}
	}
	if validate, ok := c.str("validate"); ok {
		if err := c.validateSource(validate); err != nil {
			return "", err
		}
	}
	src := c.src
	if c.remoteSrc && isFile(c.src) {
		tmp, err := copyToTempBeside(c.src, filepath.Dir(c.dest))
		if err != nil {
			return "", err
		}
		src = tmp
	}
	if err := atomicMove(src, c.dest, c.p.Bool("unsafe_writes"), !c.remoteSrc); err != nil {
		return "", err
	}
	return backupFile, nil
}

// validateSource gives src the wanted mode and owner and runs the
// validate command on it.
func (c *copyRun) validateSource(validate string) error {
	mode, _ := c.p.Get("mode")
	if _, err := c.setMode(c.src, mode, false, nil); err != nil {
		return err
	}
	if _, err := c.setOwner(c.src, c.optStr("owner"), false, nil); err != nil {
		return err
	}
	if _, err := c.setGroup(c.src, c.optStr("group"), false, nil); err != nil {
		return err
	}
	if !strings.Contains(validate, "%s") {
		return module.Fail("validate must contain %s: " + validate)
	}
	out, err := runCommand(c.req, pyPercentS(validate, c.src))
	if err != nil {
		return err
	}
	if out.rc != 0 {
		return module.Fail("failed to validate", "exit_status", out.rc, "stdout", out.stdout, "stderr", out.stderr)
	}
	return nil
}

// copyToTempBeside copies src with its mode and times to a new temporary
// file in dir, as the copy module stages a remote_src file.
func copyToTempBeside(src, dir string) (string, error) {
	f, err := os.CreateTemp(dir, "tmp")
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	if err := copyFileContents(src, name); err != nil {
		os.Remove(name)
		return "", err
	}
	if st, err := os.Stat(src); err == nil {
		_ = syscall.Chmod(name, uint32(permOf(st)))
		_ = os.Chtimes(name, atime(st), st.ModTime())
	}
	return name, nil
}
