package external

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// invocation is one prepared run of a module: its argv, what it reads on
// standard input, and its environment.
type invocation struct {
	argv  []string
	stdin []byte
	env   []string
	// bootstrapped is a new-style module run through the bootstrap.
	bootstrapped bool
}

// prepare copies the module into the transfer directory tmp and writes
// its arguments as its style takes them: a key=value or JSON file named
// by its last argument, JSON in the module's text, or
// {"ANSIBLE_MODULE_ARGS": ...} on standard input.
func prepare(tmp string, req *module.Request, src []byte, style Style, args *value.Dict, cmd []string) (*invocation, error) {
	jsonArgs := value.JSON(args, value.JSONOptions{})
	if style == StyleJSONArgs {
		src = bytes.ReplaceAll(src, replacerJSONArgs, []byte(jsonArgs))
	}
	file := filepath.Join(tmp, "AnsiballZ_"+filepath.Base(req.ModuleFile))
	if err := os.WriteFile(file, src, 0o700); err != nil {
		return nil, err
	}
	inv := &invocation{argv: append(append([]string(nil), cmd...), file), env: req.Environ()}
	if style == StyleNewPython {
		// A collection's module runs from its collection, where its
		// package is.
		if _, _, inColl := collectionPart(req.ModuleFile); inColl {
			file = req.ModuleFile
		}
		shim, err := writeShim(tmp)
		if err != nil {
			return nil, err
		}
		inv.argv = newStyleArgv(req, cmd, file, shim)
		inv.bootstrapped = true
	}
	var argsData string
	switch style {
	case StyleOld:
		argsData = oldStyleArgs(args)
	case StyleWantJSON, StyleBinary:
		argsData = jsonArgs
	case StyleNewPython:
		inv.stdin = []byte(value.JSON(value.DictOf("ANSIBLE_MODULE_ARGS", args), value.JSONOptions{}))
		inv.env = append(withPythonPath(req, inv.env), ValidatorEnv+"="+validatorExecutable())
		return inv, nil
	default:
		return inv, nil
	}
	argsFile := filepath.Join(tmp, "args")
	if err := os.WriteFile(argsFile, []byte(argsData), 0o600); err != nil {
		return nil, err
	}
	inv.argv = append(inv.argv, argsFile)
	return inv, nil
}

// execute runs a prepared module and makes its output the task result.
func execute(req *module.Request, inv *invocation) (*value.Dict, error) {
	var stdout, stderr bytes.Buffer
	err := runOnce(req, inv, &stdout, &stderr)
	// A binary module just written may still be open in a process forked
	// meanwhile by another goroutine ("text file busy"); it is retried.
	for try := 0; try < 5 && errors.Is(err, syscall.ETXTBSY); try++ {
		time.Sleep(20 * time.Millisecond)
		stdout.Reset()
		stderr.Reset()
		err = runOnce(req, inv, &stdout, &stderr)
	}
	rc := 0
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			// The shell ansible-core starts modules with reports a missing
			// interpreter this way.
			return parseResult(req, inv.argv[0], stdout.String(), inv.argv[0]+": not found\n", 127), nil
		}
		rc = exit.ExitCode()
	}
	if rc == missingStatus && stdout.String() == missingMarker {
		// The runner's refusal, not the module's failure.
		return module.ActionFailed(fmt.Sprintf(moduleUtilsMissing, req.ModuleFile, inv.argv[0])), nil
	}
	res := parseResult(req, inv.argv[0], stdout.String(), stderr.String(), rc)
	if inv.bootstrapped {
		crashResult(res)
	}
	return res, nil
}

// crashResult turns the result the bootstrap prints for a module that
// raised into the failure ansible-core 2.19 reports (AnsibleModuleCapturedError):
// no msg, so the task reads "Module failed: " and the exception's message
// joined with its causes' ("outer: inner"); an exception raised while
// handling another gets the message in a section of its own. Anything
// else under the key, which a module may print too, is left as it is.
func crashResult(res *value.Dict) {
	exc, _ := res.Default("exception", nil).(*value.Dict)
	if exc == nil || res.Len() != 2 || !value.Truthy(res.Default("failed", false)) {
		return
	}
	list, ok := exc.Default(crashKey, nil).([]any)
	if !ok || len(list) == 0 {
		return
	}
	msgs := make([]string, 0, len(list))
	for _, m := range list {
		s, ok := m.(string)
		if !ok {
			return
		}
		msgs = append(msgs, s)
	}
	var err error = errors.New(diag.JoinMessages(msgs))
	if value.Truthy(exc.Default("handling", false)) {
		err = &diag.Diagnostic{Summary: msgs[0], Detached: true, Events: []string{}}
	}
	res.Delete("exception")
	res.Set("changed", false)
	res.Set("exception", err)
}

// runOnce starts a prepared module and waits for it.
func runOnce(req *module.Request, inv *invocation, stdout, stderr *bytes.Buffer) error {
	c := exec.CommandContext(req.Ctx, inv.argv[0], inv.argv[1:]...)
	c.Dir = req.BaseDir()
	c.Env = inv.env
	c.Stdin = bytes.NewReader(inv.stdin)
	c.Stdout, c.Stderr = stdout, stderr
	return c.Run()
}

// parseResult is ansible-core's _parse_returned_data: the JSON object in
// the module's output (lines around it are dropped; junk after it is a
// warning) is the result; output without one fails the task.
func parseResult(req *module.Request, interp, stdout, stderr string, rc int) *value.Dict {
	text, junk, err := jsonLines(stdout)
	if err != nil {
		return unparsedWith(interp, stdout, stderr, rc, err.Error())
	}
	v, err := py.JSONLoads(text)
	if err != nil {
		return unparsedWith(interp, stdout, stderr, rc, err.Error())
	}
	res, ok := v.(*value.Dict)
	if !ok {
		return unparsedWith(interp, stdout, stderr, rc, "module output is not a JSON object")
	}
	if junk != "" {
		req.Host.Warn("Module invocation had junk after the JSON data: "+junk, value.Pos{})
	}
	for _, k := range res.Keys() {
		if strings.HasPrefix(k, "_ansible_") {
			res.Delete(k)
		}
	}
	addOutputLines(res)
	if r, has := res.Get("results"); has {
		if _, list := r.([]any); !list {
			res.Delete("results")
			res.Set("ansible_module_results", r)
			req.Host.Warn("Found internal 'results' key in module return, renamed to 'ansible_module_results'.", value.Pos{})
		}
	}
	return res
}

// addOutputLines adds stdout_lines and stderr_lines beside a module's
// string stdout and stderr, as ansible-core's action base does for every
// module result that lacks them.
func addOutputLines(res *value.Dict) {
	for _, k := range []string{"stdout", "stderr"} {
		v, has := res.Get(k)
		if _, done := res.Get(k + "_lines"); !has || done {
			continue
		}
		text, _ := v.(string)
		lines := []any{}
		for _, l := range py.Splitlines(text, false) {
			lines = append(lines, l)
		}
		res.Set(k+"_lines", lines)
	}
}

// errNoJSONStart is _filter_non_json_lines' error for output with no line
// that starts an object.
var errNoJSONStart = errors.New("No start of json char found")

// errNoJSONEnd is its error for an object that never closes.
var errNoJSONEnd = errors.New("No end of json char found")

// jsonLines keeps the lines of out from the first that starts with "{"
// to the last that ends with "}"; junk is the non-blank text after them.
func jsonLines(out string) (text, junk string, err error) {
	lines := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "{") {
			start = i
			break
		}
	}
	if start < 0 {
		return "", "", errNoJSONStart
	}
	lines = lines[start:]
	end := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasSuffix(strings.TrimSpace(lines[i]), "}") {
			end = i
			break
		}
	}
	if end < 0 {
		return "", "", errNoJSONEnd
	}
	trailing := lines[end+1:]
	if strings.TrimSpace(strings.Join(trailing, "")) != "" {
		junk = strings.Join(trailing, "\n")
	}
	return strings.Join(lines[:end+1], "\n"), junk, nil
}

// unparsedWith is the failed result of output that is not a module
// result, worded as ansible-core words it: a missing interpreter is named,
// anything else is "Module result deserialization failed", with the raw
// output under module_stdout and module_stderr.
func unparsedWith(interp, stdout, stderr string, rc int, cause string) *value.Dict {
	msg := "Module result deserialization failed: " + cause
	help := "See stdout/stderr for the returned output."
	for _, s := range []string{"No such file or directory", "not found", "command not found"} {
		if interp != "" && (strings.Contains(stderr, interp+": "+s) || strings.Contains(stdout, interp+": "+s)) {
			msg = "The module interpreter '" + interp + "' was not found."
			help = "Consider overriding the configured interpreter path for this host. " + help
			break
		}
	}
	// The keys in ansible-core's order (changed and exception come last,
	// from the action layer).
	res := value.DictOf("failed", true, "msg", msg, "module_stdout", stdout, "module_stderr", stderr, "rc", rc, "changed", false)
	res.Update(module.ActionFailed(msg))
	// Like a captured module error, the failure gets a section of its
	// own below "Action failed." (an empty, non-nil Events list).
	res.Set("exception", &diag.Diagnostic{Summary: msg, Help: help, Detached: true, Events: []string{}})
	return res
}
