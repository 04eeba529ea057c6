package playbook

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// roleMainExtensions are the names tried, in order, for a role's main
// file: main.yml wins over main.yaml, main.json and a bare main.
var roleMainExtensions = []string{".yml", ".yaml", ".json", ""}

// roleFromExtensions are tried for a file named by tasks_from, vars_from,
// defaults_from or handlers_from: the name exactly as given comes first.
var roleFromExtensions = []string{"", ".yml", ".yaml", ".json"}

// findRoleFiles lists the files of a role subdirectory that make up one
// entry point, as ansible-core's role loader finds them: the first of the
// candidate names that exists, where a directory (allowed for vars and
// defaults only) stands for every file in it, sorted, recursively.
func findRoleFiles(dir, from string, allowDir bool) []string {
	name, exts := "main", roleMainExtensions
	if from != "" {
		name, exts = from, roleFromExtensions
	}
	base := filepath.Join(dir, name)
	for _, ext := range exts {
		st, err := os.Stat(base + ext)
		if err != nil {
			continue
		}
		if !st.IsDir() {
			return []string{base + ext}
		}
		if allowDir {
			return dirVarsFiles(base+ext, exts)
		}
	}
	return nil
}

// dirVarsFiles lists the variable files of a directory: sorted by name,
// hidden files and backups (name~) left out, subdirectories without an
// extension searched in turn, files kept when they have no extension or
// one of exts.
func dirVarsFiles(dir string, exts []string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, ".") || strings.HasSuffix(n, "~") {
			continue
		}
		p := filepath.Join(dir, n)
		ext := filepath.Ext(n)
		st, err := os.Stat(p)
		switch {
		case err != nil:
		case st.IsDir() && ext == "":
			out = append(out, dirVarsFiles(p, exts)...)
		case !st.IsDir() && (ext == "" || slices.Contains(exts, ext)):
			out = append(out, p)
		}
	}
	return out
}

// roleSubdirMissing reports the error ansible-core gives when a
// *_from file does not exist in a role subdirectory that does.
func roleSubdirMissing(rolePath, subdir, from string) error {
	if from == "" || !dirExists(filepath.Join(rolePath, subdir)) {
		return nil
	}
	return &diag.Diagnostic{Summary: fmt.Sprintf("Could not find specified file in role: %s/%s", subdir, from), Code: diag.ExitParse}
}

// loadRoleVars loads a role's defaults or vars (subdir) for an entry
// point: every file found, each combined over the ones before it.
func (l *Loader) loadRoleVars(r *Role, subdir, from string) (*value.Dict, error) {
	files := findRoleFiles(filepath.Join(r.Path, subdir), from, true)
	if len(files) == 0 {
		return value.NewDict(0), roleSubdirMissing(r.Path, subdir, from)
	}
	var data any
	for _, f := range files {
		v, err := l.loadYAMLValue(f)
		if err != nil {
			return nil, err
		}
		if !value.Truthy(v) {
			continue
		}
		prev, prevIsDict := data.(*value.Dict)
		next, nextIsDict := v.(*value.Dict)
		if prevIsDict && nextIsDict {
			data = CombineVars(prev, next, l.MergeHashes)
		} else {
			data = v
		}
	}
	if data == nil {
		return value.NewDict(0), nil
	}
	d, ok := data.(*value.Dict)
	if !ok {
		return nil, &diag.Diagnostic{Code: diag.ExitParse, Summary: fmt.Sprintf("The %s/main.yml file for role '%s' must contain a dictionary of variables", subdir, r.Name)}
	}
	return d, nil
}

// loadYAMLValue loads a YAML (or JSON) file as a value, recording where
// its mapping values were written; an empty file is nil.
func (l *Loader) loadYAMLValue(path string) (any, error) {
	root, err := l.readYAML(path)
	if err != nil || root == nil {
		return nil, err
	}
	v, err := value.FromYAML(path, root)
	if err != nil {
		return nil, err
	}
	RecordOrigins(path, root, v)
	return v, nil
}

// roleTaskFile finds the file of a role's tasks or handlers entry point
// ("" when the role has none).
func roleTaskFile(r *Role, subdir, from string) (string, error) {
	files := findRoleFiles(filepath.Join(r.Path, subdir), from, false)
	if len(files) == 0 {
		return "", roleSubdirMissing(r.Path, subdir, from)
	}
	return files[0], nil
}
