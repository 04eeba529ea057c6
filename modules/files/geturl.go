package files

import (
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/urls"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// getURLDef is ansible.builtin.get_url (modules/get_url.py) over
// net/http; file:// URLs read local files as urllib does.
func getURLDef() *moduleDef {
	return &moduleDef{name: "get_url", checkMode: true, run: runGetURL, spec: &argspec.Spec{Options: withFileCommon(
		argspec.Option{Name: "url", Type: argspec.Str, Required: true},
		argspec.Option{Name: "force", Type: argspec.Bool, Default: false},
		argspec.Option{Name: "http_agent", Type: argspec.Str, Default: "ansible-httpget"},
		argspec.Option{Name: "use_proxy", Type: argspec.Bool, Default: true},
		argspec.Option{Name: "validate_certs", Type: argspec.Bool, Default: true},
		argspec.Option{Name: "url_username", Type: argspec.Str, Aliases: []string{"username"}},
		argspec.Option{Name: "url_password", Type: argspec.Str, NoLog: true, Aliases: []string{"password"}},
		argspec.Option{Name: "force_basic_auth", Type: argspec.Bool, Default: false},
		argspec.Option{Name: "client_cert", Type: argspec.Path},
		argspec.Option{Name: "client_key", Type: argspec.Path},
		argspec.Option{Name: "use_gssapi", Type: argspec.Bool, Default: false},
		argspec.Option{Name: "dest", Type: argspec.Path, Required: true},
		argspec.Option{Name: "backup", Type: argspec.Bool, Default: false},
		argspec.Option{Name: "checksum", Type: argspec.Str, Default: ""},
		argspec.Option{Name: "timeout", Type: argspec.Int, Default: 10},
		argspec.Option{Name: "headers", Type: argspec.Dict},
		argspec.Option{Name: "tmp_dest", Type: argspec.Path},
		argspec.Option{Name: "unredirected_headers", Type: argspec.List, Elements: argspec.Str, Default: []any{}},
		argspec.Option{Name: "decompress", Type: argspec.Bool, Default: true},
		argspec.Option{Name: "ciphers", Type: argspec.List, Elements: argspec.Str},
		argspec.Option{Name: "use_netrc", Type: argspec.Bool, Default: true},
	)}}
}

// getURL is one run of get_url.
type getURL struct {
	*amod
	url, dest      string
	algorithm, sum string
	res            *value.Dict
	tmpDir         string
}

func runGetURL(m *amod) (*value.Dict, error) {
	g := &getURL{amod: m, url: m.p.Str("url"), dest: m.p.Str("dest")}
	g.res = value.DictOf("changed", false, "checksum_dest", nil, "checksum_src", nil, "dest", g.dest, "elapsed", 0, "url", g.url)
	defer func() {
		if g.tmpDir != "" {
			os.RemoveAll(g.tmpDir)
		}
	}()
	if err := g.parseChecksum(); err != nil {
		return nil, err
	}
	destIsDir := isDir(g.dest)
	force := m.p.Bool("force")
	var lastMod time.Time
	if !destIsDir && exists(g.dest) {
		mismatch := false
		if !force && g.sum != "" {
			cur, _ := fileDigest(g.dest, g.algorithm)
			mismatch = cur != g.sum
			if !mismatch {
				changed, err := m.setFSAttributes(m.fileArgs(g.dest), false, nil)
				if err != nil {
					return nil, err
				}
				g.res.Set("changed", changed)
				g.res.Set("msg", "file already exists")
				if changed {
					g.res.Set("msg", "file already exists but file attributes changed")
				}
				return g.res, nil
			}
		}
		if st, err := os.Stat(g.dest); err == nil {
			lastMod = st.ModTime()
		}
		force = force || mismatch
	}
	return g.download(destIsDir, force, lastMod)
}

// parseChecksum splits "<algorithm>:<checksum>" and checks the digest.
func (g *getURL) parseChecksum() error {
	spec := g.p.Str("checksum")
	if spec == "" {
		return nil
	}
	algo, sum, ok := strings.Cut(spec, ":")
	if !ok {
		return g.failWith("The checksum parameter has to be in format <algorithm>:<checksum>")
	}
	if strings.Contains(sum, "://") {
		return g.failWith("checksum URLs are not supported by cfzt-runner; give the digest itself")
	}
	sum = strings.ToLower(regexp.MustCompile(`\W+`).ReplaceAllString(sum, ""))
	if !isHex(sum) {
		return g.failWith("The checksum format is invalid")
	}
	g.algorithm, g.sum = algo, sum
	return nil
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// failWith is fail_json with the result so far as the extra keys.
func (g *getURL) failWith(msg string) error {
	f := module.Fail(msg)
	g.res.Each(func(k string, v any) bool {
		if !f.Result.Has(k) {
			f.Result.Set(k, v)
		}
		return true
	})
	return f
}

// download fetches the URL to a temporary file and moves it over dest
// when its content differs.
func (g *getURL) download(destIsDir, force bool, lastMod time.Time) (*value.Dict, error) {
	start := time.Now()
	tmpsrc, info, err := g.fetchToTemp(force, lastMod)
	if err != nil {
		return nil, err
	}
	g.res.Set("elapsed", int(time.Since(start).Seconds()))
	g.res.Set("src", tmpsrc)
	if destIsDir {
		g.dest = filepath.Join(g.dest, responseFilename(info, g.url))
		g.res.Set("dest", g.dest)
	}
	sumSrc, _ := fileDigest(tmpsrc, "sha1")
	g.res.Set("checksum_src", sumSrc)
	if err := g.checkDest(); err != nil {
		return nil, err
	}
	msg := value.Str(info.Default("msg", ""))
	if g.check {
		g.res.Set("changed", !g.res.Has("checksum_dest") || g.res.Default("checksum_src", nil) != g.res.Default("checksum_dest", nil))
		g.res.Set("msg", msg)
		return g.res, nil
	}
	if g.sum != "" {
		if got, _ := fileDigest(tmpsrc, g.algorithm); got != g.sum {
			return nil, g.failWith(fmt.Sprintf("The checksum for %s did not match %s; it was %s.", tmpsrc, g.sum, value.Str(got)))
		}
	}
	changed := false
	var backupFile string
	if g.res.Default("checksum_src", nil) != g.res.Default("checksum_dest", nil) {
		if g.p.Bool("backup") && exists(g.dest) {
			if backupFile, err = backupLocal(g.dest, false); err != nil {
				return nil, err
			}
		}
		if err := atomicMove(tmpsrc, g.dest, g.p.Bool("unsafe_writes"), true); err != nil {
			return nil, g.failWith(fmt.Sprintf("failed to copy %s to %s: %s", tmpsrc, g.dest, err))
		}
		changed = true
	}
	if changed, err = g.setFSAttributes(g.fileArgs(g.dest), changed, nil); err != nil {
		return nil, err
	}
	g.res.Set("changed", changed)
	md5sum, _ := fileDigest(g.dest, "md5")
	g.res.Set("md5sum", md5sum)
	if backupFile != "" {
		g.res.Set("backup_file", backupFile)
	}
	g.res.Set("msg", msg)
	g.res.Set("status_code", info.Default("status", ""))
	return g.res, nil
}

// checkDest records the current checksum of dest and checks it can be
// written.
func (g *getURL) checkDest() error {
	if exists(g.dest) {
		if !accessOK(g.dest, 2) {
			return g.failWith("Destination " + g.dest + " is not writable")
		}
		if !accessOK(g.dest, 4) {
			return g.failWith("Destination " + g.dest + " is not readable")
		}
		sum, _ := fileDigest(g.dest, "sha1")
		g.res.Set("checksum_dest", sum)
		return nil
	}
	dir := filepath.Dir(g.dest)
	if !exists(dir) {
		return g.failWith("Destination " + dir + " does not exist")
	}
	if !accessOK(dir, 2) {
		return g.failWith("Destination " + dir + " is not writable")
	}
	return nil
}

// fetchToTemp downloads the URL into a temporary file (in tmp_dest or the
// task's remote temporary directory) and returns it with fetch_url's
// info, in url_get's order: the request, its status, then the file.
func (g *getURL) fetchToTemp(force bool, lastMod time.Time) (string, *value.Dict, error) {
	method := "GET"
	if g.check {
		method = "HEAD"
	}
	req := fetchRequest{url: g.url, method: method, agent: g.p.Str("http_agent"), force: force, lastModified: lastMod,
		username: g.p.Str("url_username"), password: g.p.Str("url_password"), forceBasic: g.p.Bool("force_basic_auth"),
		useNetrc: g.p.Bool("use_netrc"), decompress: g.p.Bool("decompress"), headers: g.p.Map("headers"),
		unredirected: g.p.Strs("unredirected_headers"), getenv: g.req.Getenv, gssapi: g.p.Bool("use_gssapi"), ciphers: g.p.Strs("ciphers"),
		conn: urls.Conn{ValidateCerts: g.p.Bool("validate_certs"), UseProxy: g.p.Bool("use_proxy"),
			ClientCert: g.p.Str("client_cert"), ClientKey: g.p.Str("client_key"),
			Timeout: time.Duration(g.p.Int("timeout")) * time.Second}}
	res := fetchURL(g.req.Ctx, req)
	if res.fatal != "" {
		failure := module.Fail(res.fatal)
		if !res.msgOnly {
			failure.Result.Update(res.info)
		}
		return "", nil, failure
	}
	if err := g.fetchOutcome(res); err != nil {
		return "", nil, err
	}
	defer res.body.Close()
	dir := g.p.Str("tmp_dest")
	if dir != "" && !isDir(dir) {
		if exists(dir) {
			return "", nil, module.Fail(dir+" is a file but should be a directory.", "elapsed", 0)
		}
		return "", nil, module.Fail(dir+" directory does not exist.", "elapsed", 0)
	}
	if dir == "" {
		var err error
		if g.tmpDir, err = remoteTmpDir(g.req); err != nil {
			return "", nil, err
		}
		dir = g.tmpDir
	}
	f, err := mkstemp(dir, "tmp", "")
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	if err := copyBody(res, f); err != nil {
		os.Remove(f.Name())
		return "", nil, module.Fail(err.Error(), "elapsed", 0)
	}
	if err := g.checkLength(f, res.info); err != nil {
		return "", nil, err
	}
	return f.Name(), res.info, nil
}

// checkLength is url_get's check that the whole body arrived.
func (g *getURL) checkLength(f *os.File, info *value.Dict) error {
	cl, ok := info.Get("content-length")
	if g.check || !ok || (info.Default("content-encoding", "") == "gzip" && g.p.Bool("decompress")) {
		return nil
	}
	want, err := strconv.Atoi(value.Str(cl))
	st, serr := f.Stat()
	if err != nil || serr != nil || st.Size() == int64(want) {
		return nil
	}
	return module.Fail(fmt.Sprintf("Incomplete read, (rsp.length=0, cl=%d, st.st_size=%d) failed to read remaining %d bytes", want, st.Size(), int64(want)-st.Size()))
}

// fetchOutcome turns fetch_url's status into url_get's exits.
func (g *getURL) fetchOutcome(res fetchResult) error {
	msg := value.Str(res.info.Default("msg", ""))
	switch {
	case res.status == 304:
		return earlyExit(value.DictOf("url", g.url, "dest", g.dest, "changed", false, "msg", msg, "status_code", 304, "elapsed", 0))
	case res.status == -1:
		return module.Fail(msg, "url", g.url, "dest", g.dest, "elapsed", 0)
	case res.status != 200 && !strings.HasPrefix(g.url, "file:/"):
		return module.Fail("Request failed", "status_code", res.status, "response", msg, "url", g.url, "dest", g.dest, "elapsed", 0)
	}
	return nil
}

// responseFilename is the name for a download into a directory:
// Content-Disposition's filename, else the URL's last path part, else
// index.html.
func responseFilename(info *value.Dict, rawURL string) string {
	if cd, ok := info.Get("content-disposition"); ok {
		if _, params, err := mime.ParseMediaType(value.Str(cd)); err == nil && params["filename"] != "" {
			return py.Basename(params["filename"])
		}
	}
	u := value.Str(info.Default("url", rawURL))
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if j := strings.IndexByte(u, '/'); j >= 0 {
			u = u[j:]
		} else {
			u = ""
		}
	}
	if name := py.Basename(u); name != "" {
		return name
	}
	return "index.html"
}
