package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// includeVars implements include_vars (file, name, dir, depth,
// files_matching, ignore_files, extensions, ignore_unknown_extensions).
// The variables keep their templates, rendered on use.
func (tr *taskRun) includeVars(args *value.Dict) (*value.Dict, error) {
	t := tr.t
	fileArgs := map[string]bool{"file": true, "_raw_params": true}
	dirArgs := map[string]bool{"dir": true, "depth": true, "files_matching": true, "ignore_files": true, "extensions": true, "ignore_unknown_extensions": true}
	dirs, files := 0, 0
	for _, k := range args.Keys() {
		switch {
		case dirArgs[k]:
			dirs++
		case fileArgs[k]:
			files++
		case k == "name" || k == "hash_behaviour":
		default:
			return nil, diag.Chain("Task failed.", t.Pos, fmt.Errorf("%s is not a valid option in include_vars", k))
		}
	}
	if dirs > 0 && files > 0 {
		return nil, diag.Chain("Task failed.", t.Pos, errors.New("You are mixing file only and dir only arguments, these are incompatible"))
	}
	exts := []string{"yaml", "yml", "json"}
	if e, ok := args.Get("extensions"); ok {
		if l, ok := e.([]any); ok {
			exts = nil
			for _, x := range l {
				exts = append(exts, value.Str(x))
			}
		}
	}
	validExt := func(name string) bool {
		for _, e := range exts {
			if strings.HasSuffix(name, "."+e) {
				return true
			}
		}
		return false
	}
	results := value.NewDict(0)
	included := []any{}
	failed, msg := false, ""
	load := func(path string, checkExt bool) bool {
		if checkExt && !validExt(path) {
			failed, msg = true, fmt.Sprintf("%s does not have a valid extension: %s", path, strings.Join(exts, ", "))
			return false
		}
		d, err := tr.r.Loader.LoadVarsFile(path)
		if err != nil {
			if le := diag.Fatal(err); le != nil && strings.HasPrefix(le.Summary, "Vars in ") {
				failed, msg = true, path+" must be stored as a dictionary/hash"
				return false
			}
			failed, msg = true, err.Error()
			return false
		}
		included = append(included, path)
		results.Update(d)
		return true
	}
	if dirV, ok := args.Get("dir"); ok {
		dir := value.Str(dirV)
		if !filepath.IsAbs(dir) {
			if t.Role != nil {
				if strings.Split(dir, "/")[0] == "vars" {
					if p := filepath.Join(t.Role.Role.Path, dir); dirExists(p) {
						dir = p
					}
				} else {
					dir = filepath.Join(t.Role.Role.Path, "vars", dir)
				}
			} else {
				dir = filepath.Join(t.Dir, dir)
			}
		}
		depth, _ := value.AsInt(args.Default("depth", 0))
		var matcher *regexp.Regexp
		if m, ok := args.Get("files_matching"); ok && m != nil {
			matcher, _ = regexp.Compile(value.Str(m))
		}
		ignore := map[string]bool{}
		switch ig := args.Default("ignore_files", nil).(type) {
		case string:
			for _, f := range strings.Fields(ig) {
				ignore[f] = true
			}
		case []any:
			for _, f := range ig {
				ignore[value.Str(f)] = true
			}
		}
		ignoreUnknown := tr.boolOf(args.Default("ignore_unknown_extensions", false))
		switch {
		case !pathExists(dir):
			failed, msg = true, dir+" directory does not exist"
		case !dirExists(dir):
			failed, msg = true, dir+" is not a directory"
		default:
			for _, sub := range walkDirs(dir) {
				rel, _ := filepath.Rel(dir, sub.dir)
				level := 1
				if rel != "." {
					level += len(strings.Split(rel, string(filepath.Separator)))
				}
				if depth != 0 && level > depth {
					continue
				}
				for _, name := range sub.files {
					if t.Role != nil && filepath.Join(t.Role.Role.Path, name) == filepath.Join(sub.dir, "vars", "main.yml") {
						continue
					}
					if matcher != nil && !matcher.MatchString(name) {
						continue
					}
					if ignore[name] || (ignoreUnknown && !validExt(name)) {
						continue
					}
					if !load(filepath.Join(sub.dir, name), true) {
						break
					}
				}
				if failed {
					break
				}
			}
		}
	} else {
		raw := value.Str(args.Default("_raw_params", args.Default("file", "")))
		if path, err := tr.searchPath().Resolve("vars", raw); err != nil {
			failed, msg = true, err.Error()
		} else {
			load(path, false)
		}
	}
	if name, ok := args.Get("name"); ok && name != nil {
		results = value.DictOf(value.Str(name), results)
	}
	res := value.NewDict(6)
	if failed {
		res.Set("failed", true)
		res.Set("message", msg)
	}
	res.Set("ansible_included_var_files", included)
	res.Set("ansible_facts", results)
	res.Set("changed", false)
	return res, nil
}

// dirFiles is one directory of a sorted walk and its sorted files.
type dirFiles struct {
	dir   string
	files []string
}

// walkDirs lists dir and its subdirectories, sorted by path, each with
// its sorted file names.
func walkDirs(dir string) []dirFiles {
	var out []dirFiles
	var walk func(d string)
	walk = func(d string) {
		entries, err := os.ReadDir(d)
		if err != nil {
			return
		}
		df := dirFiles{dir: d}
		for _, e := range entries {
			if e.IsDir() {
				walk(filepath.Join(d, e.Name()))
			} else {
				df.files = append(df.files, e.Name())
			}
		}
		sort.Strings(df.files)
		out = append(out, df)
	}
	walk(dir)
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return out
}

func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
