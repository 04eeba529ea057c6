package uri

import (
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

var slurpSpec = &argspec.Spec{Options: []argspec.Option{{Name: "src", Type: argspec.Path, Required: true, Aliases: []string{"path"}}}}

// runSlurp is ansible.builtin.slurp: a local file's content, base64-encoded.
func runSlurp(req *module.Request) (*value.Dict, error) {
	v := slurpSpec.Validate(req.Args)
	if f := v.Failure(req.LoadName()); f != nil {
		return f, nil
	}
	src := v.P().Str("src")
	var b []byte
	var err error
	module.InBaseDir(req, []string{src}, func() { b, err = os.ReadFile(src) })
	if err != nil {
		var msg string
		switch {
		case errors.Is(err, fs.ErrNotExist):
			msg = "File not found: " + src
		case errors.Is(err, fs.ErrPermission):
			msg = "File is not readable: " + src
		case errors.Is(err, syscall.EISDIR):
			msg = "Source is a directory and must be a file: " + src
		default:
			// ansible-core 2.19 forgot the f-string prefix here.
			msg = "Unable to slurp file: {source}"
		}
		// fail_json(msg, exception=ex): the task's error adds the OSError.
		return module.FailedWith(msg, errors.New(msg+": "+py.OSErrorText(err, src))), nil
	}
	return value.DictOf("changed", false, "content", base64.StdEncoding.EncodeToString(b), "encoding", "base64", "source", src), nil
}
