package external

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
)

// shimFiles is cfzt-runner's compatibility package for
// ansible.module_utils (pyshim/ansible): the AnsibleModule API small
// custom modules use, with argument validation delegated to this binary
// (ValidateArgs). It is written beside a new-style module and goes first
// on its import path only when the interpreter cannot import ansible-core.
//
//go:embed all:pyshim
var shimFiles embed.FS

// ValidatorEnv is the environment variable that tells the compatibility
// package which cfzt-runner binary validates its arguments.
const ValidatorEnv = "CFZT_RUNNER_VALIDATOR"

// ValidateCommand is the internal subcommand of cfzt-runner that the
// compatibility package runs to validate a module's arguments.
const ValidateCommand = "__validate-args"

// writeShim writes the compatibility package under dir and returns the
// directory to put on the import path.
func writeShim(dir string) (string, error) {
	root := filepath.Join(dir, "cfzt-runner-pyshim")
	err := fs.WalkDir(shimFiles, "pyshim", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("pyshim", path)
		target := filepath.Join(root, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		data, err := shimFiles.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o600)
	})
	return root, err
}

// validatorExecutable is the binary the compatibility package runs to
// validate arguments: this cfzt-runner.
func validatorExecutable() string {
	exe, err := os.Executable()
	if err != nil {
		return "cfzt-runner"
	}
	return exe
}

// WriteShim writes the compatibility package under dir and returns the
// directory to put on the import path. modules/pyplugin puts it there for
// the Python filter, test and lookup plugins when ansible-core is not
// importable (ansible.errors, ansible.plugins.lookup, ansible.utils.display).
func WriteShim(dir string) (string, error) { return writeShim(dir) }
