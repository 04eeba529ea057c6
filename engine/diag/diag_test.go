package diag

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

var (
	taskPos = value.Pos{File: "pb.yml", Line: 3, Col: 7}
	argPos  = value.Pos{File: "pb.yml", Line: 5, Col: 14}
)

func TestErrorText(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"a chain joins its summaries", Chain("Task failed.", taskPos, Chain("Error while resolving value for 'msg'.", argPos, errors.New("'x' is undefined"))),
			"Task failed: Error while resolving value for 'msg': 'x' is undefined"},
		{"a link without summary is skipped", Chain("Task failed.", taskPos, &Diagnostic{Origin: &argPos, Cause: errors.New("boom")}),
			"Task failed: boom"},
		{"a part that ends with the rest replaces it", Chain("Module failed: boom", taskPos, errors.New("boom")), "Module failed: boom"},
		{"an error that ends the run names its position", &Diagnostic{Summary: "YAML parsing failed.", Origin: &argPos, Code: ExitParse},
			"YAML parsing failed. (pb.yml:5:14)"},
		{"an unknown origin is not named", &Diagnostic{Summary: "Bad name.", Origin: Unknown(), Note: "1", Code: ExitFailure}, "Bad name."},
		{"a wrapped error is not shown", &Diagnostic{Summary: "Could not read it.", Wrapped: os.ErrNotExist, Code: ExitFailure}, "Could not read it."},
		{"a cause ending the run is quoted whole", Chain("Included.", taskPos, &Diagnostic{Summary: "Bad.", Origin: &argPos, Code: ExitParse}),
			"Included: Bad. (pb.yml:5:14)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.EqualError(t, c.err, c.want)
		})
	}
}

func TestExitCode(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"no error", nil, 0},
		{"a plain error", errors.New("boom"), ExitFailure},
		{"a task error", Chain("Task failed.", taskPos, errors.New("boom")), ExitFailure},
		{"a parse error", &Diagnostic{Summary: "Bad.", Code: ExitParse}, ExitParse},
		{"a parse error below a link", Chain("Included.", taskPos, &Diagnostic{Summary: "Bad.", Code: ExitParse}), ExitParse},
		{"a wrapped diagnostic", fmt.Errorf("while loading: %w", &Diagnostic{Summary: "Bad order.", Code: ExitOptions}), ExitOptions},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, ExitCode(c.err))
		})
	}
}

// undefined is a typed error that diagnoses itself, as the template
// engine's do.
type undefined struct{ pos value.Pos }

func (u *undefined) Error() string { return "'x' is undefined" }

func (u *undefined) Diagnose() *Diagnostic {
	return &Diagnostic{Summary: "Error rendering template.", Cause: &Diagnostic{Summary: u.Error(), Origin: &u.pos}}
}

func TestLinks(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want []Diagnostic
	}{
		{"a chain, outermost first", Chain("Task failed.", taskPos, errors.New("boom")),
			[]Diagnostic{{Summary: "Task failed.", Origin: &taskPos}, {Summary: "boom"}}},
		{"an origin-only link lends its origin to the next", &Diagnostic{Origin: &argPos, Cause: errors.New("boom")},
			[]Diagnostic{{Summary: "boom", Origin: &argPos}}},
		{"a typed error expands into its diagnosis", Chain("Task failed.", taskPos, &undefined{pos: argPos}),
			[]Diagnostic{{Summary: "Task failed.", Origin: &taskPos}, {Summary: "Error rendering template."}, {Summary: "'x' is undefined", Origin: &argPos}}},
		{"a wrapped typed error too", fmt.Errorf("wrapped: %w", &undefined{pos: argPos}),
			[]Diagnostic{{Summary: "Error rendering template."}, {Summary: "'x' is undefined", Origin: &argPos}}},
		{"the cause a link was made from is not a link", &Diagnostic{Summary: "Could not read it.", Wrapped: os.ErrNotExist},
			[]Diagnostic{{Summary: "Could not read it."}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, Links(c.err))
		})
	}
}

func TestLocated(t *testing.T) {
	require.Equal(t, &Diagnostic{Origin: &argPos, Cause: errors.New("boom")}, Located(argPos, errors.New("boom")))
	withOrigin := Chain("Bad loop.", taskPos, nil)
	require.Same(t, withOrigin, Located(argPos, withOrigin), "an error with an origin keeps it")
	got := Located(argPos, &Diagnostic{Summary: "Bad loop.", Help: "Fix it."})
	require.Equal(t, &Diagnostic{Summary: "Bad loop.", Help: "Fix it.", Origin: &argPos}, got)
}

func TestWarnings(t *testing.T) {
	require.Equal(t, &Diagnostic{Severity: Deprecation, Summary: "Old.", Version: "2.23"}, Deprecate("Old.", "2.23", nil))
	require.Equal(t, Warning, Deprecate("Old.", "", nil).Severity, "a deprecation names the version that removes it")
	require.Nil(t, At(value.Pos{}), "a zero position is no origin")
	require.Equal(t, &argPos, At(argPos))
}
