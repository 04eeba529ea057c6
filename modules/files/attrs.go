package files

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// fileAttributeNames maps lsattr's flag letters to the names Ansible
// reports (module_utils.common.file.FILE_ATTRIBUTES).
var fileAttributeNames = map[byte]string{
	'A': "noatime", 'a': "append", 'c': "compressed", 'C': "nocow", 'd': "nodump",
	'D': "dirsync", 'e': "extents", 'E': "encrypted", 'h': "blocksize", 'i': "immutable",
	'I': "indexed", 'j': "journalled", 'N': "inline", 's': "zero", 'S': "synchronous",
	't': "notail", 'T': "blockroot", 'u': "undelete", 'X': "compressedraw", 'Z': "compresseddirty",
}

// binPath finds an executable as AnsibleModule.get_bin_path does: on
// PATH, then in the sbin directories.
func binPath(name string) string {
	dirs := filepath.SplitList(os.Getenv("PATH"))
	dirs = append(dirs, "/sbin", "/usr/sbin", "/usr/local/sbin")
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// fileAttributes are a path's lsattr flags, as get_file_attributes reads
// them; ok is false when lsattr is missing or fails (a symlink, a file
// system without attributes).
type fileAttributes struct {
	version, flags string
	ok             bool
}

// names are the flags as attribute names (format_attributes).
func (a fileAttributes) names() []any {
	out := []any{}
	for i := 0; i < len(a.flags); i++ {
		if n, ok := fileAttributeNames[a.flags[i]]; ok {
			out = append(out, n)
		}
	}
	return out
}

// readAttributes runs `lsattr -vd` (or `-d` without the version).
func readAttributes(path string, withVersion bool) fileAttributes {
	lsattr := binPath("lsattr")
	if lsattr == "" {
		return fileAttributes{}
	}
	flag := "-d"
	if withVersion {
		flag = "-vd"
	}
	out, err := exec.Command(lsattr, flag, path).Output()
	if err != nil {
		return fileAttributes{}
	}
	fields := strings.Fields(string(out))
	var a fileAttributes
	i := 0
	if withVersion {
		if len(fields) < 2 {
			return fileAttributes{}
		}
		a.version = fields[0]
		i = 1
	}
	if len(fields) <= i {
		return fileAttributes{}
	}
	a.flags = strings.ReplaceAll(fields[i], "-", "")
	a.ok = true
	return a
}

// setAttributes runs chattr; a non-zero exit or any stderr is an error
// with both outputs, as set_attributes_if_different reports it.
func setAttributes(path, spec string) error {
	chattr := binPath("chattr")
	if chattr == "" {
		return nil
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(chattr, spec, path)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil || stderr.Len() > 0 {
		return &attrError{out: stdout.String() + stderr.String()}
	}
	return nil
}

type attrError struct{ out string }

func (e *attrError) Error() string { return "Error while setting attributes: " + e.out }
