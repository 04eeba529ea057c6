package files

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/files/pyre"
)

// assembleModuleDef is the assemble module (modules/assemble.py): it
// concatenates the fragments of a directory on the target into dest.
func assembleModuleDef() *moduleDef {
	return &moduleDef{name: "assemble", checkMode: true, run: runAssembleModule, spec: &argspec.Spec{Options: withFileCommon(
		argspec.Option{Name: "src", Type: argspec.Path, Required: true},
		argspec.Option{Name: "delimiter", Type: argspec.Str},
		argspec.Option{Name: "dest", Type: argspec.Path, Required: true},
		argspec.Option{Name: "backup", Type: argspec.Bool, Default: false},
		argspec.Option{Name: "remote_src", Type: argspec.Bool, Default: true},
		argspec.Option{Name: "regexp", Type: argspec.Str},
		argspec.Option{Name: "ignore_hidden", Type: argspec.Bool, Default: false},
		argspec.Option{Name: "validate", Type: argspec.Str},
		argspec.Option{Name: "decrypt", Type: argspec.Bool, Default: true},
	)}}
}

// assembleEntry is ansible.builtin.assemble, the action plugin
// (plugins/action/assemble.py): with remote_src (the default) it runs the
// module; otherwise it assembles fragments found on the controller and
// copies the result.
func assembleEntry() module.Entry {
	return module.Entry{FQCN: "ansible.builtin.assemble", Flags: module.NoAsync, Module: module.Func(runAssembleAction)}
}

func runAssembleModule(m *amod) (*value.Dict, error) {
	src, dest := m.p.Str("src"), m.p.Str("dest")
	res := value.DictOf("src", src, "dest", dest)
	if !exists(src) {
		return nil, module.Fail("Source (" + src + ") does not exist")
	}
	if !isDir(src) {
		return nil, module.Fail("Source (" + src + ") is not a directory")
	}
	var re *py.Regexp
	if p, ok := m.str("regexp"); ok {
		var err error
		if re, err = pyre.Compile(p, pyre.Text); err != nil {
			return nil, module.Fail("Invalid Regexp (" + err.Error() + ") in \"" + p + "\"")
		}
	}
	validate, hasValidate := m.str("validate")
	if hasValidate && validate != "" && !strings.Contains(validate, "%s") {
		return nil, module.Fail("validate must contain %s: " + validate)
	}
	delimiter, _ := m.str("delimiter")
	data, err := assembleFragments(src, delimiter, re, m.p.Bool("ignore_hidden"), os.ReadFile)
	if err != nil {
		return nil, err
	}
	tmp, err := writeTempBeside(filepath.Dir(dest), data)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	res.Set("checksum", digestHex("sha1", data))
	res.Set("md5sum", digestHex("md5", data))
	destSum, _ := fileDigest(dest, "sha1")
	changed := false
	if res.Default("checksum", nil) != destSum {
		if err := m.validateAssembled(res, validate, tmp); err != nil {
			return nil, err
		}
		if m.p.Bool("backup") && destSum != nil {
			b, err := backupLocal(dest, m.check)
			if err != nil {
				return nil, err
			}
			res.Set("backup_file", b)
		}
		if !m.check {
			if err := atomicMove(tmp, dest, m.p.Bool("unsafe_writes"), true); err != nil {
				return nil, err
			}
		}
		changed = true
	}
	changed, err = m.setFSAttributes(m.fileArgs(""), changed, nil)
	if err != nil {
		return nil, err
	}
	res.Set("changed", changed)
	res.Set("msg", "OK")
	return res, nil
}

// validateAssembled runs the validate command on the assembled file.
func (m *amod) validateAssembled(res *value.Dict, validate, path string) error {
	if validate == "" {
		return nil
	}
	out, err := runCommand(m.req, pyPercentS(validate, path))
	if err != nil {
		return err
	}
	res.Set("validation", value.DictOf("rc", out.rc, "stdout", out.stdout, "stderr", out.stderr))
	if out.rc != 0 {
		return module.Fail("failed to validate: rc:" + strconv.Itoa(out.rc) + " error:" + out.stderr)
	}
	return nil
}

// assembleFragments concatenates the regular files of dir in name order
// (assemble_from_fragments): a newline after a fragment that lacks one,
// the delimiter (escape sequences decoded, newline-terminated) between
// fragments.
func assembleFragments(dir, delimiter string, re *py.Regexp, ignoreHidden bool, read func(string) ([]byte, error)) ([]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	delim := []byte(pyEscapeDecode(delimiter))
	var out bytes.Buffer
	first, addNewline := true, false
	for _, name := range names {
		if re != nil {
			// A match the backtracking engine timed out on counts as
			// none: the fragment is left out.
			if ok, _ := re.MatchString(name); !ok {
				continue
			}
		}
		p := dir + "/" + name
		if !isFile(p) || (ignoreHidden && strings.HasPrefix(name, ".")) {
			continue
		}
		content, err := read(p)
		if err != nil {
			return nil, err
		}
		if addNewline {
			out.WriteByte('\n')
		}
		if !first && len(delim) > 0 {
			out.Write(delim)
			if delim[len(delim)-1] != '\n' {
				out.WriteByte('\n')
			}
		}
		out.Write(content)
		first = false
		addNewline = !bytes.HasSuffix(content, []byte("\n"))
	}
	return out.Bytes(), nil
}

// pyEscapeDecode is codecs.escape_decode: backslash escapes (\n, \t, \\,
// \xHH, octal) become the bytes they name; unknown ones stay.
func pyEscapeDecode(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\', '\'', '"':
			b.WriteByte(c)
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\n':
		case 'x':
			if i+2 < len(s) {
				if n, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
					b.WriteByte(byte(n))
					i += 2
					continue
				}
			}
			b.WriteString(`\x`)
		default:
			if c >= '0' && c <= '7' {
				j := i
				for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				n, _ := strconv.ParseUint(s[i:j], 8, 16)
				b.WriteByte(byte(n))
				i = j - 1
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String()
}

// runAssembleAction is the assemble action plugin.
func runAssembleAction(req *module.Request) (*value.Dict, error) {
	args := req.Args.Copy()
	decrypt := argFlag(args, "decrypt", true)
	args.Delete("decrypt")
	src, dest := args.Default("src", nil), args.Default("dest", nil)
	if src == nil || dest == nil {
		return nil, module.ActionFail("src and dest are required", nil)
	}
	remote, _ := argspec.LenientBoolean(args.Default("remote_src", "yes"))
	if remote {
		return assembleModuleDef().invoke(req, args, "ansible.legacy.assemble")
	}
	a := &copyAction{req: req, args: args}
	defer a.cleanup()
	return a.assembleLocal(value.Str(src), expandUserHome(value.Str(dest)), decrypt)
}

// assembleLocal assembles fragments found on the controller and copies
// the result to dest (or runs the file module when it is unchanged).
func (a *copyAction) assembleLocal(src, dest string, decrypt bool) (*value.Dict, error) {
	found, err := a.findSource(src)
	if err != nil {
		return nil, err
	}
	if !isDir(found) {
		return nil, module.ActionFail("Source ("+found+") is not a directory", nil)
	}
	var re *py.Regexp
	if p, ok := a.args.Get("regexp"); ok && p != nil {
		if re, err = pyre.Compile(value.Str(p), pyre.Text); err != nil {
			return nil, module.ActionFail(err.Error(), nil)
		}
	}
	delimiter, _ := a.arg("delimiter").(string)
	read := os.ReadFile
	if decrypt {
		// The action reads each fragment through get_real_file, which
		// decrypts a vault-encrypted one.
		read = func(p string) ([]byte, error) {
			real, cleanup, err := module.DecryptedFile(a.req, p)
			if err != nil {
				return nil, err
			}
			defer cleanup()
			return os.ReadFile(real)
		}
	}
	data, err := assembleFragments(strings.TrimSuffix(found, "/"), delimiter, re, a.flag("ignore_hidden", false), read)
	if err != nil {
		return nil, err
	}
	if a.localTmp == "" {
		if a.localTmp, err = localTmpDir(); err != nil {
			return nil, err
		}
	}
	f, err := mkstemp(a.localTmp, "tmp", "")
	if err != nil {
		return nil, err
	}
	path := f.Name()
	_, err = f.Write(data)
	f.Close()
	if err != nil {
		return nil, err
	}
	args := a.args.Copy()
	for _, k := range []string{"remote_src", "regexp", "delimiter", "ignore_hidden", "decrypt"} {
		args.Delete(k)
	}
	args.Set("dest", dest)
	if digestHex("sha1", data) == remoteStat(dest, a.flag("follow", false), true).checksum {
		return fileDef().invoke(a.req, args, "ansible.legacy.file")
	}
	var diff *value.Dict
	if a.req.Diff {
		diff = a.diffData(dest, path, false)
	}
	if a.remoteTmp == "" {
		if a.remoteTmp, err = remoteTmpDir(a.req); err != nil {
			return nil, err
		}
	}
	xfered := filepath.Join(a.remoteTmp, "src")
	if err := copyFileContents(path, xfered); err != nil {
		return nil, err
	}
	args.Set("src", xfered)
	res, err := copyModuleDef().invoke(a.req, args, "ansible.legacy.copy")
	if err == nil && diff != nil && diff.Len() > 0 {
		res.Set("diff", diff)
	}
	return res, err
}
