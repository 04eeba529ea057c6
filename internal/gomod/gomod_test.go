package gomod

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDownload(t *testing.T) {
	dir, err := Download(AnsibleOperatorPlugins)
	if err != nil {
		t.Skipf("the Go module proxy does not serve %s here: %v", AnsibleOperatorPlugins, err)
	}
	for _, f := range []string{"go.mod", filepath.Join(MemcachedSample, "watches.yaml")} {
		_, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
	}
	_, err = Download("github.com/operator-framework/ansible-operator-plugins@v0.0.0-no-such-version")
	require.ErrorContains(t, err, "go mod download github.com/operator-framework/ansible-operator-plugins@v0.0.0-no-such-version")
}
