package lookup

import (
	"testing"

	"github.com/cfzt/cfzt-runner/engine/template"
)

func TestFileTests(t *testing.T) {
	renderCases(t, newEngine(), noVars(), template.Options{}, []tcase{
		{"{{ ('/tmp' is directory, '/tmp' is exists, '/etc/passwd' is file, '/nonexistent' is exists, '/tmp' is link, '/' is mount) }}",
			L(true, true, true, false, false, true), ""},
		{"{{ '/' is same_file('/') }}", true, ""},
		{"{{ 5 is file }}", false, ""},
		{"{{ '/etc/passwd' is vaulted_file }}", false, ""},
		{"{{ '/nonexistent' is vaulted_file }}", nil, te("ansible.builtin.vaulted_file", "Cannot test if the file '/nonexistent' is a vault.")},
	})
}

func TestPathFilters(t *testing.T) {
	renderCases(t, newEngine(), noVars(), template.Options{}, []tcase{
		{"{{ '~' | expanduser | length > 0 }}", true, ""},
		{"{{ '/' | realpath }}", "/", ""},
		{"{{ 5 | realpath }}", nil, fe("ansible.builtin.realpath", "expected str, bytes or os.PathLike object, not int")},
		{"{{ '/nonexistent/*' | fileglob }}", []any{}, ""},
	})
}
