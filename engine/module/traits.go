package module

import (
	"slices"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module/catalog"
)

// UnimplementedInfo is the Info of a module ansible-core resolves to fqcn
// and cfzt-runner does not implement, with the catalog's traits of it.
func UnimplementedInfo(fqcn string) Info {
	return WithCatalogTraits(Info{Name: fqcn[strings.LastIndexByte(fqcn, '.')+1:], FQCN: fqcn, Kind: KindModule, Flags: Unimplemented})
}

// WithCatalogTraits adds to the Info of a module without a registry entry
// (one cfzt-runner lacks, or a collection's module file) the traits the
// catalog knows for its name.
func WithCatalogTraits(i Info) Info {
	t, ok := catalog.TraitsOf(i.FQCN)
	if !ok {
		return i
	}
	if t.NoAsync {
		i.Flags |= NoAsync
	}
	i.Groups = t.Groups
	return i
}

// InGroup reports whether the module_defaults action group named group
// (`group/NAME` without the prefix; a short name is ansible.builtin's)
// holds the module, directly or through a group of ansible-core that
// extends one of the module's.
func (i Info) InGroup(group string) bool {
	if strings.Count(group, ".") < 2 {
		group = "ansible.builtin." + group
	}
	if slices.Contains(i.Groups, group) {
		return true
	}
	for _, g := range catalog.GroupExtends(group) {
		if slices.Contains(i.Groups, g) {
			return true
		}
	}
	return false
}
