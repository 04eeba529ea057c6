package image

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

// instruction is one Dockerfile instruction with its continuation lines
// joined.
type instruction struct {
	cmd, args string
}

func parseDockerfile(t *testing.T, path string) (stages [][]instruction) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var line string
	for _, raw := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(raw)
		if line == "" && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			line += strings.TrimSuffix(trimmed, "\\") + " "
			continue
		}
		line += trimmed
		cmd, args, _ := strings.Cut(line, " ")
		line = ""
		in := instruction{strings.ToUpper(cmd), strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) > 0 {
			stages[len(stages)-1] = append(stages[len(stages)-1], in)
		}
	}
	return stages
}

// TestDockerfileMatchesPacker keeps container/Dockerfile and the packer in
// step: same base, user, working directory, environment and entrypoint, a
// static -trimpath -s -w build, and the roles copied to /ansible as 1000.
func TestDockerfileMatchesPacker(t *testing.T) {
	root, err := kubetest.RepoRoot()
	require.NoError(t, err)
	stages := parseDockerfile(t, filepath.Join(root, "container", "Dockerfile"))
	require.GreaterOrEqual(t, len(stages), 2, "multi-stage build")

	build := stages[0]
	var buildRun string
	for _, in := range build {
		if in.cmd == "RUN" && strings.Contains(in.args, "go build") {
			buildRun = in.args
		}
	}
	require.Contains(t, buildRun, "CGO_ENABLED=0")
	require.Contains(t, buildRun, "-trimpath")
	require.Contains(t, buildRun, `-ldflags "-s -w`)
	require.Contains(t, buildRun, "./cmd/cfzt-runner")

	final := stages[len(stages)-1]
	require.Equal(t, "scratch", final[0].args)
	var env []string
	var user, workdir string
	var entrypoint []string
	copied := map[string]string{}
	for _, in := range final {
		switch in.cmd {
		case "ENV":
			env = append(env, in.args)
		case "USER":
			user = in.args
		case "WORKDIR":
			workdir = in.args
		case "ENTRYPOINT":
			require.NoError(t, json.Unmarshal([]byte(in.args), &entrypoint), "ENTRYPOINT must be in exec (JSON) form")
		case "COPY":
			f := strings.Fields(in.args)
			copied[f[len(f)-1]] = in.args
		case "CMD":
			t.Errorf("unexpected CMD %s: the packer sets none", in.args)
		}
	}
	require.Equal(t, Env, env)
	require.Equal(t, "1000:1000", user)
	require.Equal(t, AnsibleRoot, workdir)
	require.Equal(t, Entrypoint, entrypoint)
	require.Contains(t, copied[AnsibleRoot+"/"], "--chown=1000:1000")
	require.Contains(t, copied[AnsibleRoot+"/"], "ansible/")
	require.Contains(t, copied[BinaryPath], "--chown=1000:1000")
	require.Contains(t, copied, "/etc/")
	require.Contains(t, copied["/tmp"], "--chown=1000:1000")
}
