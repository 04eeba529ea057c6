package files

import (
	"os"
	"path/filepath"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// WriteRendered is the second half of the template action: the rendered
// content goes to dest exactly as the copy action copies a file, with its
// check mode, diff, backup, validate, mode and ownership handling. name is
// the template's base name: like ansible-core, the content is written to
// <local temp>/tmpXXXXXXXX/<name> and that file is the copy's src (it is
// what the diff's after header and the copy module's _original_basename
// show). args are the template task's arguments without the
// template-only options (newline_sequence, the *_string delimiters,
// trim_blocks, lstrip_blocks, output_encoding); src is replaced, and a
// content argument stays for the copy action to refuse, as it does.
func WriteRendered(req *module.Request, args *value.Dict, name string, content []byte) (*value.Dict, error) {
	base, err := localTmpDir()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(base)
	dir, err := mkdtemp(base, "tmp", "")
	if err != nil {
		return nil, err
	}
	src := filepath.Join(dir, name)
	if err := os.WriteFile(src, content, 0o600); err != nil {
		return nil, err
	}
	copyArgs := args.Copy()
	copyArgs.Set("src", src)
	if !copyArgs.Has("follow") {
		copyArgs.Set("follow", false)
	}
	copyReq := *req
	copyReq.Args = copyArgs
	return RunCopy(&copyReq)
}

// PreservedMode is what "mode: preserve" stands for with the file at
// path as the source: its permission bits as '0%03o' (the template action
// resolves it before it hands over to the copy).
func PreservedMode(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	return octalMode(permOf(st)), nil
}
