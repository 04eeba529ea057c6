package playbook

import (
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// originOf is the origin of a load-time warning: always shown, as
// "<unknown>" when the position is not known.
func originOf(pos value.Pos) *value.Pos { return &pos }

// parseErr is a problem in what a file says (ansible-core's
// AnsibleParserError): malformed YAML, an unknown keyword or module. It
// ends the run with exit status 4.
func parseErr(pos value.Pos, format string, a ...any) *diag.Diagnostic {
	return &diag.Diagnostic{Summary: fmt.Sprintf(format, a...), Origin: diag.At(pos), Code: diag.ExitParse}
}
