package files

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// getURLServer serves /data (honouring If-Modified-Since), /auth (basic
// auth), /named (Content-Disposition), /redirect and 404s; it records the
// headers of the last request.
func getURLServer(t *testing.T, last *http.Header) *httptest.Server {
	modified := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	mux := http.NewServeMux()
	record := func(r *http.Request) { *last = r.Header.Clone() }
	mux.HandleFunc("/data", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		http.ServeContent(w, r, "data", modified, strings.NewReader("payload\n"))
	})
	mux.HandleFunc("/auth", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		if u, p, ok := r.BasicAuth(); !ok || u != "user" || p != "secret" {
			w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("authorized\n"))
	})
	mux.HandleFunc("/named", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="report.csv"`)
		_, _ = w.Write([]byte("a,b\n"))
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/data", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestGetURL(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ANSIBLE_REMOTE_TEMP", filepath.Join(dir, "rtmp"))
	var last http.Header
	srv := getURLServer(t, &last)
	dest := filepath.Join(dir, "data.txt")

	res := mustRun(t, "get_url", "url", srv.URL+"/data", "dest", dest, "headers", value.DictOf("X-Test", "1"), "mode", "0600")
	require.Equal(t, true, res.Default("changed", nil))
	require.Equal(t, "OK (8 bytes)", res.Default("msg", nil))
	require.Equal(t, 200, res.Default("status_code", nil))
	require.Equal(t, "payload\n", readFile(t, dest))
	require.Equal(t, int64(0o600), modeOf(t, dest))
	require.Equal(t, "1", last.Get("X-Test"))
	require.Equal(t, "ansible-httpget", last.Get("User-Agent"))

	res = mustRun(t, "get_url", "url", srv.URL+"/data", "dest", dest)
	require.Equal(t, false, res.Default("changed", nil))
	require.NotEmpty(t, last.Get("If-Modified-Since"))

	res = mustRun(t, "get_url", "url", srv.URL+"/data", "dest", dest, "force", true)
	require.Equal(t, "no-cache", last.Get("Cache-Control"))
	require.Equal(t, false, res.Default("changed", nil), "the same content is no change")

	mustRun(t, "get_url", "url", srv.URL+"/auth", "dest", filepath.Join(dir, "auth.txt"), "url_username", "user", "url_password", "secret")
	require.Equal(t, "authorized\n", readFile(t, filepath.Join(dir, "auth.txt")))

	res = mustRun(t, "get_url", "url", srv.URL+"/named", "dest", dir)
	require.Equal(t, filepath.Join(dir, "report.csv"), res.Default("dest", nil))

	res = mustRun(t, "get_url", "url", srv.URL+"/redirect", "dest", filepath.Join(dir, "r.txt"))
	require.Equal(t, srv.URL+"/redirect", res.Default("url", nil), "the result names the URL asked for")
	require.Equal(t, "payload\n", readFile(t, filepath.Join(dir, "r.txt")))
}

func TestGetURLFailures(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ANSIBLE_REMOTE_TEMP", filepath.Join(dir, "rtmp"))
	var last http.Header
	srv := getURLServer(t, &last)
	res, err := run(t, "get_url", "url", srv.URL+"/missing", "dest", filepath.Join(dir, "x"))
	require.NoError(t, err)
	require.Equal(t, "Request failed", res.Default("msg", nil))
	require.Equal(t, 404, res.Default("status_code", nil))
	require.Equal(t, "HTTP Error 404: Not Found", res.Default("response", nil))

	res, err = run(t, "get_url", "url", srv.URL+"/data", "dest", filepath.Join(dir, "x"), "checksum", "sha1:0000")
	require.NoError(t, err)
	require.Regexp(t, `^The checksum for .*/tmp[a-z0-9_]{8} did not match 0000; it was `, res.Default("msg", nil))

	res, err = run(t, "get_url", "url", "http://127.0.0.1:1/x", "dest", filepath.Join(dir, "x"))
	require.NoError(t, err)
	require.Equal(t, "Request failed: <urlopen error [Errno 111] Connection refused>", res.Default("msg", nil))

	h := moduletest.NewHost(nil)
	req := h.Request("get_url", "url", srv.URL+"/data", "dest", filepath.Join(dir, "check"))
	req.Check = true
	res, err = runReq(t, req)
	require.NoError(t, err)
	require.Equal(t, true, res.Default("changed", nil))
	require.False(t, exists(filepath.Join(dir, "check")))
}
