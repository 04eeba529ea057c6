package command

import (
	"fmt"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// strictUTF8Help is what ansible-core adds below its refusal of a module
// result with bytes that are not UTF-8.
const strictUTF8Help = "This check can be disabled with the `MODULE_STRICT_UTF8_RESPONSE` setting."

// checkUTF8 fails the task as ansible-core does when a module's result holds
// output that is not UTF-8 (MODULE_STRICT_UTF8_RESPONSE, on by default):
// Python decoded each invalid byte to a lone surrogate, and refuses to encode
// the first run of them back.
func checkUTF8(s string) error {
	if utf8.ValidString(s) {
		return nil
	}
	pos, start, end := 0, -1, -1
	var first byte
	for i := 0; i < len(s); pos++ {
		r, size := utf8.DecodeRuneInString(s[i:])
		bad := r == utf8.RuneError && size == 1
		switch {
		case bad && start < 0:
			start, end, first = pos, pos+1, s[i]
		case bad && end == pos:
			end = pos + 1
		case start >= 0:
			i = len(s)
			continue
		}
		i += size
	}
	what := fmt.Sprintf("characters in position %d-%d", start, end-1)
	if end-start == 1 {
		what = fmt.Sprintf("character '\\udc%02x' in position %d", first, start)
	}
	return module.ArgError("Refusing to deserialize an invalid UTF8 string value: 'utf-8' codec can't encode "+what+": surrogates not allowed", value.Pos{}, strictUTF8Help, nil)
}
