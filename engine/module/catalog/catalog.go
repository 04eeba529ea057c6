// Package catalog knows every module name the reference Ansible resolves
// (ansible-core 2.19's own modules, the ansible 12 collections and
// ansible-core's routing of short names to them), without implementing
// any of them. The loader consults it only for a name that neither the
// registry nor the module search path knows, so that a playbook naming,
// say, `apt` under `when: false` loads and runs as it does under
// ansible-playbook, and only a task that really runs such a module fails.
//
// modules.txt is generated from the oracle by hack/gen-module-catalog.py.
package catalog

import (
	_ "embed"
	"strings"
	"sync"
)

//go:embed modules.txt
var data string

type index struct {
	// modules holds "ns.coll.name" for every known module.
	modules map[string]struct{}
	// routed maps a short name to the FQCN ansible-core routes it to.
	routed map[string]string
}

var (
	once sync.Once
	idx  index
)

// load parses modules.txt once, on the first lookup that needs it.
func load() {
	idx = index{modules: map[string]struct{}{}, routed: map[string]string{}}
	for _, line := range strings.Split(data, "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) == 3 && fields[0] == "=":
			idx.routed[fields[1]] = fields[2]
		case len(fields) > 1:
			for _, name := range fields[1:] {
				idx.modules[fields[0]+"."+name] = struct{}{}
			}
		}
	}
}

// Resolve returns the fully qualified name ansible-core resolves a task's
// module name to: a fully qualified name as written, a short (or
// ansible.legacy.) name in ansible.builtin, in a collection of the
// task's collections search list, or through ansible-core's routing.
func Resolve(name string, collections []string) (string, bool) {
	once.Do(load)
	if short, ok := strings.CutPrefix(name, "ansible.legacy."); ok {
		name, collections = short, nil
	}
	if strings.Count(name, ".") >= 2 {
		_, ok := idx.modules[name]
		return name, ok
	}
	if strings.Contains(name, ".") {
		return "", false
	}
	for _, coll := range append([]string{"ansible.builtin"}, collections...) {
		if _, ok := idx.modules[coll+"."+name]; ok {
			return coll + "." + name, true
		}
	}
	fqcn, ok := idx.routed[name]
	return fqcn, ok
}
