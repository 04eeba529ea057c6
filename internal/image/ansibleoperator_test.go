package image

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/stretchr/testify/require"
)

// TestAnsibleOperatorDockerfileMatchesPacker checks that
// container/Dockerfile.ansible-operator's final stage states the packer's
// entrypoint, user, working directory and environment.
func TestAnsibleOperatorDockerfileMatchesPacker(t *testing.T) {
	root, err := kubetest.RepoRoot()
	require.NoError(t, err)
	stages := parseDockerfile(t, filepath.Join(root, "container", "Dockerfile.ansible-operator"))
	final := stages[len(stages)-1]
	require.Equal(t, "scratch", final[0].args)
	var env, entrypoint []string
	var user, workdir string
	for _, in := range final {
		switch in.cmd {
		case "ENV":
			env = append(env, in.args)
		case "USER":
			user = in.args
		case "WORKDIR":
			workdir = in.args
		case "ENTRYPOINT":
			require.NoError(t, json.Unmarshal([]byte(in.args), &entrypoint))
		}
	}
	require.Equal(t, SDKEnv, env)
	require.Equal(t, "1001", user)
	require.Equal(t, SDKHome, workdir)
	require.Equal(t, SDKEntrypoint, entrypoint)
}

// TestAnsibleOperatorImageLayout packs the base image around a stand-in
// binary and checks what operator projects rely on: the entrypoint on
// ./watches.yaml in /opt/ansible, a HOME the ansible user can write, and
// the binary where the entrypoint expects it.
func TestAnsibleOperatorImageLayout(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "cfzt-runner")
	require.NoError(t, os.WriteFile(bin, []byte("binary"), 0o755))
	ca := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(ca, []byte("pem"), 0o644))
	img, err := AnsibleOperator(SDKOptions{Binary: bin, CABundle: ca})
	require.NoError(t, err)
	var buf bytes.Buffer
	_, err = img.WriteLayout(&buf)
	require.NoError(t, err)
	l, err := ReadLayout(&buf)
	require.NoError(t, err)
	require.Equal(t, SDKEntrypoint, l.Config.Config.Entrypoint)
	require.Equal(t, "1001", l.Config.Config.User)
	require.Equal(t, SDKHome, l.Config.Config.WorkingDir)
	for _, p := range []string{BinaryPath, "/etc/passwd", CABundlePath, SDKHome, "/tmp"} {
		require.Contains(t, l.Files, p)
	}
	require.Equal(t, SDKUID, l.Files[SDKHome].Uid, "HOME belongs to the ansible user")
	require.Equal(t, "binary", string(l.Contents[BinaryPath]))
}
