package urls

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func server(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

// TestObserverSeesEveryRequest: each request Open sends, redirects and
// failures included, reaches the observer the operator's metrics install,
// whichever caller (uri, get_url, the url lookup) made it.
func TestObserverSeesEveryRequest(t *testing.T) {
	base := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/r" {
			http.Redirect(w, r, "/ok", http.StatusFound)
			return
		}
		io.WriteString(w, "ok")
	})
	var mu sync.Mutex
	var codes []int
	SetObserver(func(kind string, code int) {
		mu.Lock()
		defer mu.Unlock()
		if kind == "http" {
			codes = append(codes, code)
		}
	})
	defer SetObserver(nil)
	if _, err := Open(&Request{URL: base + "/r"}); err != nil {
		t.Fatal(err)
	}
	resp, err := Open(&Request{URL: base + "/ok", Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	resp.Stream.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	if _, err := Open(&Request{URL: closed.URL}); err == nil {
		t.Fatal("a closed server answered")
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []int{302, 200, 200, 0}; !equalInts(codes, want) {
		t.Errorf("observed %v, want %v", codes, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestBodyBomb: a server that never stops sending is cut at MaxBody with
// an error, not an exhausted memory.
func TestBodyBomb(t *testing.T) {
	defer func(m int) { maxBody = m }(maxBody)
	maxBody = 4 << 20
	chunk := make([]byte, 1<<20)
	base := server(t, func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 1<<12; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	_, err := Open(&Request{URL: base, Conn: Conn{Timeout: 30 * time.Second}})
	var osErr *OSError
	if !errors.As(err, &osErr) || !strings.Contains(err.Error(), "cfzt-runner's limit") {
		t.Fatalf("err = %v, want the body limit", err)
	}
}

// TestReadTimeout: a body that stalls longer than the timeout fails a
// streamed read with Python's "timed out", as a socket timeout does.
func TestReadTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	base := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10")
		io.WriteString(w, "12345")
		w.(http.Flusher).Flush()
		<-release
	})
	resp, err := Open(&Request{URL: base, Stream: true, Conn: Conn{Timeout: 200 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Stream.Close()
	_, err = io.ReadAll(resp.Stream)
	if err == nil || ReadError(err) != "timed out" {
		t.Fatalf("read error %v (%q), want timed out", err, ReadError(err))
	}
}

// TestRefusedSettings: settings cfzt-runner cannot honour are refused
// before any request, never silently dropped.
func TestRefusedSettings(t *testing.T) {
	hit := false
	base := server(t, func(w http.ResponseWriter, r *http.Request) { hit = true })
	for _, r := range []*Request{{URL: base, GSSAPI: true}, {URL: base, Ciphers: []string{"ECDHE-RSA-AES128-SHA256"}}} {
		_, err := Open(r)
		var u *UnsupportedError
		if !errors.As(err, &u) {
			t.Errorf("%+v: err = %v, want UnsupportedError", r, err)
		}
	}
	if hit {
		t.Error("a refused request reached the server")
	}
}

// TestFileURLs: file:// is urllib's file handler, for every caller.
func TestFileURLs(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(p, []byte("data\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	resp, err := Open(&Request{URL: "file://" + p})
	if err != nil || !resp.File || string(resp.Body) != "data\n" || resp.Header.Get("Content-Length") != "5" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	_, err = Open(&Request{URL: "file://" + filepath.Join(dir, "missing")})
	if want := "<urlopen error [Errno 2] No such file or directory: '" + filepath.Join(dir, "missing") + "'>"; err == nil || err.Error() != want {
		t.Errorf("missing: %v, want %s", err, want)
	}
	_, err = Open(&Request{URL: "file://" + dir})
	if err == nil || !strings.Contains(err.Error(), "[Errno 21] Is a directory") {
		t.Errorf("directory: %v", err)
	}
}

// TestCredentialsStayWithTheirHost: Basic credentials are not sent to
// another host after a redirect (a deliberate difference from urllib).
func TestCredentialsStayWithTheirHost(t *testing.T) {
	var seen string
	other := server(t, func(w http.ResponseWriter, r *http.Request) { seen = r.Header.Get("Authorization") })
	other = strings.Replace(other, "127.0.0.1", "localhost", 1)
	base := server(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other+"/x", http.StatusFound) })
	resp, err := Open(&Request{URL: base, Username: "u", Password: "secret-pass", ForceBasic: true})
	if err != nil {
		t.Fatal(err)
	}
	if seen != "" {
		t.Errorf("Authorization followed the redirect to another host: %q", seen)
	}
	if len(resp.Secrets) == 0 {
		t.Error("the Basic credentials are not listed as secrets to mask")
	}
}
