package lookup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/stretchr/testify/require"
)

// The seeded passwords are ansible-core 2.19's for the same seeds.
func TestPasswordLookup(t *testing.T) {
	dir := t.TempDir()
	e := newEngine()
	opt := template.Options{Search: search.Path{Base: dir}}
	cases := []tcase{
		{"{{ lookup('password', '/dev/null length=8 chars=digits seed=x') | length }}", 8, ""},
		{"{{ lookup('password', '/dev/null', length=12, chars=['ascii_lowercase', '-'], seed='s1') }}", "srainvotefsx", ""},
		{"{{ lookup('password', '/dev/null chars=ascii_letters,,digits length=10 seed=q') }}", "C6pb7ojH0G", ""},
		{"{{ lookup('password', 'creds/one length=6 seed=z') }}", "gre_nz", ""},
		{"{{ lookup('password', 'creds/one length=9 seed=other') }}", "gre_nz", ""},
		{"{{ lookup('password', '/dev/null bogus=1') }}", nil, le("password", "Unrecognized parameter(s) given to password lookup: bogus")},
		{"{{ lookup('password', '/dev/null length=4 extra words') }}", nil, le("password", "Unrecognized value after key=value parameters given to password lookup")},
		{"{{ lookup('password', '/dev/null length=abc') }}", nil, le("password",
			"Config 'length' for 'password' lookup plugin from 'Direct' has an invalid value: Invalid value provided for 'integer': 'abc'")},
		{"{{ lookup('password', 'creds/enc length=3 seed=e', encrypt='md5_crypt') }}", "KbR", ""},
		{"{{ lookup('password', 'creds/enc2', encrypt='md5_crypt') }}", nil, le("password",
			"Unable to encrypt nor hash, passlib must be installed: No module named 'passlib'")},
	}
	renderCases(t, e, noVars(), opt, cases)
	b, err := os.ReadFile(filepath.Join(dir, "creds", "one"))
	require.NoError(t, err)
	require.Equal(t, "gre_nz\n", string(b))
	st, err := os.Stat(filepath.Join(dir, "creds"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())
	// encrypt stores a salt before hashing, as ansible-core does.
	b, err = os.ReadFile(filepath.Join(dir, "creds", "enc2"))
	require.NoError(t, err)
	require.Regexp(t, `^\S{20} salt=[A-Za-z0-9./]{8}\n$`, string(b))
}

func TestParsePasswordContent(t *testing.T) {
	cases := []struct{ in, pw, salt, ident string }{
		{"plain", "plain", "", ""},
		{"p w salt=abc", "p w", "abc", ""},
		{"p salt=abc ident=2b", "p", "abc", "2b"},
	}
	for _, c := range cases {
		pw, salt, ident := parsePasswordContent(c.in)
		require.Equal(t, []string{c.pw, c.salt, c.ident}, []string{pw, salt, ident}, c.in)
		if c.salt != "" {
			require.Equal(t, c.in, formatPasswordContent(pw, salt, "x", ident))
		}
	}
}
