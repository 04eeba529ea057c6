package files

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// fetchEntry is ansible.builtin.fetch, the fetch action plugin
// (plugins/action/fetch.py). The "remote" host is this machine, so it
// copies a local file to dest/<inventory_hostname>/<src>, or to dest
// itself with flat.
func fetchEntry() module.Entry {
	return module.Entry{FQCN: "ansible.builtin.fetch", Flags: module.NoAsync, Module: module.Func(runFetch)}
}

// fetchRun is one run of the fetch action.
type fetchRun struct {
	req                          *module.Request
	source, dest                 string
	flat, failOnMissing, checkIt bool
}

func runFetch(req *module.Request) (*value.Dict, error) {
	if req.Check {
		return value.DictOf("changed", false, "skipped", true, "msg", "check mode not (yet) supported for this module"), nil
	}
	src, dest := req.Args.Default("src", nil), req.Args.Default("dest", nil)
	msg := ""
	if _, ok := src.(string); !ok {
		msg = "Invalid type supplied for source option, it must be a string"
	}
	if _, ok := dest.(string); !ok {
		msg = "Invalid type supplied for dest option, it must be a string"
	}
	if src == nil || dest == nil {
		msg = "src and dest are required"
	}
	if msg != "" {
		return nil, module.ActionFail(msg, nil)
	}
	flag := func(k string, def bool) bool {
		v := req.Args.Default(k, nil)
		if v == nil {
			return def
		}
		b, _ := argspec.LenientBoolean(v)
		return b
	}
	f := &fetchRun{req: req, source: expandUserHome(src.(string)), dest: dest.(string),
		flat: flag("flat", false), failOnMissing: flag("fail_on_missing", true), checkIt: flag("validate_checksum", true)}
	return f.run()
}

func (f *fetchRun) run() (*value.Dict, error) {
	res := value.NewDict(8)
	st := remoteStat(f.source, true, true)
	if st.exists && st.isDir {
		msg := "remote file is a directory, fetch cannot work on directories"
		if !f.failOnMissing {
			return value.DictOf("msg", msg+", not transferring, ignored"), nil
		}
		return module.ActionFailed(msg), nil
	}
	remoteSum := st.checksum
	var data []byte
	if remoteSum == "1" || remoteSum == "" {
		b, slurpMsg, err := slurpLocal(f.source)
		if err != nil {
			return f.slurpFailed(res, slurpMsg, err), nil
		}
		data, remoteSum = b, digestHex("sha1", b)
	}
	dest, err := f.destination()
	if err != nil {
		return nil, err
	}
	localSum, _ := fileDigest(dest, "sha1")
	if localSum == remoteSum {
		md5sum, _ := fileDigest(dest, "md5")
		res.Update(value.DictOf("changed", false, "md5sum", md5sum, "file", f.source, "dest", dest, "checksum", localSum))
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o777); err != nil {
		return nil, module.ActionFail("Failed to fetch the file.", nil)
	}
	if data == nil {
		err = copyFileContents(f.source, dest)
	} else {
		err = os.WriteFile(dest, data, 0o666)
	}
	if err != nil {
		return nil, module.ActionFail("Failed to fetch the file.", nil)
	}
	newSum, _ := fileDigest(dest, "sha1")
	newMD5, _ := fileDigest(dest, "md5")
	if f.checkIt && newSum != remoteSum {
		res.Update(value.DictOf("failed", true, "md5sum", newMD5, "msg", "checksum mismatch", "file", f.source, "dest", dest,
			"remote_md5sum", nil, "checksum", newSum, "remote_checksum", remoteSum))
		return res, nil
	}
	res.Update(value.DictOf("changed", true, "md5sum", newMD5, "dest", dest, "remote_md5sum", nil,
		"checksum", newSum, "remote_checksum", remoteSum))
	return res, nil
}

// slurpLocal reads the source as the slurp module would, returning its
// failure message and the OSError behind it when it cannot.
func slurpLocal(path string) ([]byte, string, error) {
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		return b, "", nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, "File not found: " + path, err
	case errors.Is(err, fs.ErrPermission):
		return nil, "File is not readable: " + path, err
	case errors.Is(err, syscall.EISDIR):
		return nil, "Source is a directory and must be a file: " + path, err
	}
	return nil, "Unable to slurp file: {source}", err
}

// slurpFailed is the result when the source cannot be read: the slurp
// failure (or, without fail_on_missing, a non-failed result) with
// ansible-core's rewording of its message.
func (f *fetchRun) slurpFailed(res *value.Dict, slurpMsg string, cause error) *value.Dict {
	if f.failOnMissing {
		res.Update(module.FailedWith(slurpMsg, errors.New(slurpMsg+": "+pyOSError(cause))))
	} else {
		res.Set("file", f.source)
		res.Set("changed", false)
	}
	switch {
	case strings.Contains(slurpMsg, "not found"):
		res.Set("msg", "the remote file does not exist, not transferring, ignored")
	case strings.HasPrefix(strings.ToLower(slurpMsg), "source is a directory"):
		res.Set("msg", "remote file is a directory, fetch cannot work on directories")
	}
	return res
}

// destination is where the file goes: dest itself (or dest/<basename>
// for a trailing slash) with flat, else dest/<host>/<source path>.
// Relative paths are taken from the task's directory.
func (f *fetchRun) destination() (string, error) {
	dest := f.dest
	if f.flat {
		if isDir(dest) && !strings.HasSuffix(dest, "/") {
			return "", module.ActionFail("dest is an existing directory, use a trailing slash if you want to fetch src into that directory", nil)
		}
		if strings.HasSuffix(dest, "/") {
			dest = py.Join([]string{dest, py.Basename(f.source)})
			if isDir(dest) {
				return "", module.ActionFail("calculated dest '"+dest+"' is an existing directory, use another path that does not point to an existing directory", nil)
			}
		}
		if !strings.HasPrefix(dest, "/") {
			dest = f.dwim(dest)
		}
	} else {
		dest = f.dwim(dest) + "/" + f.req.Host.Name() + "/" + f.source
	}
	return py.Normpath(dest), nil
}

// dwim makes a relative path absolute against the task's directory
// (DataLoader.path_dwim); ~ is expanded.
func (f *fetchRun) dwim(p string) string {
	p = argspec.ExpandPath(p)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(f.req.Host.TaskDir(), p)
}
