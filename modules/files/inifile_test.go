package files

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIniMatchOpt checks ini_file's option matching: commented-out lines
// count for match_opt only, the value is group 8, and a longer option
// name does not match.
func TestIniMatchOpt(t *testing.T) {
	cases := []struct {
		line          string
		any, active   bool
		comment, want string
	}{
		{line: "port = 80\n", any: true, active: true, want: "80"},
		{line: "  port=8080\n", any: true, active: true, want: "8080"},
		{line: "; port = 80\n", any: true, comment: ";", want: "80"},
		{line: "#port\n", any: true, comment: "#"},
		{line: "port_extra = 1\n"},
		{line: "[server]\n"},
	}
	for _, c := range cases {
		g := iniMatchOpt("port", c.line)
		require.Equal(t, c.any, g != nil, c.line)
		require.Equal(t, c.active, iniMatchActiveOpt("port", c.line) != nil, c.line)
		if g != nil {
			require.Equal(t, c.comment, g[2], c.line)
			require.Equal(t, c.want, g[8], c.line)
		}
	}
}

// TestIniEditPresent checks that a missing option is added after the
// section's last non-blank line and a commented one is reused.
func TestIniEditPresent(t *testing.T) {
	cases := []struct {
		lines []string
		want  []string
		msg   string
	}{
		{lines: []string{"[s]\n", "a = 1\n", "\n"}, want: []string{"[s]\n", "a = 1\n", "port = 9\n", "\n"}, msg: "option added"},
		{lines: []string{"[s]\n", "; port = 1\n"}, want: []string{"[s]\n", "port = 9\n"}, msg: "option changed"},
		{lines: []string{"[s]\n", "port = 9\n"}, want: []string{"[s]\n", "port = 9\n"}, msg: "OK"},
	}
	for _, c := range cases {
		e := &iniEdit{option: "port", values: []string{"9"}, exclusive: true, msg: "OK", assignment: "%s = %s\n", match: iniMatchOpt}
		require.True(t, e.split(append(append([]string{"[" + iniFakeSection + "]"}, c.lines...), "["), "s"))
		e.present()
		require.Equal(t, c.want, e.section)
		require.Equal(t, c.msg, e.msg)
	}
}
