package main

import (
	"io/fs"
	"testing"

	"github.com/cfzt/cfzt-runner/internal/image"
	"github.com/stretchr/testify/require"
)

func TestOperatorEntriesPutChuteInHome(t *testing.T) {
	entries, err := operatorEntries("../../ansible/chute")
	require.NoError(t, err)
	byPath := map[string]image.Entry{}
	for _, e := range entries {
		byPath[e.Path] = e
		require.Equal(t, image.SDKUID, e.UID, e.Path)
	}
	for _, p := range []string{"/opt/ansible/watches.yaml", "/opt/ansible/ansible.cfg",
		"/opt/ansible/roles/chuteinstance/tasks/main.yml", "/opt/ansible/roles/chuteconfig/tasks/main.yml",
		"/opt/ansible/roles/chute_cloudflare/tasks/call.yml"} {
		e, ok := byPath[p]
		require.True(t, ok, p)
		require.NotEmpty(t, e.Data, p)
		require.Equal(t, fs.FileMode(0o644), e.Mode, p)
	}
	require.True(t, byPath["/opt/ansible/roles"].Mode.IsDir())
}
