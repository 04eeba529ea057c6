package catalog

// Traits are what the executor must know about a module before it runs
// it, for a module that has no registry entry to declare them: one
// cfzt-runner does not implement (a task of it fails when it runs, but
// an `async:` refusal or module_defaults come first, as in ansible-core)
// or a collection's module file found on disk. A module cfzt-runner
// implements declares its traits in its own module.Entry instead; a name
// is never in both (cmd/cfzt-runner's TestModuleTraitsMatchAnsible).
type Traits struct {
	// NoAsync: the action plugin does not support async.
	NoAsync bool
	// Groups are the module_defaults action groups that hold the module,
	// as its collection's meta/runtime.yml declares them.
	Groups []string
}

var (
	k8sGroup  = []string{"kubernetes.core.k8s"}
	helmGroup = []string{"kubernetes.core.helm"}
)

// traits are the traits of the modules cfzt-runner lacks that have any:
// the action plugins of ansible-core and kubernetes.core that refuse
// async (ActionBase._supports_async false) and kubernetes.core's action
// groups (meta/runtime.yml).
var traits = map[string]Traits{
	"ansible.builtin.reboot":           {NoAsync: true},
	"kubernetes.core.helm":             {NoAsync: true, Groups: helmGroup},
	"kubernetes.core.helm_info":        {NoAsync: true, Groups: helmGroup},
	"kubernetes.core.helm_repository":  {NoAsync: true, Groups: helmGroup},
	"kubernetes.core.helm_plugin":      {NoAsync: true},
	"kubernetes.core.helm_plugin_info": {NoAsync: true},
}

// TraitsOf returns the catalog's traits of the module fqcn.
func TraitsOf(fqcn string) (Traits, bool) {
	t, ok := traits[fqcn]
	return t, ok
}

// TraitNames lists the modules TraitsOf knows.
func TraitNames() []string {
	out := make([]string, 0, len(traits))
	for n := range traits {
		out = append(out, n)
	}
	return out
}

// groupExtends are ansible-core's own action groups
// (lib/ansible/config/ansible_builtin_runtime.yml) that extend a
// collection's group, as far as cfzt-runner ships modules of that
// collection: `group/k8s` also holds kubernetes.core's group k8s.
var groupExtends = map[string][]string{
	"ansible.builtin.k8s": k8sGroup,
}

// GroupExtends returns the groups the fully qualified action group
// extends.
func GroupExtends(group string) []string { return groupExtends[group] }
