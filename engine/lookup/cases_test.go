package lookup

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// tcase renders src and expects want (compared with its Go type) or an
// error with exactly the message err.
type tcase struct {
	src  string
	want any
	err  string
}

// newEngine is the engine the composition root builds: the language and
// this package's library.
func newEngine() *template.Engine { return template.New(Libraries()...) }

// renderCases renders each case with e, vars and opt and checks its
// result or its error.
func renderCases(t *testing.T, e *template.Engine, vars template.Vars, opt template.Options, cases []tcase) {
	t.Helper()
	for _, c := range cases {
		got, err := e.Render(c.src, vars, opt)
		if c.err != "" {
			require.EqualError(t, err, c.err, c.src)
			continue
		}
		require.NoError(t, err, c.src)
		require.Equal(t, c.want, got, c.src)
	}
}

// noVars is an empty variable scope.
func noVars() template.Vars { return template.MapVars{D: value.NewDict(0)} }

func L(v ...any) []any        { return v }
func D(kv ...any) *value.Dict { return value.DictOf(kv...) }

// le, te and fe are the messages of a failing lookup, test and filter.
func le(name, msg string) string { return "The lookup plugin '" + name + "' failed: " + msg }
func te(name, msg string) string { return "The test plugin '" + name + "' failed: " + msg }
func fe(name, msg string) string { return "The filter plugin '" + name + "' failed: " + msg }
