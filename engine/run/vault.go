package run

import "github.com/cfzt/cfzt-runner/engine/diag"

// inventoryVaultError reads the inventory variables of the batch's hosts
// and returns the error of the first encrypted group_vars or host_vars
// file that could not be decrypted: as in ansible-core, it ends the run
// when the play starts, with exit code 4.
func (r *Runner) inventoryVaultError(batch []string) error {
	for _, h := range batch {
		r.Inventory.HostVars(h)
	}
	if errs := r.Inventory.VaultErrors(); len(errs) > 0 {
		return &diag.Diagnostic{Summary: errs[0].Err.Error(), Code: diag.ExitParse, Wrapped: errs[0].Err}
	}
	return nil
}
