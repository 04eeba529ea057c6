package run

import "github.com/cfzt/cfzt-runner/engine/value"

// hostsByPattern is the inventory of lookup('inventory_hostnames'): as
// ansible-core does, it rebuilds an inventory from the groups variable
// (each group with the hosts it lists, nothing nested) and selects with
// the host patterns there. A pattern that matches nothing warns as
// host_pattern_mismatch says; one that fails selects no host at all.
func (r *Runner) hostsByPattern(groups *value.Dict, patterns []string) []string {
	inv := NewInventory()
	inv.PatternMismatch = r.Inventory.PatternMismatch
	inv.SetWarn(func(msg string) { r.warn(Warning{Msg: msg}) })
	groups.Each(func(name string, hosts any) bool {
		inv.group(name)
		l, _ := hosts.([]any)
		for _, h := range l {
			inv.addHost(value.Str(h), name, "")
		}
		return true
	})
	pats := make([]any, len(patterns))
	for i, p := range patterns {
		pats[i] = p
	}
	hosts, err := inv.Match(pats)
	if err != nil {
		return nil
	}
	return hosts
}
