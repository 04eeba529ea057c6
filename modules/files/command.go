package files

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// commandOutput is what AnsibleModule.run_command returns.
type commandOutput struct {
	rc             int
	stdout, stderr string
}

// runCommand runs a command line as run_command does without a shell:
// split as shlex.split does, ~ and $VARS expanded in each word, in the
// task's environment. A missing program is the module's failure.
func runCommand(req *module.Request, line string) (commandOutput, error) {
	words, err := shlexSplit(line)
	if err != nil {
		return commandOutput{}, module.Fail(err.Error())
	}
	if len(words) == 0 {
		return commandOutput{}, module.Fail("no command given", "rc", 256)
	}
	for i, w := range words {
		words[i] = argspec.ExpandPath(w)
	}
	return runArgv(req, words)
}

// runArgv runs words as run_command does with a list: no splitting and no
// expansion, in the task's environment.
func runArgv(req *module.Request, words []string) (commandOutput, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(req.Ctx, words[0], words[1:]...)
	cmd.Env = req.Environ()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return commandOutput{rc: ee.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}, nil
	case err != nil:
		return commandOutput{}, module.Fail("[Errno 2] No such file or directory: b"+value.Repr(words[0]),
			"rc", 2, "stdout", "", "stderr", "", "cmd", strings.Join(words, " "))
	}
	return commandOutput{stdout: stdout.String(), stderr: stderr.String()}, nil
}

// pyPercentS is Python's `format % value` for formats that hold %s and %%.
func pyPercentS(format, v string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] == '%' && i+1 < len(format) {
			switch format[i+1] {
			case 's':
				b.WriteString(v)
				i++
				continue
			case '%':
				b.WriteByte('%')
				i++
				continue
			}
		}
		b.WriteByte(format[i])
	}
	return b.String()
}

// shlexSplit splits a command line as Python's shlex.split does (POSIX
// mode, no comments): quotes group, a backslash escapes the next character
// outside single quotes and only \ " $ ` and newline inside double ones.
func shlexSplit(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 >= len(s) {
				return nil, errors.New("No escaped character")
			}
			i++
			cur.WriteByte(s[i])
		case c == '\'':
			inWord = true
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("No closing quotation")
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("\\\"$`\n", s[j+1]) >= 0 {
					j++
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, errors.New("No closing quotation")
			}
			i = j
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
