package files

import (
	"os"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// tempfileDef is ansible.builtin.tempfile (modules/tempfile.py). It does
// not support check mode.
func tempfileDef() *moduleDef {
	return &moduleDef{name: "tempfile", run: runTempfile, spec: &argspec.Spec{Options: []argspec.Option{
		{Name: "state", Type: argspec.Str, Default: "file", Choices: []any{"file", "directory"}},
		{Name: "path", Type: argspec.Path},
		{Name: "prefix", Type: argspec.Str, Default: "ansible."},
		{Name: "suffix", Type: argspec.Str, Default: ""},
	}}}
}

func runTempfile(m *amod) (*value.Dict, error) {
	dir := m.p.Str("path")
	if dir == "" {
		dir = pyTempDir()
	}
	prefix, suffix := m.p.Str("prefix"), m.p.Str("suffix")
	var path string
	var err error
	if m.p.Str("state") == "file" {
		var f *os.File
		if f, err = mkstemp(dir, prefix, suffix); err == nil {
			path = f.Name()
			f.Close()
		}
	} else {
		path, err = mkdtemp(dir, prefix, suffix)
	}
	if err != nil {
		return nil, module.Fail(pyOSError(err))
	}
	return value.DictOf("changed", true, "path", path), nil
}

// pyTempDir is tempfile.gettempdir(): TMPDIR, TEMP or TMP when they name
// a writable directory, else /tmp.
func pyTempDir() string {
	for _, k := range []string{"TMPDIR", "TEMP", "TMP"} {
		if d := os.Getenv(k); d != "" && isDir(d) && accessOK(d, 2) {
			return d
		}
	}
	return "/tmp"
}
