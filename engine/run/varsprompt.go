package run

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
	"golang.org/x/term"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// varPrompt is one entry of a play's vars_prompt, after templating.
type varPrompt struct {
	name, prompt string
	// def is the default; hasDefault tells a null or missing default
	// apart from an empty one.
	def        any
	hasDefault bool
	private    bool
}

// promptVars sets the play variables that vars_prompt asks for, before
// the play starts, as ansible-core does: the entries are templated with
// the play-level variables, a name given as an extra var is not asked
// for, and without a terminal on stdin nothing is read: the run warns
// and takes the default. The values are strings, set as play vars.
// False when the entries cannot be templated (the error is reported).
func (r *Runner) promptVars(ps *playState, sc *scope) bool {
	if ps.play.VarsPrompt == nil {
		return true
	}
	rendered, err := r.renderPlayKeyword(ps.play.VarsPrompt, sc)
	if err != nil {
		r.fatal(err)
		return false
	}
	entries, _ := rendered.([]any)
	vars := ps.vars.Copy()
	for _, e := range entries {
		p, ok := parseVarPrompt(e)
		if !ok || r.Opts.ExtraVars.Has(p.name) {
			continue
		}
		vars.Set(p.name, r.askVar(p))
	}
	ps.vars = vars
	return true
}

// parseVarPrompt reads one vars_prompt mapping; false when it has no name.
func parseVarPrompt(e any) (varPrompt, bool) {
	d, ok := e.(*value.Dict)
	if !ok {
		return varPrompt{}, false
	}
	name, ok := d.Get("name")
	if !ok || name == nil {
		return varPrompt{}, false
	}
	p := varPrompt{name: value.Str(name), prompt: value.Str(name), private: true}
	if v, ok := d.Get("prompt"); ok && v != nil {
		p.prompt = value.Str(v)
	}
	if v, ok := d.Get("default"); ok && v != nil {
		p.def, p.hasDefault = v, true
	}
	if v, ok := d.Get("private"); ok {
		if b, err := py.Boolean(v); err == nil {
			p.private = b
		}
	}
	return p, true
}

// askVar reads the value of one prompted variable from the terminal, or,
// when stdin is not a terminal, warns and uses the default. An empty
// answer takes the default too; with neither, the value is Python's
// text of None.
func (r *Runner) askVar(p varPrompt) string {
	answer := ""
	if isatty.IsTerminal(os.Stdin.Fd()) {
		answer = readPromptAnswer(p)
	} else {
		r.warning("Not prompting as we are not in interactive mode")
	}
	if answer == "" {
		if p.hasDefault {
			return value.Str(p.def)
		}
		return "None"
	}
	return answer
}

// readPromptAnswer shows the prompt (with the default in brackets) and
// reads one line, without echo when the variable is private.
func readPromptAnswer(p varPrompt) string {
	msg := p.prompt + ": "
	if p.hasDefault {
		msg = fmt.Sprintf("%s [%s]: ", p.prompt, value.Str(p.def))
	}
	fmt.Fprint(os.Stdout, msg)
	if p.private {
		b, err := term.ReadPassword(int(os.Stdin.Fd()))
		fmt.Fprintln(os.Stdout)
		if err != nil {
			return ""
		}
		return string(b)
	}
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	return strings.TrimRight(line, "\r\n")
}
