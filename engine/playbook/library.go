package playbook

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/catalog"
)

// overrider is what the loader needs of a registry to let a module file
// shadow a built-in module; *module.Registry implements it.
type overrider interface {
	Overridable(name string) bool
}

// ignoredModuleSuffixes are the endings ansible-core's MODULE_IGNORE_EXTS
// rejects for a module file, plus the PowerShell modules a POSIX host
// cannot run.
var ignoredModuleSuffixes = []string{".pyc", ".pyo", ".swp", ".bak", "~", ".rpm", ".md", ".txt", ".rst", ".yaml", ".yml", ".ini", ".ps1", ".psm1"}

// ignoredModuleFile reports a file the module loader skips.
func ignoredModuleFile(name string) bool {
	if name == "__init__.py" {
		return true
	}
	for _, s := range ignoredModuleSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// addPluginDir adds dir's library/ subdirectory to the module search path,
// as ansible-core's add_all_plugin_dirs does when it loads a playbook or a
// role: directories are searched in the order they were added, before the
// configured ANSIBLE_LIBRARY paths.
func (l *Loader) addPluginDir(dir string) {
	l.libraryDirs = appendDir(l.libraryDirs, filepath.Join(dir, "library"))
	l.moduleUtilsDirs = appendDir(l.moduleUtilsDirs, filepath.Join(dir, "module_utils"))
	l.addPythonPluginDirs(dir)
}

// appendDir adds an existing directory, by its real path, to a list of
// directories unless it is there already.
func appendDir(dirs []string, dir string) []string {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return dirs
	}
	dir = realPath(dir)
	for _, d := range dirs {
		if d == dir {
			return dirs
		}
	}
	return append(dirs, dir)
}

// ModuleUtilsDirs are the module_utils/ directories of the playbooks and
// roles loaded so far: a module file's imports of ansible.module_utils
// find their modules there too, as with ansible-core's module_utils
// loader.
func (l *Loader) ModuleUtilsDirs() []string { return l.moduleUtilsDirs }

// moduleSearchPath is ansible-core's module path for a short name: the
// library/ directories of the playbooks and roles loaded so far, then
// each configured path with its subdirectories one and two levels deep.
func (l *Loader) moduleSearchPath() []string {
	if l.configuredModuleDirs == nil {
		l.configuredModuleDirs = expandModulePath(l.ModulePath)
	}
	return append(append([]string(nil), l.libraryDirs...), l.configuredModuleDirs...)
}

// expandModulePath lists each configured module directory after its
// subdirectories one and two levels deep, as ansible-core's plugin loader
// searches a configured path.
func expandModulePath(paths []string) []string {
	out := []string{}
	for _, p := range paths {
		var subdirs []string
		for _, pat := range []string{"*", "*/*"} {
			m, _ := filepath.Glob(filepath.Join(p, pat))
			sort.Strings(m)
			for _, c := range m {
				if st, err := os.Stat(c); err == nil && st.IsDir() {
					subdirs = append(subdirs, c)
				}
			}
		}
		out = append(out, subdirs...)
		out = append(out, p)
	}
	return out
}

// findModuleFile resolves an action name to a module file on the module
// search path. Only short names and ansible.legacy.<name> are looked up
// there; a name the registry must keep (an action plugin) is not.
func (l *Loader) findModuleFile(name string) (module.Info, bool) {
	short := strings.TrimPrefix(name, "ansible.legacy.")
	if strings.Contains(short, ".") || short == "" {
		return module.Info{}, false
	}
	if o, ok := l.Modules.(overrider); ok && !o.Overridable(name) {
		return module.Info{}, false
	}
	for _, dir := range l.moduleSearchPath() {
		if p, ok := l.moduleFileIn(dir, short); ok {
			return module.Info{Name: short, FQCN: "ansible.legacy." + short, Kind: module.KindModule, Path: p}, true
		}
	}
	return module.Info{}, false
}

// collectionSearchList is the `collections` search list a task's
// unqualified names are resolved with: the task's own, else its nearest
// block's, else its role's, else its play's.
func (l *Loader) collectionSearchList(t *Task) []string {
	if t.Collections != nil {
		return t.Collections
	}
	if n := len(l.collStack); n > 0 {
		return l.collStack[n-1]
	}
	if t.Role != nil {
		return t.Role.Role.Collections
	}
	if l.play != nil {
		return l.play.Collections
	}
	return nil
}

// findCollectionModule resolves a name the registry does not know to a
// module file in an installed collection's plugins/modules directory (the
// playbook's collections/ directory first, then the collections path): a
// fully qualified name in its collection, a short name in each collection
// of the search list. The file's path tells the runner the collection's
// root, so that its module_utils import as
// ansible_collections.<ns>.<name>.plugins.module_utils.
func (l *Loader) findCollectionModule(name string, searchList []string) (module.Info, bool) {
	candidates := searchList
	short := name
	if fqcrPattern.MatchString(name) {
		i := strings.LastIndex(name, ".")
		candidates, short = []string{name[:i]}, name[i+1:]
	} else if strings.Contains(name, ".") {
		return module.Info{}, false
	}
	for _, coll := range candidates {
		ns, cn, ok := strings.Cut(coll, ".")
		if !ok || ns == "ansible" {
			continue
		}
		for _, root := range l.collectionRoots() {
			dir := filepath.Join(root, "ansible_collections", ns, cn, "plugins", "modules")
			if p, ok := l.moduleFileIn(dir, short); ok {
				return module.WithCatalogTraits(module.Info{Name: short, FQCN: coll + "." + short, Kind: module.KindModule, Path: p}), true
			}
		}
	}
	return module.Info{}, false
}

// moduleFileIn finds the module file for name in one directory: a file
// whose name, or name without its extension, is name, skipping the files
// the module loader ignores. Files are taken in name order.
func (l *Loader) moduleFileIn(dir, name string) (string, bool) {
	names, listed := l.dirListings[dir]
	if !listed {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if l.dirListings == nil {
			l.dirListings = map[string][]string{}
		}
		l.dirListings[dir] = names
	}
	for _, n := range names {
		if ignoredModuleFile(n) || (n != name && strings.TrimSuffix(n, filepath.Ext(n)) != name) {
			continue
		}
		p := filepath.Join(dir, n)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// findInSearchList resolves a short name through the collections a task's
// search list names before ansible.builtin and ansible.legacy, as
// ansible-core's plugin loader tries each in order: a module cfzt-runner
// has under that collection, a module file of an installed collection, or
// one the catalog knows (loaded as unimplemented). It reports false when
// the name is not short or no listed collection has it, for the usual
// resolution (library directories, built-ins, routing) to go on.
func (l *Loader) findInSearchList(name string, searchList []string) (module.Info, bool) {
	if name == "" || strings.Contains(name, ".") || strings.Contains(name, "{{") {
		return module.Info{}, false
	}
	for _, coll := range searchList {
		if coll == "ansible.builtin" || coll == "ansible.legacy" {
			break
		}
		if !fqcrPattern.MatchString(coll + "." + name) {
			continue
		}
		if info, ok := l.Modules.Lookup(coll + "." + name); ok {
			return info, true
		}
		if info, ok := l.findCollectionModule(coll+"."+name, nil); ok {
			return info, true
		}
		if fqcn, known := catalog.Resolve(coll+"."+name, nil); known {
			info := module.UnimplementedInfo(fqcn)
			info.Name = name
			return info, true
		}
	}
	return module.Info{}, false
}
