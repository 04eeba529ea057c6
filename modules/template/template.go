// Package template implements ansible.builtin.template natively: the
// action plugin renders a template file from Ansible's search path with
// the task's variables and its environment options, then hands the
// result to the copy action, as ansible-core does (see files.WriteRendered).
package template

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cfzt/cfzt-runner/engine/lookup"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/files"
)

// Entries returns the template action for the registry.
func Entries() []module.Entry {
	return []module.Entry{{FQCN: "ansible.builtin.template", Flags: module.NoAsync, Module: module.Func(Run)}}
}

// stringOptions are the options the action reads as strings, converting
// booleans and numbers (ansible-core's ensure_type(value, 'string')).
var stringOptions = []string{"src", "dest", "state", "newline_sequence",
	"variable_start_string", "variable_end_string", "block_start_string",
	"block_end_string", "comment_start_string", "comment_end_string"}

// templateOnly are the options the action consumes; the copy it hands the
// rendered file to never sees them.
var templateOnly = []string{"newline_sequence", "block_start_string", "block_end_string",
	"variable_start_string", "variable_end_string", "comment_start_string",
	"comment_end_string", "trim_blocks", "lstrip_blocks", "output_encoding"}

// escapedNewlines maps a newline_sequence written with backslashes (as
// "\\n" in YAML) to the sequence it means.
var escapedNewlines = map[string]string{`\n`: "\n", `\r`: "\r", `\r\n`: "\r\n"}

// Run is the template action for req.
func Run(req *module.Request) (*value.Dict, error) {
	args := req.Args.Copy()
	if err := ensureStrings(args); err != nil {
		return nil, err
	}
	opts := renderOptions(args)
	source, dest := args.Default("src", nil), args.Default("dest", nil)
	switch {
	case args.Default("state", nil) != nil:
		return nil, module.ActionFail("'state' cannot be specified on a template", nil)
	case source == nil || dest == nil:
		return nil, module.ActionFail("src and dest are required", nil)
	case !validNewline(opts.NewlineSequence):
		// ansible-core strips an error's message, which here ends in the
		// last sequence it lists.
		return nil, module.ActionFail("newline_sequence needs to be one of: \n, \r or", nil)
	}
	found, searched, ok := req.Host.FindFile("templates", source.(string))
	if !ok {
		msg := search.NotFoundMessage(source.(string), searched)
		return nil, module.ActionFail(msg, errors.New(msg))
	}
	copyArgs := args.Copy()
	if mode := args.Default("mode", nil); mode == "preserve" {
		preserved, err := files.PreservedMode(found)
		if err != nil {
			return nil, err
		}
		copyArgs.Set("mode", preserved)
	}
	content, err := render(req, source.(string), found, dest, opts, outputEncoding(args))
	if err != nil {
		return nil, err
	}
	for _, k := range templateOnly {
		copyArgs.Delete(k)
	}
	copyArgs.Set("follow", flag(args, "follow", false))
	return files.WriteRendered(req, copyArgs, filepath.Base(found), content)
}

// render renders the template file found for src with the template_*
// variables (and ansible_managed, unless the task has a variable of that
// name) and encodes the text in encoding.
func render(req *module.Request, src, found string, dest any, opts module.FileTemplate, encoding string) ([]byte, error) {
	if !opts.Syntax().DistinctStarts() {
		return nil, errors.New(syntax.ErrSameStart)
	}
	_, userManaged := req.Host.Var("ansible_managed")
	vars, err := lookup.FileVars(src, found, dest, time.Now(), !userManaged)
	if err != nil {
		return nil, err
	}
	opts.Vars = vars
	rendered, err := req.Host.RenderFile(found, opts)
	if err != nil {
		return nil, err
	}
	return py.Encode(rendered, encoding)
}

// ensureStrings converts the string options as ensure_type does: a
// boolean or a number becomes its str(), any other type fails.
func ensureStrings(args *value.Dict) error {
	for _, k := range stringOptions {
		v, ok := args.Get(k)
		if !ok || v == nil {
			continue
		}
		switch x := v.(type) {
		case string:
		case bool, int, float64:
			args.Set(k, value.Str(x))
		default:
			return fmt.Errorf("Invalid value provided for 'string': %s", value.Repr(v))
		}
	}
	return nil
}

// renderOptions reads the environment options of the render; the
// delimiters left unset keep Jinja2's.
func renderOptions(args *value.Dict) module.FileTemplate {
	opts := module.FileTemplate{
		TrimBlocks:      flag(args, "trim_blocks", true),
		LStripBlocks:    flag(args, "lstrip_blocks", false),
		NewlineSequence: "\n",
	}
	if v, ok := args.Get("newline_sequence"); ok && v != nil {
		opts.NewlineSequence = v.(string)
	}
	if seq, escaped := escapedNewlines[opts.NewlineSequence]; escaped {
		opts.NewlineSequence = seq
	}
	for key, field := range map[string]*string{
		"block_start_string": &opts.BlockStart, "block_end_string": &opts.BlockEnd,
		"variable_start_string": &opts.VariableStart, "variable_end_string": &opts.VariableEnd,
		"comment_start_string": &opts.CommentStart, "comment_end_string": &opts.CommentEnd,
	} {
		if v, ok := args.Get(key); ok && v != nil {
			*field = v.(string)
		}
	}
	return opts
}

func validNewline(seq string) bool {
	for _, s := range template.NewlineSequences {
		if s == seq {
			return true
		}
	}
	return false
}

// flag reads a boolean option as boolean(strict=False) does.
func flag(args *value.Dict, key string, def bool) bool {
	v, ok := args.Get(key)
	if !ok {
		return def
	}
	b, _ := py.LenientBoolean(v)
	return b
}

// outputEncoding is output_encoding, utf-8 when unset or empty.
func outputEncoding(args *value.Dict) string {
	if v := args.Default("output_encoding", nil); value.Truthy(v) {
		return value.Str(v)
	}
	return "utf-8"
}
