package py

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBooleanIsAnsibleStrictBoolean(t *testing.T) {
	cases := []struct {
		in   any
		want bool
		ok   bool
	}{
		{true, true, true},
		{" Yes\t", true, true},
		{"off", false, true},
		{1, true, true},
		{0.0, false, true},
		{2, false, false},
		{"maybe", false, false},
		{[]any{}, false, false},
	}
	for _, c := range cases {
		got, err := Boolean(c.in)
		if !c.ok {
			var be *BooleanError
			require.ErrorAs(t, err, &be, "%v", c.in)
			continue
		}
		require.NoError(t, err, "%v", c.in)
		require.Equal(t, c.want, got, "%v", c.in)
	}
	_, err := Boolean("maybe")
	require.EqualError(t, err, "The value 'maybe' is not a valid boolean. Valid booleans include: "+BooleanChoices)
}
