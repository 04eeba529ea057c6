package inventory

import (
	"fmt"
	"os"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// NoHostsError is ansible-playbook's error when the inventory has hosts
// but --limit leaves none of them (CLI.get_host_list).
const NoHostsError = "Specified inventory, host pattern and/or --limit leaves us with no hosts to target."

// SubsetPatterns reads a --limit value as InventoryManager.subset does:
// it is split into patterns, and a pattern starting with @ names a file
// whose lines (stripped, blank ones dropped) are patterns.
func SubsetPatterns(limit string) ([]string, error) {
	var out []string
	for _, p := range splitPattern(limit) {
		name, isFile := strings.CutPrefix(p, "@")
		if !isFile {
			out = append(out, p)
			continue
		}
		st, err := os.Stat(name)
		if err != nil {
			return nil, fmt.Errorf("Unable to find limit file %s", py.BytesRepr([]byte(name)))
		}
		if st.IsDir() {
			return nil, fmt.Errorf(`Limit starting with "@" must be a file, not a directory: %s`, py.BytesRepr([]byte(name)))
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("Unable to find limit file %s", py.BytesRepr([]byte(name)))
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, line)
			}
		}
	}
	return out, nil
}

// Limit cuts hosts down to those --limit selects, keeping their order.
// An unreadable limit file keeps no host (the command line reports it
// before any play runs, see CheckLimit).
func (inv *Inventory) Limit(hosts []string, limit string) ([]string, error) {
	if limit == "" {
		return hosts, nil
	}
	pats, err := SubsetPatterns(limit)
	if err != nil {
		return nil, err
	}
	l := make([]any, len(pats))
	for i, p := range pats {
		l[i] = p
	}
	allowed, err := inv.Match(l)
	if err != nil {
		return nil, err
	}
	keep := make(map[string]bool, len(allowed))
	for _, h := range allowed {
		keep[h] = true
	}
	var out []string
	for _, h := range hosts {
		if keep[h] {
			out = append(out, h)
		}
	}
	return out, nil
}

// CheckLimit is ansible-playbook's check of --limit before it loads the
// playbooks (CLI.get_host_list): a limit file that cannot be read is an
// error, and so is a limit that leaves no host of an inventory that has
// some (an empty inventory only has the implicit localhost, which the
// check leaves alone).
func (inv *Inventory) CheckLimit(limit string) error {
	if limit == "" {
		return nil
	}
	empty := len(inv.hosts) == 0
	all, err := inv.Match("all")
	if err != nil {
		return err
	}
	hosts, err := inv.Limit(all, limit)
	if err != nil {
		return err
	}
	if len(hosts) == 0 && !empty {
		return fmt.Errorf("%s", NoHostsError)
	}
	return nil
}
