package lookup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/template/syntax"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/engine/vault"
)

// fileLookups returns ansible-core's lookups of files on the controller.
func fileLookups() template.Library {
	return template.Library{Collection: "ansible.builtin",
		Lookups: map[string]template.LookupFunc{
			"file":     lookupFile,
			"fileglob": lookupFileglob,
			"template": lookupTemplate,
		},
		LookupOptions: optionsOf("file", "template"),
	}
}

// readTextFile reads a file as the loader's get_text_file_contents does,
// with Python's wording for a failure.
func readTextFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", template.Errorf("An error occurred while trying to read the file '%s': %s", path, py.OSErrorText(err, path))
	}
	return string(b), nil
}

// readVaultedText reads a text file as readTextFile does, decrypting it
// when it is vault-encrypted, as the loader's get_text_file_contents does.
func readVaultedText(c *template.Ctx, path string) (string, error) {
	s, err := readTextFile(path)
	if err != nil || !vault.IsEncrypted([]byte(s)) {
		return s, err
	}
	plain, err := c.Engine().Vault.Decrypt([]byte(s))
	if err != nil {
		return "", &vaultFileError{Path: path, Err: err}
	}
	return string(plain), nil
}

// vaultFileError is a vault-encrypted file that could not be decrypted:
// Prefix (when set) is the plugin's message, the vault's error has the
// file as its origin.
type vaultFileError struct {
	Prefix, Path string
	Err          error
}

func (e *vaultFileError) Error() string {
	if e.Prefix == "" {
		return e.Err.Error()
	}
	return e.Prefix + ": " + e.Err.Error()
}

func (e *vaultFileError) Unwrap() error { return e.Err }

// Diagnose implements diag.Diagnoser.
func (e *vaultFileError) Diagnose() *diag.Diagnostic {
	inner := &diag.Diagnostic{Summary: e.Err.Error(), Origin: diag.At(value.Pos{File: e.Path}), Wrapped: e.Err}
	if e.Prefix == "" {
		return inner
	}
	return &diag.Diagnostic{Summary: e.Prefix + ".", Cause: inner}
}

func lookupFile(c *template.Ctx, terms []any, a *template.Args) ([]any, error) {
	opts, err := c.LookupOptions("file", a)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		name := value.Str(t)
		fail := func(cause string) error {
			return template.Errorf("Unable to access the file %s: %s", value.Repr(name), cause)
		}
		p := c.FindFile("files", name)
		if p == "" {
			return nil, fail("File not found. Use -vvvvv to see paths searched.")
		}
		s, err := readVaultedText(c, p)
		if err != nil {
			var ve *vaultFileError
			if errors.As(err, &ve) {
				ve.Prefix = fmt.Sprintf("Unable to access the file %s", value.Repr(name))
				return nil, ve
			}
			return nil, fail(err.Error())
		}
		if opts["lstrip"] == true {
			s = strings.TrimLeftFunc(s, py.IsSpace)
		}
		if opts["rstrip"] == true {
			s = strings.TrimRightFunc(s, py.IsSpace)
		}
		out = append(out, s)
	}
	return out, nil
}

// lookupTemplate renders template files found under templates/ on the
// search path as ansible-core's template lookup does: with the lookup's
// delimiter and trim_blocks options, the template_* variables and the
// template_vars option on top of the task's variables.
func lookupTemplate(c *template.Ctx, terms []any, a *template.Args) ([]any, error) {
	opts, err := c.LookupOptions("template", a)
	if err != nil {
		return nil, err
	}
	cfg := lookupSyntax(opts)
	if !cfg.DistinctStarts() {
		return nil, template.Errorf(syntax.ErrSameStart)
	}
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		name := value.Str(t)
		p := c.FindFileWarn("templates", name)
		if p == "" {
			return nil, template.Errorf("the template file %s could not be found for the lookup", name)
		}
		src, err := readVaultedText(c, p)
		if err != nil {
			return nil, err
		}
		_, _, userManaged := c.Vars().Lookup("ansible_managed")
		locals, err := FileVars(name, p, nil, c.Engine().Now(), !userManaged)
		if err != nil {
			return nil, template.Errorf("the template file %s could not be found for the lookup", name)
		}
		if tv, ok := opts["template_vars"].(*value.Dict); ok {
			locals.Update(tv)
		}
		res, err := c.RenderTemplateFile(p, src, locals, &cfg)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// lookupSyntax is the environment of the template lookup's options.
func lookupSyntax(opts map[string]any) syntax.Config {
	cfg := syntax.Default()
	for key, field := range map[string]*string{
		"variable_start_string": &cfg.VariableStart, "variable_end_string": &cfg.VariableEnd,
		"comment_start_string": &cfg.CommentStart, "comment_end_string": &cfg.CommentEnd,
	} {
		if v, ok := opts[key].(string); ok {
			*field = v
		}
	}
	if b, ok := opts["trim_blocks"].(bool); ok {
		cfg.TrimBlocks = b
	}
	return cfg
}

// lookupFileglob lists the files matching each pattern. A pattern with a
// directory looks for that directory (under files/ first) on the search
// path and globs in it; a bare pattern globs in each search directory's
// files/, then in the directory itself. The first directory with a match
// gives the pattern's files.
func lookupFileglob(c *template.Ctx, terms []any, _ *template.Args) ([]any, error) {
	out := []any{}
	for _, t := range terms {
		term := value.Str(t)
		base := py.Basename(term)
		var dirs []string
		if base != term {
			dirs = []string{c.FindFileWarn("files", py.Dirname(term))}
		} else {
			for _, p := range c.SearchPath().SearchPath() {
				dirs = append(dirs, filepath.Join(p, "files"), p)
			}
		}
		for _, d := range dirs {
			if d == "" {
				continue
			}
			var found []any
			for _, m := range py.Glob(py.Join([]string{d, base}), "") {
				if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
					found = append(found, m)
				}
			}
			if len(found) > 0 {
				out = append(out, found...)
				break
			}
		}
	}
	return out, nil
}
