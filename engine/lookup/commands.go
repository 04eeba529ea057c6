package lookup

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// commandLookups returns ansible-core's lookups that run a shell command
// on the controller: pipe (its output) and lines (its output's lines).
// Like ansible-core, they run /bin/sh -c in the play's directory with the
// controller's environment (a task's environment keyword is for its
// module, not its lookups) and the runner's own user. The command's
// stdin and stderr are /dev/null, as in ansible-core's worker processes.
func commandLookups() template.Library {
	return template.Library{Collection: "ansible.builtin", Lookups: map[string]template.LookupFunc{
		"lines": lookupLines,
		"pipe":  lookupPipe,
	}}
}

func lookupPipe(c *template.Ctx, terms []any, _ *template.Args) ([]any, error) {
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		cmd := value.Str(t)
		stdout, err := runShell(c, "pipe", cmd)
		if err != nil {
			return nil, err
		}
		out = append(out, strings.TrimRightFunc(stdout, py.IsSpace))
	}
	return out, nil
}

func lookupLines(c *template.Ctx, terms []any, _ *template.Args) ([]any, error) {
	out := []any{}
	for _, t := range terms {
		cmd, ok := t.(string)
		if !ok {
			return nil, template.TypeErrorf("expected str, bytes or os.PathLike object, not %s", value.TypeName(t))
		}
		stdout, err := runShell(c, "lines", cmd)
		if err != nil {
			return nil, err
		}
		for _, l := range splitBytesLines(stdout) {
			out = append(out, l)
		}
	}
	return out, nil
}

// runShell runs cmd with /bin/sh and returns its standard output, which
// must be UTF-8; a non-zero exit is the lookup's failure, with the
// negative signal number for a command killed by a signal.
func runShell(c *template.Ctx, plugin, cmd string) (string, error) {
	sh := exec.Command("/bin/sh", "-c", cmd)
	sh.Dir = c.SearchPath().Base
	sh.Env = c.Engine().Environ()
	var stdout bytes.Buffer
	sh.Stdout = &stdout
	err := sh.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code := exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = -int(ws.Signal())
		}
		return "", template.Errorf("lookup_plugin.%s(%s) returned %d", plugin, cmd, code)
	case err != nil:
		return "", template.Errorf("%s", py.OSErrorText(err, sh.Dir))
	}
	return strictUTF8(stdout.Bytes())
}

// strictUTF8 decodes a command's output as Python's bytes.decode("utf-8")
// does, failing at the first byte that does not start a character (the
// reason Python gives may differ for a truncated sequence).
func strictUTF8(b []byte) (string, error) {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return "", template.Errorf("'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte", b[i], i)
		}
		i += size
	}
	return string(b), nil
}

// splitBytesLines is bytes.splitlines: lines end at \n, \r or \r\n, and a
// trailing line break does not start an empty last line.
func splitBytesLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			out = append(out, s[start:i])
			start = i + 1
		case '\r':
			out = append(out, s[start:i])
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
