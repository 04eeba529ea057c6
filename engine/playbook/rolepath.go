package playbook

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// roleLocation is where a role reference was found.
type roleLocation struct {
	// name is the role's name: as written, the last element of a path
	// found only relative to the working directory, or the role part of
	// a collection reference.
	name       string
	collection string
	path       string
}

// fqcrPattern matches a fully qualified role reference, namespace.collection.role.
var fqcrPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$`)

// locateRole finds a role as ansible-core's role definition does: first
// in collections (a fully qualified name, or a short name looked up in
// the search list of collections), then in the playbook's roles/
// directory, the roles path, the directory of the role that depends on
// it (basedir), and the playbook directory, and last as a path relative
// to the working directory.
func (l *Loader) locateRole(name string, collections []string, basedir string) (roleLocation, error) {
	if loc, ok := l.collectionRole(name, collections); ok {
		return loc, nil
	}
	search := l.roleSearchPath(basedir)
	for _, dir := range search {
		p := filepath.Join(dir, name)
		if filepath.IsAbs(name) {
			p = filepath.Clean(name)
		}
		if pathExists(p) {
			return roleLocation{name: name, path: realPath(p)}, nil
		}
	}
	if abs, err := filepath.Abs(name); err == nil && pathExists(abs) {
		return roleLocation{name: filepath.Base(name), path: realPath(abs)}, nil
	}
	where := append(append([]string{}, collections...), search...)
	return roleLocation{}, fmt.Errorf("the role '%s' was not found in %s", name, strings.Join(where, ":"))
}

// roleSearchPath lists the directories a role name is looked for in.
func (l *Loader) roleSearchPath(basedir string) []string {
	out := []string{filepath.Join(l.playbookDir, "roles")}
	out = append(out, l.RolesPath...)
	if basedir != "" {
		out = append(out, basedir)
	}
	return append(out, l.playbookDir)
}

// collectionRole finds a role in an installed collection: the collection
// a qualified name names, or else each collection of the search list.
func (l *Loader) collectionRole(name string, collections []string) (roleLocation, bool) {
	role := name
	if fqcrPattern.MatchString(name) {
		i := strings.LastIndex(name, ".")
		collections, role = []string{name[:i]}, name[i+1:]
	}
	for _, coll := range collections {
		ns, cn, ok := strings.Cut(coll, ".")
		if !ok || coll == "ansible.legacy" || coll == "ansible.builtin" {
			continue
		}
		for _, root := range l.collectionRoots() {
			p := filepath.Join(root, "ansible_collections", ns, cn, "roles", role)
			if dirExists(p) {
				return roleLocation{name: role, collection: coll, path: realPath(p)}, true
			}
		}
	}
	return roleLocation{}, false
}

// collectionRoots are the directories holding ansible_collections trees:
// the one beside the playbook first, then the configured paths.
func (l *Loader) collectionRoots() []string {
	return append([]string{filepath.Join(l.playbookDir, "collections")}, l.CollectionsPaths...)
}

// realPath resolves symbolic links, as ansible-core's unfrackpath does, so
// that the paths shown are real ones.
func realPath(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
