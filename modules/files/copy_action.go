package files

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// copyActionEntry is ansible.builtin.copy: the copy action plugin
// (plugins/action/copy.py), which finds the source on the controller,
// compares it with the destination and runs the copy or file module.
func copyActionEntry() module.Entry {
	return module.Entry{FQCN: "ansible.builtin.copy", Flags: module.NoAsync, Module: module.Func(RunCopy)}
}

// RunCopy runs the copy action for req with req.Args as the task's
// arguments. The template action reuses it: it renders its source to a
// file and calls RunCopy with src set to that file (see WriteRendered).
func RunCopy(req *module.Request) (*value.Dict, error) {
	a := &copyAction{req: req, args: req.Args}
	defer a.cleanup()
	return a.run()
}

// copyAction is one run of the copy action plugin.
type copyAction struct {
	req  *module.Request
	args *value.Dict
	// remoteTmp and localTmp are made on first use and removed at the end.
	remoteTmp, localTmp string
}

func (a *copyAction) cleanup() {
	for _, d := range []string{a.remoteTmp, a.localTmp} {
		if d != "" {
			os.RemoveAll(d)
		}
	}
}

// arg is a raw task argument (None when absent).
func (a *copyAction) arg(k string) any { return a.args.Default(k, nil) }

// flag is a task argument read with boolean(strict=False).
func (a *copyAction) flag(k string, def bool) bool { return argFlag(a.args, k, def) }

// argFlag is an action plugin's boolean(args.get(k, def), strict=False).
func argFlag(args *value.Dict, k string, def bool) bool {
	v, ok := args.Get(k)
	if !ok || v == nil {
		return def
	}
	b, _ := argspec.LenientBoolean(v)
	return b
}

func (a *copyAction) run() (*value.Dict, error) {
	for _, internal := range []string{"_original_basename", "_diff_peek"} {
		if a.arg(internal) != nil {
			return nil, module.ActionFail(`Invalid parameter specified: "`+internal+`"`, nil)
		}
	}
	source, content, dest := a.arg("src"), a.arg("content"), a.arg("dest")
	srcStr, _ := source.(string)
	destStr, _ := dest.(string)
	switch {
	case !value.Truthy(source) && content == nil:
		return module.ActionFailed("src (or content) is required"), nil
	case !value.Truthy(dest):
		return module.ActionFailed("dest is required"), nil
	case value.Truthy(source) && content != nil:
		return module.ActionFailed("src and content are mutually exclusive"), nil
	case content != nil && strings.HasSuffix(destStr, "/"):
		return module.ActionFailed("can not use content with a dir as dest"), nil
	}
	if content == nil && a.flag("remote_src", false) {
		return copyModuleDef().invoke(a.req, a.args, "ansible.legacy.copy")
	}
	var contentFile string
	if content != nil {
		f, err := a.contentTempfile(content)
		if err != nil {
			return nil, module.ActionFail("could not write content temp file", nil)
		}
		contentFile, srcStr = f, f
	} else {
		found, err := a.findSource(srcStr)
		if err != nil {
			return nil, err
		}
		srcStr = found
	}
	return a.copySource(srcStr, contentFile, destStr)
}

// findSource finds src on the search path ("files" of the role, beside
// the task and the play), keeping a trailing slash as written.
func (a *copyAction) findSource(src string) (string, error) {
	found, searched, ok := a.req.Host.FindFile("files", src)
	if !ok {
		return "", module.ActionFail("Unexpected AnsibleActionFail error: "+search.NotFoundMessage(src, searched), nil)
	}
	if trailing := strings.HasSuffix(src, "/"); trailing != strings.HasSuffix(found, "/") {
		if strings.HasSuffix(found, "/") {
			found = found[:len(found)-1]
		} else {
			found += "/"
		}
	}
	return found, nil
}

// contentTempfile writes content to a file in the local temp directory,
// as _create_content_tempfile does: a list or dict as JSON, anything
// else as its str().
func (a *copyAction) contentTempfile(content any) (string, error) {
	var data string
	switch content.(type) {
	case *value.Dict, []any:
		data = value.JSON(content, value.JSONOptions{EnsureASCII: true})
	default:
		data = value.Str(content)
	}
	if a.localTmp == "" {
		dir, err := localTmpDir()
		if err != nil {
			return "", err
		}
		a.localTmp = dir
	}
	f, err := mkstemp(a.localTmp, ".", "")
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		return "", err
	}
	return f.Name(), f.Close()
}

// copySource copies a found source file or directory tree to dest.
func (a *copyAction) copySource(source, contentFile, dest string) (*value.Dict, error) {
	files := sourceFiles{files: []pathPair{{source, filepath.Base(source)}}}
	if isDir(source) {
		files = walkSourceDirs(source, a.flag("local_follow", true))
		if !strings.HasSuffix(dest, "/") {
			dest += "/"
		}
	}
	dest = expandUserHome(dest)
	var last *value.Dict
	changed, executed := false, false
	for _, f := range files.files {
		follow := a.flag("follow", false)
		if len(files.directories) > 0 {
			follow = false
		}
		res, err := a.copyFile(f.from, f.to, contentFile, dest, follow)
		if err != nil {
			return nil, err
		}
		if res == nil {
			continue
		}
		if value.Truthy(res.Default("failed", false)) {
			return res, nil
		}
		last, executed = res, true
		changed = changed || value.Truthy(res.Default("changed", false))
	}
	res, ran, ch, err := a.copyTreeEntries(files, dest)
	if err != nil || (res != nil && value.Truthy(res.Default("failed", false))) {
		return res, err
	}
	if ran {
		last, executed = res, true
		changed = changed || ch
	}
	if executed && len(files.files) == 1 {
		if last.Has("path") && !last.Has("dest") {
			last.Set("dest", last.Default("path", nil))
		}
		return last, nil
	}
	return value.DictOf("changed", changed, "dest", dest, "src", source), nil
}

// copyTreeEntries creates the directories of a copied tree and its
// symlinks with the file module. It returns the last module result.
func (a *copyAction) copyTreeEntries(files sourceFiles, dest string) (last *value.Dict, ran, changed bool, err error) {
	for _, d := range files.directories {
		args := realFileArgs(a.args)
		args.Set("path", py.Join([]string{dest, d.to}))
		args.Set("state", "directory")
		args.Set("mode", a.arg("directory_mode"))
		args.Set("recurse", false)
		args.Delete("src")
		if last, err = fileDef().invoke(a.req, args, "ansible.legacy.file"); err != nil || value.Truthy(last.Default("failed", false)) {
			return last, ran, changed, err
		}
		ran = true
		changed = changed || value.Truthy(last.Default("changed", false))
	}
	for _, l := range files.symlinks {
		args := realFileArgs(a.args)
		args.Set("path", py.Join([]string{dest, l.to}))
		args.Set("src", l.from)
		args.Set("state", "link")
		args.Set("force", true)
		if len(files.directories) > 0 {
			args.Set("follow", false)
		}
		if args.Default("mode", nil) == "preserve" {
			args.Delete("mode")
		}
		if last, err = fileDef().invoke(a.req, args, "ansible.legacy.file"); err != nil || value.Truthy(last.Default("failed", false)) {
			return last, true, changed, err
		}
		ran = true
		changed = changed || value.Truthy(last.Default("changed", false))
	}
	return last, ran, changed, nil
}

// realFileArgs keeps the task arguments the file module takes
// (_create_remote_file_args).
func realFileArgs(args *value.Dict) *value.Dict {
	keep := map[string]bool{"state": true, "path": true, "_original_basename": true, "recurse": true,
		"force": true, "_diff_peek": true, "src": true}
	for _, o := range argspec.FileCommonOptions() {
		keep[o.Name] = true
	}
	out := value.NewDict(args.Len())
	args.Each(func(k string, v any) bool {
		if keep[k] {
			out.Set(k, v)
		}
		return true
	})
	return out
}
