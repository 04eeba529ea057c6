package uri

import (
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules"
)

var slurpSpec = &spec{
	module: "slurp",
	params: []param{{name: "src", typ: "path", required: true, aliases: []string{"path"}}},
}

// runSlurp is ansible.builtin.slurp: a local file's content, base64-encoded.
func runSlurp(req *modules.Request) (*value.Dict, error) {
	p, err := slurpSpec.validate(req.Args)
	if err != nil {
		return modules.Failed(err.Error()), nil
	}
	src := p["src"].(string)
	b, err := os.ReadFile(src)
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
		return modules.Failed(msg), nil
	}
	return value.DictOf("changed", false, "content", base64.StdEncoding.EncodeToString(b), "encoding", "base64", "source", src), nil
}
