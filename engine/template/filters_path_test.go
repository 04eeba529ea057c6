package template

import "testing"

func TestPathFilters(t *testing.T) {
	runCases(t, []tcase{
		// paths
		{"{{ '/etc/foo/bar.txt' | basename }}", "bar.txt", ""},
		{"{{ '/etc/foo/' | basename }}", "", ""},
		{"{{ '/etc/foo/bar.txt' | dirname }}", "/etc/foo", ""},
		{"{{ '/etc/foo/bar.tar.gz' | splitext }}", T("/etc/foo/bar.tar", ".gz"), ""},
		{"{{ '.bashrc' | splitext }}", T(".bashrc", ""), ""},
		{"{{ '/a/b/../c/./d' | normpath }}", "/a/c/d", ""},
		{"{{ ['/a', 'b', 'c'] | path_join }}", "/a/b/c", ""},
		{"{{ ['/a', '/b', 'c'] | path_join }}", "/b/c", ""},
		{"{{ '/usr/lib' | relpath('/usr/share/doc') }}", "../../lib", ""},
		{"{{ 5 | basename }}", nil, fe("ansible.builtin.basename", "expected str, bytes or os.PathLike object, not int")},
	})
}
