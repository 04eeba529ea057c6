package run

import (
	"github.com/cfzt/cfzt-runner/engine/inventory"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// hostsByPattern is the inventory of lookup('inventory_hostnames'): as
// ansible-core does, it rebuilds an inventory from the groups variable
// (each group with the hosts it lists, nothing nested) and selects with
// the host patterns there. A pattern that matches nothing warns as
// host_pattern_mismatch says; one that fails selects no host at all.
func (r *Runner) hostsByPattern(groups *value.Dict, patterns []string) []string {
	inv := inventory.FromGroups(groups)
	inv.PatternMismatch = r.Inventory.PatternMismatch
	inv.SetWarn(r.warning)
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
