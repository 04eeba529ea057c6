package py

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCompareVersionsOrders(t *testing.T) {
	ascending := map[string][]string{
		// semver.org's precedence example.
		"semver": {"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"},
		// PEP 440: dev < pre < final < post; local numbers after words.
		"pep440": {"1.0.dev1", "1.0a1", "1.0b2", "1.0rc1", "1.0", "1.0+abc", "1.0+5", "1.0.post1"},
		"loose":  {"1.2", "1.2.1", "1.10"},
		"strict": {"1.0a1", "1.0b1", "1.0", "1.0.1"},
	}
	for kind, versions := range ascending {
		for i := 1; i < len(versions); i++ {
			n, err := CompareVersions(kind, versions[i-1], versions[i])
			require.NoError(t, err, kind)
			require.Equal(t, -1, n, "%s: %s < %s", kind, versions[i-1], versions[i])
			n, _ = CompareVersions(kind, versions[i], versions[i-1])
			require.Equal(t, 1, n, "%s: %s > %s", kind, versions[i], versions[i-1])
		}
	}
	_, err := CompareVersions("semver", "1.0", "1.0.0")
	require.EqualError(t, err, "invalid semantic version '1.0'")
}
