package lookup

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

// The url lookup against a loopback server.
func TestURLLookup(t *testing.T) {
	var seen []*http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r)
		switch r.URL.Path {
		case "/data":
			_, _ = w.Write([]byte("one\r\ntwo\n"))
		case "/private":
			if u, p, ok := r.BasicAuth(); !ok || u != "me" || p != "pw" {
				w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			_, _ = w.Write([]byte("secret"))
		case "/moved":
			http.Redirect(w, r, "/data", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	e := newEngine()
	vars := template.MapVars{D: value.DictOf("u", srv.URL, "ansible_lookup_url_agent", "from-var")}
	cases := []tcase{
		{"{{ query('url', u ~ '/data') }}", L("one", "two"), ""},
		{"{{ lookup('url', u ~ '/data', split_lines=false) }}", "one\r\ntwo\n", ""},
		{"{{ lookup('url', u ~ '/private', username='me', password='pw') }}", "secret", ""},
		{"{{ lookup('url', u ~ '/moved') }}", "one,two", ""},
		{"{{ lookup('url', u ~ '/moved', follow_redirects='none') }}", nil, le("url", "Received HTTP error for "+srv.URL+"/moved : HTTP Error 302: Found")},
		{"{{ lookup('url', u ~ '/missing') }}", nil, le("url", "Received HTTP error for "+srv.URL+"/missing : HTTP Error 404: Not Found")},
		{"{{ lookup('url', 'http://127.0.0.1:1/') }}", nil, le("url", "Failed lookup url for http://127.0.0.1:1/ : <urlopen error [Errno 111] Connection refused>")},
		{"{{ lookup('url', 'nourl') }}", nil, le("url", "unknown url type: 'nourl'")},
	}
	renderCases(t, e, vars, template.Options{}, cases)

	seen = nil
	_, err := e.Render("{{ lookup('url', u ~ '/private', username='me', password='pw', force_basic_auth=true, force=true, headers={'X-A': 'b'}) }}", vars, template.Options{})
	require.NoError(t, err)
	require.Len(t, seen, 1, "force_basic_auth sends the credentials at once")
	require.Equal(t, "b", seen[0].Header.Get("X-A"))
	require.Equal(t, "no-cache", seen[0].Header.Get("Cache-Control"))
	require.Equal(t, "from-var", seen[0].Header.Get("User-Agent"))
}
