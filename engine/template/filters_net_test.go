package template

import "testing"

func TestNetFilters(t *testing.T) {
	runCases(t, []tcase{
		// urls
		{"{{ 'http://user:pw@www.Example.com:9000/dir/index.html?query=term#frag' | urlsplit }}",
			D("fragment", "frag", "hostname", "www.example.com", "netloc", "user:pw@www.Example.com:9000", "password", "pw",
				"path", "/dir/index.html", "port", 9000, "query", "query=term", "scheme", "http", "username", "user"), ""},
		{"{{ 'http://www.example.com/x' | urlsplit('hostname') }}", "www.example.com", ""},
		{"{{ 'http://www.example.com/x' | urlsplit('port') }}", nil, ""},
		{"{{ 'http://www.example.com/x' | urlsplit('nope') }}", nil, fe("ansible.builtin.urlsplit", "urlsplit: unknown URL component: nope")},
		{"{{ 'a%20b+c' | urldecode }}", "a b c", ""},
	})
}
