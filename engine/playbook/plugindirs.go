package playbook

import "path/filepath"

// pluginKinds are the Python plugin kinds whose directories a playbook or
// role may carry beside it (<kind>_plugins), as ansible-core's
// add_all_plugin_dirs adds them when it loads one.
var pluginKinds = []string{"filter", "test", "lookup"}

// addPythonPluginDirs records dir's filter_plugins, test_plugins and
// lookup_plugins directories.
func (l *Loader) addPythonPluginDirs(dir string) {
	if l.pluginDirs == nil {
		l.pluginDirs = map[string][]string{}
	}
	for _, k := range pluginKinds {
		l.pluginDirs[k] = appendDir(l.pluginDirs[k], filepath.Join(dir, k+"_plugins"))
	}
}

// PluginDirs are the <kind>_plugins directories ("filter", "test",
// "lookup") of the playbooks and roles loaded so far, in the order they
// were loaded: where the Python plugins of that kind are searched first.
func (l *Loader) PluginDirs(kind string) []string { return l.pluginDirs[kind] }

// CollectionRoots are the directories holding ansible_collections trees:
// the one beside the playbook first, then the configured paths.
func (l *Loader) CollectionRoots() []string { return l.collectionRoots() }
