package localsys

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/stretchr/testify/require"
)

// fakeDpkg is a dpkg that knows one package, pkg, selected for
// install, and logs what --set-selections reads to the file set.
const fakeDpkg = `#!/bin/sh
dir=$(dirname "$0")
case "$1" in
--get-selections)
  case "$2" in
  pkg) printf 'pkg\t\t\t\t\tinstall\n' ;;
  broken) echo "dpkg: error: broken database" >&2; exit 2 ;;
  *) echo "dpkg: no packages found matching $2" >&2 ;;
  esac ;;
--set-selections) cat >> "$dir/set" ;;
esac
`

// TestDpkgSelections covers what the goldens cannot without changing the
// machine's own selections: the set, and dpkg's failure.
func TestDpkgSelections(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dpkg"), []byte(fakeDpkg), 0o755))
	h := moduletest.NewHost(nil)
	run := func(check bool, args ...any) map[string]any {
		req := h.Request("dpkg_selections", args...)
		req.Env = map[string]string{"PATH": dir + ":/usr/bin:/bin"}
		req.Check = check
		res, err := DpkgSelections(req)
		require.NoError(t, err)
		out := map[string]any{}
		res.Each(func(k string, v any) bool { out[k] = v; return true })
		return out
	}

	res := run(true, "name", "pkg", "selection", "hold")
	require.Equal(t, map[string]any{"changed": true, "before": "install", "after": "hold"}, res)
	_, err := os.Stat(filepath.Join(dir, "set"))
	require.True(t, os.IsNotExist(err), "check mode set a selection")

	res = run(false, "name", "pkg", "selection", "hold")
	require.Equal(t, true, res["changed"])
	data, err := os.ReadFile(filepath.Join(dir, "set"))
	require.NoError(t, err)
	require.Equal(t, "pkg hold\n", string(data))

	res = run(false, "name", "pkg", "selection", "install")
	require.Equal(t, map[string]any{"changed": false, "before": "install", "after": "install"}, res)

	res = run(false, "name", "broken", "selection", "hold")
	require.Equal(t, true, res["failed"])
	require.Equal(t, "dpkg: error: broken database", res["msg"])
	require.Equal(t, 2, res["rc"])

	res = run(false, "name", "other", "selection", "hold")
	require.Equal(t, "Failed to find package 'other' to perform selection 'hold'.", res["msg"])

	req := h.Request("dpkg_selections", "name", "pkg", "selection", "hold")
	req.Env = map[string]string{"PATH": t.TempDir()}
	res2, err := DpkgSelections(req)
	require.NoError(t, err)
	require.Contains(t, res2.Default("msg", ""), `Failed to find required executable "dpkg"`)
}
