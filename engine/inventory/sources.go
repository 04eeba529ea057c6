package inventory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

func isYAMLInventory(src string, data []byte) bool {
	for _, ext := range []string{".yml", ".yaml", ".json"} {
		if strings.HasSuffix(src, ext) {
			return true
		}
	}
	return data != nil && strings.HasPrefix(strings.TrimSpace(string(data)), "all:")
}

// AddSource parses one -i argument: a comma list of hosts, a file, or a
// directory of inventory files.
func (inv *Inventory) AddSource(src string) error {
	if st, err := os.Stat(src); err == nil && st.IsDir() {
		return inv.addSourceDir(src)
	}
	if abs, err := filepath.Abs(src); err == nil && fileExists(src) {
		inv.sources = append(inv.sources, abs)
	} else {
		inv.sources = append(inv.sources, src)
	}
	inv.merged = nil
	if !fileExists(src) && strings.Contains(src, ",") {
		for _, h := range strings.Split(src, ",") {
			if h = strings.TrimSpace(h); h != "" {
				inv.addHost(h, "ungrouped", src)
				inv.listHosts[h] = true
			}
		}
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("Unable to parse %s as an inventory source", src)
	}
	abs, _ := filepath.Abs(src)
	inv.invDirs = appendUnique(inv.invDirs, filepath.Dir(abs))
	err = inv.parseFile(abs, data)
	inv.reconcile()
	inv.warnConflicts()
	return err
}

// warnConflicts warns about names that are both a group and a host, as
// ansible-core's reconcile_inventory does after parsing sources.
func (inv *Inventory) warnConflicts() {
	var names []string
	for _, h := range inv.hosts {
		if _, ok := inv.groups[h]; ok {
			names = append(names, h)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		inv.warning("Found both group and host with same name: " + n)
	}
}

// parseFile parses one inventory file as ansible-core's plugins would, in
// their order: an executable is an inventory script, a YAML file with a
// plugin key an inventory plugin's configuration (which cfzt-runner
// refuses: it runs no inventory plugin), else YAML or INI.
func (inv *Inventory) parseFile(abs string, data []byte) error {
	if isScript(abs) {
		if err := inv.parseScript(abs); err != nil {
			return &SourceError{Source: abs, Failures: []PluginFailure{scriptFailure(err, abs)}}
		}
		return nil
	}
	if plugin := pluginConfig(abs, data); plugin != "" {
		return pluginRefusal(abs, plugin, data)
	}
	if isYAMLInventory(abs, data) {
		return inv.parseYAML(abs, data)
	}
	return inv.parseINI(abs, string(data))
}

// ignoredInventoryEntry matches the directory entries ansible-core skips
// in an inventory directory: hidden ones, group_vars, host_vars and
// vars_plugins, and the INVENTORY_IGNORE_EXTS extensions.
var ignoredInventoryEntry = regexp.MustCompile(`^\.|^host_vars$|^group_vars$|^vars_plugins$|(\.pyc|\.pyo|\.swp|\.bak|~|\.rpm|\.md|\.txt|\.rst|\.orig|\.cfg|\.retry)$`)

// addSourceDir parses an inventory directory as ansible-core does: its
// entries in name order, subdirectories recursively, the ignored ones
// skipped. Its group_vars/ and host_vars/ are the directory's own.
func (inv *Inventory) addSourceDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	inv.sources = append(inv.sources, abs)
	inv.merged = nil
	inv.invDirs = appendUnique(inv.invDirs, abs)
	err = inv.parseDir(abs)
	inv.reconcile()
	inv.warnConflicts()
	return err
}

func (inv *Inventory) parseDir(dir string) error {
	names, err := readDirSorted(dir)
	if err != nil {
		return fmt.Errorf("Unable to parse %s as an inventory source", dir)
	}
	for _, name := range names {
		if ignoredInventoryEntry.MatchString(name) {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			if err := inv.parseDir(p); err != nil {
				return err
			}
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("Unable to parse %s as an inventory source", p)
		}
		if err := inv.parseFile(p, data); err != nil {
			var se *SourceError
			if !errors.As(err, &se) {
				return err
			}
			// As ansible-core parses each file of the directory as a
			// source of its own, the others still count.
			inv.sourceErrs = append(inv.sourceErrs, se)
		}
	}
	return nil
}

// readDirSorted lists a directory's entry names in sorted order.
func readDirSorted(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

func appendUnique(l []string, s string) []string {
	for _, x := range l {
		if x == s {
			return l
		}
	}
	return append(l, s)
}

// AddVarsDir adds a playbook directory, whose group_vars/ and host_vars/
// take precedence over those beside the inventory.
func (inv *Inventory) AddVarsDir(dir string) {
	inv.pbDirs = appendUnique(inv.pbDirs, dir)
	inv.merged = nil
}
