package image

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

// TestPythonFlavourMatchesBase keeps container/Dockerfile.ansible-operator-python
// in step with the small flavour: the same static build of cfzt-runner and
// the same user, working directory, environment and entrypoint on a base
// that has python3, so an operator switches flavour by its FROM line.
func TestPythonFlavourMatchesBase(t *testing.T) {
	root, err := kubetest.RepoRoot()
	require.NoError(t, err)
	base := parseDockerfile(t, filepath.Join(root, "container", "Dockerfile.ansible-operator"))
	py := parseDockerfile(t, filepath.Join(root, "container", "Dockerfile.ansible-operator-python"))
	require.Len(t, py, 2, "a build stage and the final image")

	build := func(stage []instruction) string {
		for _, in := range stage {
			if in.cmd == "RUN" && strings.Contains(in.args, "go build") {
				return in.args
			}
		}
		return ""
	}
	require.Equal(t, build(base[0]), build(py[0]), "the same build of cfzt-runner")

	settings := func(stage []instruction) []instruction {
		var out []instruction
		for _, in := range stage {
			switch in.cmd {
			case "ENV", "USER", "WORKDIR", "ENTRYPOINT":
				out = append(out, in)
			}
		}
		return out
	}
	require.Equal(t, settings(base[len(base)-1]), settings(py[1]))
	require.Equal(t, "${PYTHON_IMAGE}", py[1][0].args)
	var pyImage string
	data, err := os.ReadFile(filepath.Join(root, "container", "Dockerfile.ansible-operator-python"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "ARG PYTHON_IMAGE="); ok {
			pyImage = v
		}
	}
	require.True(t, strings.HasPrefix(pyImage, "python:3."), "the final stage is an official python3 image: %q", pyImage)
}
