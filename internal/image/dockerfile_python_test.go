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
// in step with the small flavour and with the packer: the same build stage
// (the static cfzt-runner and the system files), the small flavour's
// copies into scratch plus the python stage's root filesystem, which that
// stage makes with hack/fetch-python-debs.sh from the lock on Debian
// trixie as the packer's does, and the same user, working directory,
// environment and entrypoint, so an operator switches flavour by its FROM
// line.
func TestPythonFlavourMatchesBase(t *testing.T) {
	root, err := kubetest.RepoRoot()
	require.NoError(t, err)
	base := parseDockerfile(t, filepath.Join(root, "container", "Dockerfile.ansible-operator"))
	py := parseDockerfile(t, filepath.Join(root, "container", "Dockerfile.ansible-operator-python"))
	require.Len(t, py, 3, "a build stage, a python stage and the final image")

	runs := func(stage []instruction) []instruction {
		var out []instruction
		for _, in := range stage {
			if in.cmd == "RUN" || in.cmd == "COPY" {
				out = append(out, in)
			}
		}
		return out
	}
	require.Equal(t, base[0][0], py[0][0], "the same build image")
	require.Equal(t, runs(base[0]), runs(py[0]), "the same build of cfzt-runner and the system files")

	// The python stage: Debian trixie, the fetch script and its lock.
	require.Equal(t, "${DEBIAN_IMAGE} AS python", py[1][0].args)
	data, err := os.ReadFile(filepath.Join(root, "container", "Dockerfile.ansible-operator-python"))
	require.NoError(t, err)
	var debian string
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "ARG DEBIAN_IMAGE="); ok {
			debian = v
		}
	}
	require.True(t, strings.HasPrefix(debian, "debian:trixie"), "the python stage is Debian trixie, whose packages the lock pins: %q", debian)
	var copied, ran string
	for _, in := range py[1] {
		switch in.cmd {
		case "COPY":
			copied += in.args + "\n"
		case "RUN":
			ran += in.args + "\n"
		}
	}
	require.Contains(t, copied, PythonFetchScript)
	require.Contains(t, copied, PythonLock)
	require.Contains(t, ran, PythonFetchScript)

	final := func(stage []instruction, what ...string) []instruction {
		var out []instruction
		for _, in := range stage {
			for _, w := range what {
				if in.cmd == w {
					out = append(out, in)
				}
			}
		}
		return out
	}
	bf, pf := base[len(base)-1], py[2]
	require.Equal(t, "scratch", pf[0].args)
	settings := []string{"ENV", "USER", "WORKDIR", "ENTRYPOINT"}
	require.Equal(t, final(bf, settings...), final(pf, settings...))
	require.Equal(t, append(final(bf, "COPY"), instruction{"COPY", "--from=python /python/ /"}), final(pf, "COPY"),
		"the small flavour's files, then python's root filesystem")

	// The python stage's build context has the script and the lock.
	ignore, err := os.ReadFile(filepath.Join(root, "container", "Dockerfile.ansible-operator-python.dockerignore"))
	require.NoError(t, err)
	require.Contains(t, string(ignore), "!"+PythonFetchScript)
	require.Contains(t, string(ignore), "!"+PythonLock)
}
