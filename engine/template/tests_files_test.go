package template

import "testing"

func TestFileTests(t *testing.T) {
	runCases(t, []tcase{
		{"{{ ('/tmp' is directory, '/tmp' is exists, '/etc/passwd' is file, '/tmp' is abs, 'tmp' is abs, '/nonexistent' is exists, '/tmp' is link, '/' is mount) }}",
			T(true, true, true, true, false, false, false, true), ""},
		{"{{ '/' is same_file('/') }}", true, ""},
		{"{{ 5 is abs }}", nil, te("ansible.builtin.abs", "expected str, bytes or os.PathLike object, not int")},
	})
}
