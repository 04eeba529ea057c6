package files

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// unarchiveEntry is ansible.builtin.unarchive: the unarchive action plugin
// (plugins/action/unarchive.py), which copies a controller archive to the
// target's temporary directory unless remote_src, then runs the module.
func unarchiveEntry() module.Entry {
	return module.Entry{FQCN: "ansible.builtin.unarchive", Flags: module.NoAsync, Module: module.Func(runUnarchiveAction)}
}

// unarchiveDef is the unarchive module (modules/unarchive.py): it picks a
// handler for the archive, compares it with dest and unpacks it natively
// (archive/tar, archive/zip), reporting the command ansible-core's
// gtar/unzip handlers would have run.
// tmpDir is the task's temporary directory (AnsibleModule.tmpdir), where a
// URL source is downloaded.
func unarchiveDef(tmpDir string) *moduleDef {
	run := func(m *amod) (*value.Dict, error) {
		u := &unarchiveRun{amod: m, src: m.p.Str("src"), dest: m.p.Str("dest"), tmpDir: tmpDir}
		return u.run()
	}
	return &moduleDef{name: "unarchive", checkMode: true, run: run, spec: &argspec.Spec{
		Options: withFileCommon(
			argspec.Option{Name: "src", Type: argspec.Path, Required: true},
			argspec.Option{Name: "dest", Type: argspec.Path, Required: true},
			argspec.Option{Name: "remote_src", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "creates", Type: argspec.Path},
			argspec.Option{Name: "list_files", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "keep_newer", Type: argspec.Bool, Default: false},
			argspec.Option{Name: "exclude", Type: argspec.List, Elements: argspec.Str, Default: []any{}},
			argspec.Option{Name: "include", Type: argspec.List, Elements: argspec.Str, Default: []any{}},
			argspec.Option{Name: "extra_opts", Type: argspec.List, Elements: argspec.Str, Default: []any{}},
			argspec.Option{Name: "validate_certs", Type: argspec.Bool, Default: true},
			argspec.Option{Name: "io_buffer_size", Type: argspec.Int, Default: 64 * 1024},
			argspec.Option{Name: "copy", Type: argspec.Bool, Default: true},
			argspec.Option{Name: "decrypt", Type: argspec.Bool, Default: true},
		),
		Rules: argspec.Rules{MutuallyExclusive: [][]string{{"include", "exclude"}}},
	}}
}

// runUnarchiveAction is the action plugin: copy/remote_src, creates, the
// controller source and the destination check, then the module.
func runUnarchiveAction(req *module.Request) (*value.Dict, error) {
	args := req.Args.Copy()
	remoteSrc := argFlag(args, "remote_src", false)
	if args.Has("copy") {
		if args.Has("remote_src") {
			return nil, module.ActionFail("parameters are mutually exclusive: ('copy', 'remote_src')", nil)
		}
		remoteSrc = !argFlag(args, "copy", false)
		args.Delete("copy")
		args.Set("remote_src", remoteSrc)
	}
	source, dest := args.Default("src", nil), args.Default("dest", nil)
	if source == nil || dest == nil {
		return nil, module.ActionFail("src (or content) and dest are required", nil)
	}
	if creates := args.Default("creates", nil); value.Truthy(creates) {
		path := expandUserHome(value.Str(creates))
		if exists(underBaseDir(req, path)) {
			return value.DictOf("changed", false, "skipped", true, "msg", "skipped, since "+path+" exists"), nil
		}
	}
	destPath := expandUserHome(value.Str(dest))
	srcPath := py.ExpandUser(value.Str(source), os.LookupEnv)
	if !remoteSrc {
		found, searched, ok := req.Host.FindFile("files", srcPath)
		if !ok {
			return nil, errors.New(search.NotFoundMessage(srcPath, searched))
		}
		srcPath = found
	}
	if !isDir(underBaseDir(req, destPath)) {
		return nil, module.ActionFail("dest '"+destPath+"' must be an existing dir", nil)
	}
	tmp, err := remoteTmpDir(req)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if !remoteSrc {
		if argFlag(args, "decrypt", true) {
			// get_real_file: a vault-encrypted archive is sent decrypted.
			real, cleanup, err := module.DecryptedFile(req, srcPath)
			if err != nil {
				return nil, err
			}
			defer cleanup()
			srcPath = real
		}
		transferred := filepath.Join(tmp, "source")
		if err := copyFileContents(srcPath, transferred); err != nil {
			return nil, module.ActionFail("Failed to transfer "+srcPath+": "+err.Error(), err)
		}
		args.Set("src", transferred)
	}
	args.Delete("decrypt")
	return unarchiveDef(tmp).invoke(req, args, "ansible.legacy.unarchive")
}

// underBaseDir resolves a relative target path where the modules
// ansible-core runs on the local connection resolve it: in the playbook's
// directory (see module.InBaseDir).
func underBaseDir(req *module.Request, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(req.BaseDir(), p)
}

// unarchiveRun is one run of the unarchive module.
type unarchiveRun struct {
	*amod
	src, dest, absDest string
	tmpDir             string
	fa                 fileArgs
}

// run is the module's main(): it checks src and dest, picks the handler,
// unpacks unless dest already matches (or only reports it in check mode),
// then applies the file arguments to what the archive holds.
func (u *unarchiveRun) run() (*value.Dict, error) {
	m := u.amod
	u.absDest, _ = filepath.Abs(u.dest)
	if !filepath.IsAbs(u.dest) {
		m.warn(fmt.Sprintf("Relative destination path '%s' was resolved to absolute path '%s'.", u.dest, u.absDest))
	}
	u.fa = m.fileArgs(u.absDest)
	if err := u.resolveSource(); err != nil {
		return nil, err
	}
	if !isDir(u.absDest) {
		return nil, module.Fail("Destination '" + u.dest + "' is not a directory")
	}
	h, err := pickArchiveHandler(u)
	if err != nil {
		return nil, err
	}
	if c, ok := h.(io.Closer); ok {
		defer c.Close()
	}
	res := value.DictOf("handler", h.name(), "dest", u.dest, "src", u.src)
	state, err := h.isUnarchived()
	if err != nil {
		return nil, err
	}
	changed := false
	switch {
	case m.check:
		changed = !state.unarchived
	case !state.unarchived:
		out := h.unarchive()
		res.Set("extract_results", out.dict())
		if out.rc != 0 {
			f := module.Fail(fmt.Sprintf("failed to unpack %s to %s", u.src, u.dest))
			f.Result.Update(res)
			return nil, f
		}
		changed = true
	}
	res.Set("changed", changed)
	if state.diff != "" {
		res.Set("diff", value.DictOf("prepared", state.diff))
	}
	if !m.check {
		if changed, err = u.applyAttributes(h.files(), changed); err != nil {
			return nil, err
		}
		res.Set("changed", changed)
	}
	if m.p.Bool("list_files") {
		res.Set("files", stringsToAny(h.files()))
	}
	return res, nil
}

// resolveSource checks src (downloading a URL with remote_src) and makes
// it absolute.
func (u *unarchiveRun) resolveSource() error {
	if !exists(u.src) {
		switch {
		case !u.p.Bool("remote_src"):
			return module.Fail("Source '" + u.src + "' failed to transfer")
		case strings.Contains(u.src, "://"):
			path, err := u.download(u.src)
			if err != nil {
				return err
			}
			u.src = path
		default:
			return module.Fail("Source '" + u.src + "' does not exist")
		}
	}
	if !accessOK(u.src, 4) {
		return module.Fail("Source '" + u.src + "' not readable")
	}
	u.src, _ = filepath.Abs(u.src)
	st, err := os.Stat(u.src)
	if err != nil {
		return module.Fail("Source '" + u.src + "' not readable, " + pyOSError(err))
	}
	if st.Size() == 0 {
		return module.Fail("Invalid archive '" + u.src + "', the file is 0 bytes")
	}
	return nil
}

// applyAttributes sets mode, owner and group on every unpacked file and on
// the top folders, as the module does after unpacking.
func (u *unarchiveRun) applyAttributes(names []string, changed bool) (bool, error) {
	var tops []string
	seen := map[string]bool{}
	var err error
	for _, name := range names {
		fa := u.fa
		fa.path = filepath.Join(u.absDest, name)
		if strings.HasSuffix(name, "/") || name == "" {
			fa.path += "/"
		}
		if changed, err = u.setFSAttributes(fa, changed, nil); err != nil {
			return changed, err
		}
		if top, _, ok := strings.Cut(name, "/"); ok && !seen[top] {
			seen[top] = true
			tops = append(tops, top)
		}
	}
	for _, top := range tops {
		fa := u.fa
		fa.path = u.dest + "/" + top
		if changed, err = u.setFSAttributes(fa, changed, nil); err != nil {
			return changed, err
		}
	}
	return changed, nil
}

func stringsToAny(in []string) []any {
	out := make([]any, len(in))
	for i, s := range in {
		out[i] = s
	}
	return out
}
