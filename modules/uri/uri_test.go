package uri_test

import (
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/urls"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/uri"
	"github.com/cfzt/cfzt-runner/modules/uri/uritest"
)

var mods = func() map[string]module.Module {
	out := map[string]module.Module{}
	for _, e := range uri.Entries() {
		out[e.Short()] = e.Module
	}
	return out
}()

// call runs a module with args given as key/value pairs.
func call(t *testing.T, name string, check bool, kv ...any) *value.Dict {
	t.Helper()
	req := moduletest.NewHost(nil).Request(name, kv...)
	req.Check = check
	res, err := mods[name].Run(req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func get(d *value.Dict, k string) any { v, _ := d.Get(k); return v }

func startServer(t *testing.T) *uritest.Server {
	t.Helper()
	s, err := uritest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestResultKeys(t *testing.T) {
	s := startServer(t)
	res := call(t, "uri", false, "url", s.HTTP+"/json", "return_content", true)
	for k, want := range map[string]any{"status": 200, "msg": "OK (74 bytes)", "url": s.HTTP + "/json", "redirected": false,
		"changed": false, "content_type": "application/json", "x_request_id": "req-1", "cookies_string": "session=abc123; theme=dark",
		"elapsed": 0} {
		if got := get(res, k); !value.Equal(got, want) {
			t.Errorf("%s = %v, want %v", k, value.Repr(got), value.Repr(want))
		}
	}
	js, ok := get(res, "json").(*value.Dict)
	if !ok || value.Str(get(js, "name")) != "cfzt" {
		t.Errorf("json = %v", value.Repr(get(res, "json")))
	}
	if !strings.HasPrefix(value.Str(get(res, "content")), `{"name": "cfzt"`) {
		t.Errorf("content = %v", get(res, "content"))
	}
	if res.Has("failed") {
		t.Errorf("a success has no failed key: %v", value.Repr(res))
	}
}

func TestFailureWording(t *testing.T) {
	s := startServer(t)
	cases := []struct {
		args []any
		msg  string
	}{
		{[]any{"url", s.HTTP + "/notfound"}, "Status code was 404 and not [200]: HTTP Error 404: Not Found"},
		{[]any{"url", s.HTTP + "/json", "status_code", []any{201, 202}}, "Status code was 200 and not [201, 202]: OK (74 bytes)"},
		{[]any{"url", s.Refused + "/"}, "Status code was -1 and not [200]: Request failed: <urlopen error [Errno 111] Connection refused>"},
		{[]any{"url", s.HTTP + "/slow", "timeout", 1}, "Status code was -1 and not [200]: Connection failure: timed out"},
		{[]any{"url", s.HTTPS + "/json"}, "Status code was -1 and not [200]: Request failed: <urlopen error [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:992)>"},
		{[]any{"url", "https://localhost" + strings.TrimPrefix(s.HTTPS, "https://127.0.0.1") + "/json", "ca_path", s.CAFile}, ""},
		{[]any{"url", "notaurl"}, "unknown url type: 'notaurl'"},
		{[]any{"url", s.HTTP, "method", "get it"}, "Parameter 'method' needs to be a single word in uppercase, like GET or POST."},
		{[]any{"url", s.HTTP, "bogus", 1}, "Unsupported parameters for (ansible.legacy.uri) module: bogus. Supported parameters include: attributes, body, body_format, ca_path, ciphers, client_cert, client_key, creates, decompress, dest, follow_redirects, force, force_basic_auth, group, headers, http_agent, method, mode, owner, remote_src, removes, return_content, selevel, serole, setype, seuser, src, status_code, timeout, unix_socket, unredirected_headers, unsafe_writes, url, url_password, url_username, use_gssapi, use_netrc, use_proxy, validate_certs (attr, password, user)."},
		{[]any{"url", s.HTTP, "body", "x", "src", "/etc/hostname"}, "parameters are mutually exclusive: body|src"},
		{[]any{"url", s.HTTP, "body_format", "xml"}, "value of body_format must be one of: form-urlencoded, json, raw, form-multipart, got: xml"},
		{[]any{"url", s.HTTP, "return_content", "maybe"}, "argument 'return_content' is of type str and we were unable to convert to bool: The value 'maybe' is not a valid boolean. Valid booleans include: 0, 'y', 'true', 1, 'f', 'n', 'off', 't', '0', 'no', 'false', '1', 'on', 'yes'"},
		{[]any{"url", s.HTTP, "status_code", []any{200, "x"}}, "Elements value for option 'status_code' is of type str and we were unable to convert to int: \"'x'\" cannot be converted to an int"},
		{[]any{}, "missing required arguments: url"},
	}
	for _, c := range cases {
		res := call(t, "uri", false, c.args...)
		if c.msg == "" {
			if value.Truthy(get(res, "failed")) {
				t.Errorf("%v: unexpected failure %v", c.args, get(res, "msg"))
			}
			continue
		}
		if !value.Truthy(get(res, "failed")) || value.Str(get(res, "msg")) != c.msg {
			t.Errorf("%v:\n got  %v\n want %s", c.args, value.Repr(get(res, "msg")), c.msg)
		}
	}
}

// TestHostnameMismatch: httptest's certificate names 127.0.0.1 and
// example.com, not localhost.
func TestHostnameMismatch(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	res := call(t, "uri", false, "url", strings.Replace(srv.URL, "127.0.0.1", "localhost", 1), "ca_path", ca)
	want := "Status code was -1 and not [200]: Request failed: <urlopen error [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: Hostname mismatch, certificate is not valid for 'localhost'. (_ssl.c:992)>"
	if got := value.Str(get(res, "msg")); got != want {
		t.Errorf("msg = %s", got)
	}
	res = call(t, "uri", false, "url", srv.URL, "ca_path", ca)
	if get(res, "status") != 200 {
		t.Errorf("with the right name: %v", value.Repr(res))
	}
}

// TestSecretsNeverShown: an Authorization header, a url_password and URL
// credentials never appear in a result, even when the server echoes them.
func TestSecretsNeverShown(t *testing.T) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Echo-Auth", r.Header.Get("Authorization"))
		w.WriteHeader(401)
		w.Write([]byte(`{"auth": "` + r.Header.Get("Authorization") + `"}`))
	}))
	defer echo.Close()
	for _, args := range [][]any{
		{"url", echo.URL, "headers", value.DictOf("Authorization", "Bearer very-secret-token-123"), "return_content", true},
		{"url", echo.URL, "url_username", "bob", "url_password", "hunter2-pass", "force_basic_auth", true, "return_content", true},
		{"url", strings.Replace(echo.URL, "http://", "http://bob:url-pass-456@", 1), "force_basic_auth", true, "return_content", true},
	} {
		res := call(t, "uri", false, args...)
		out := value.JSON(res, value.JSONOptions{})
		for _, secret := range []string{"very-secret-token-123", "hunter2-pass", "url-pass-456", "Ym9i"} {
			if strings.Contains(out, secret) {
				t.Errorf("%q shown in %s", secret, out)
			}
		}
		if !strings.Contains(out, "********") {
			t.Errorf("expected a masked value in %s", out)
		}
	}
}

// TestRedirectDropsCredentialsAcrossHosts: a redirect to another host does
// not carry the Authorization header.
func TestRedirectDropsCredentialsAcrossHosts(t *testing.T) {
	var mu sync.Mutex
	var seen string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = r.Header.Get("Authorization")
		mu.Unlock()
		w.Write([]byte("ok"))
	}))
	defer other.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/landing", http.StatusFound)
	}))
	defer first.Close()
	res := call(t, "uri", false, "url", first.URL, "headers", value.DictOf("Authorization", "Bearer abcdefgh"))
	if get(res, "status") != 200 || get(res, "redirected") != true {
		t.Fatalf("result %v", value.Repr(res))
	}
	if seen != "" {
		t.Errorf("Authorization followed the redirect to another host: %q", seen)
	}
}

func TestObserveRequest(t *testing.T) {
	s := startServer(t)
	var mu sync.Mutex
	var codes []int
	urls.SetObserver(func(kind string, code int) {
		mu.Lock()
		defer mu.Unlock()
		if kind == "http" {
			codes = append(codes, code)
		}
	})
	defer urls.SetObserver(nil)
	call(t, "uri", false, "url", s.HTTP+"/redirect")
	call(t, "uri", false, "url", s.Refused)
	mu.Lock()
	defer mu.Unlock()
	if len(codes) != 3 || codes[0] != 302 || codes[1] != 200 || codes[2] != 0 {
		t.Errorf("observed %v, want [302 200 0]", codes)
	}
}

func TestDestCreatesAndCheckMode(t *testing.T) {
	s := startServer(t)
	dir := t.TempDir()
	res := call(t, "uri", false, "url", s.HTTP+"/text", "dest", dir)
	path := filepath.Join(dir, "text")
	if get(res, "changed") != true || value.Str(get(res, "path")) != path || get(res, "size") != 13 || value.Str(get(res, "state")) != "file" {
		t.Errorf("result %v", value.Repr(res))
	}
	if b, _ := os.ReadFile(path); string(b) != "hello, world\n" {
		t.Errorf("file has %q", b)
	}
	res = call(t, "uri", false, "url", s.HTTP+"/text", "removes", filepath.Join(dir, "absent"))
	if value.Str(get(res, "stdout")) != "skipped, since '"+filepath.Join(dir, "absent")+"' does not exist" {
		t.Errorf("removes: %v", value.Repr(res))
	}
	res = call(t, "uri", true, "url", s.HTTP+"/text")
	if get(res, "skipped") != true || value.Str(get(res, "msg")) != "This action (uri) does not support check mode." {
		t.Errorf("check mode: %v", value.Repr(res))
	}
}

func TestUnixSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"path": "` + r.URL.Path + `"}`))
	})}
	go srv.Serve(ln)
	defer srv.Close()
	res := call(t, "uri", false, "url", "http://docker/v1/info", "unix_socket", sock)
	js, _ := get(res, "json").(*value.Dict)
	if js == nil || value.Str(get(js, "path")) != "/v1/info" {
		t.Errorf("result %v", value.Repr(res))
	}
}

func TestSlurp(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f.bin")
	os.WriteFile(f, []byte{0, 1, 2, 'x'}, 0o600)
	res := call(t, "slurp", true, "path", f)
	if value.Str(get(res, "content")) != "AAECeA==" || value.Str(get(res, "encoding")) != "base64" || value.Str(get(res, "source")) != f || get(res, "changed") != false {
		t.Errorf("slurp: %v", value.Repr(res))
	}
	for src, msg := range map[string]string{
		filepath.Join(dir, "nope"): "File not found: " + filepath.Join(dir, "nope"),
		dir:                        "Source is a directory and must be a file: " + dir,
	} {
		res := call(t, "slurp", false, "src", src)
		if get(res, "failed") != true || value.Str(get(res, "msg")) != msg {
			t.Errorf("slurp %s: %v", src, value.Repr(res))
		}
	}
	res = call(t, "slurp", false)
	if value.Str(get(res, "msg")) != "missing required arguments: src" {
		t.Errorf("slurp without src: %v", value.Repr(res))
	}
}
