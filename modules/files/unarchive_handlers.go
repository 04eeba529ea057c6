package files

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/urls"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// archiveHandler is one of the unarchive module's handler classes
// (ZipArchive, TgzArchive, TarArchive, ...), implemented natively.
type archiveHandler interface {
	// name is the handler's class name, the result's `handler`.
	name() string
	// files is files_in_archive: the member names, filtered by include
	// and exclude (and transformed by --strip-components for tar).
	files() []string
	// isUnarchived compares the archive with dest.
	isUnarchived() (unarchivedState, error)
	// unarchive unpacks the archive into dest.
	unarchive() extractResult
}

// unarchivedState is is_unarchived's answer: whether dest already holds
// the archive, and the itemized changes a zip archive reports as diff.
type unarchivedState struct {
	unarchived bool
	diff       string
}

// extractResult is the result's extract_results: the command the
// ansible-core handler runs, its exit status and output.
type extractResult struct {
	cmd      []string
	rc       int
	out, err string
}

func (r extractResult) dict() *value.Dict {
	return value.DictOf("cmd", stringsToAny(r.cmd), "err", r.err, "out", r.out, "rc", r.rc)
}

// pickArchiveHandler tries the handlers in ansible-core's order (zip, then
// tar compressed with gzip, then any tar GNU tar detects by itself) and
// fails with every handler's reason when none can read the archive. In
// check mode a non-zip archive ends the module as skipped, as the gtar
// handlers do.
func pickArchiveHandler(u *unarchiveRun) (archiveHandler, error) {
	zh, zipReason := newZipHandler(u)
	if zh != nil {
		return zh, nil
	}
	if u.check {
		return nil, earlyExit(value.DictOf("skipped", true,
			"msg", "remote module (ansible.legacy.unarchive) does not support check mode when using gtar"))
	}
	th, tarReasons := newTarHandler(u)
	if th != nil {
		return th, nil
	}
	reasons := append([]string{zipReason}, tarReasons...)
	return nil, module.Fail(`Failed to find handler for "` + u.src + `". Make sure the required command to extract the file is installed.` +
		"\n" + strings.Join(dedupe(reasons), "\n"))
}

// dedupe drops repeated strings, keeping the first of each.
func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// parentInside reports whether the directory that will hold path
// resolves (symlinks followed) to dest or below it, so that a member
// cannot be written through a symlink an earlier member planted.
func parentInside(dest, path string) bool {
	if filepath.Clean(path) == filepath.Clean(dest) {
		return true // the "./" member is dest itself
	}
	realDest, err := filepath.EvalSymlinks(dest)
	if err != nil {
		return false
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return false
	}
	return parent == realDest || strings.HasPrefix(parent, realDest+"/")
}

// binPathOr is get_bin_path's answer for name, or name itself when it is
// not installed: the commands are only reported, never run.
func binPathOr(name string) string {
	for _, dir := range []string{"", "/sbin", "/usr/sbin", "/usr/local/sbin"} {
		if dir == "" {
			if p, err := exec.LookPath(name); err == nil {
				return p
			}
			continue
		}
		if p := path.Join(dir, name); isFile(p) {
			return p
		}
	}
	return name
}

// download fetches a URL source into the task's temporary directory as
// fetch_file does: named after the URL's file name and extensions.
func (u *unarchiveRun) download(url string) (string, error) {
	dir := u.tmpDir
	if dir == "" {
		dir = os.TempDir()
	}
	base := py.Basename(strings.SplitN(strings.SplitN(url, "?", 2)[0], "#", 2)[0])
	prefix, ext := splitMultiExt(base)
	f, err := mkstemp(dir, prefix, ext)
	if err != nil {
		return "", err
	}
	defer f.Close()
	res := fetchURL(u.req.Ctx, fetchRequest{url: url, method: "GET", agent: "ansible-httpget", useNetrc: true, decompress: true,
		getenv: u.req.Getenv, conn: urls.Conn{ValidateCerts: u.p.Bool("validate_certs"), UseProxy: true, Timeout: 10 * time.Second}})
	if res.fatal != "" || res.status == -1 || res.status >= 400 {
		msg := res.fatal
		if msg == "" {
			msg = value.Str(res.info.Default("msg", ""))
		}
		return "", module.Fail("Failure downloading " + url + ", " + msg)
	}
	if err := copyBody(res, f); err != nil {
		return "", module.Fail("Failure downloading " + url + ", " + err.Error())
	}
	return f.Name(), nil
}

// splitMultiExt is _split_multiext(name, min=3, max=4, count=2): up to two
// trailing extensions of 3 or 4 characters (with the dot). Like it, the
// name loses the extension's characters with rstrip, so "data.tar.gz"
// becomes "d" and ".tar.gz".
func splitMultiExt(name string) (string, string) {
	if strings.HasSuffix(name, ".") {
		return name, ""
	}
	parts := strings.Split(strings.TrimLeft(name, "."), ".")[1:]
	ext := ""
	for i := 0; i < 2 && i < len(parts); i++ {
		sfx := "." + parts[len(parts)-1-i]
		if len(sfx) < 3 || len(sfx) > 4 {
			break
		}
		ext = sfx + ext
		name = strings.TrimRight(name, sfx)
	}
	return name, ext
}
