package main

import (
	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/vault"
)

// vaultSecrets reads the vault secrets of the command line and the
// configuration as ansible-playbook does: sources that fail are warnings
// on disp, and the run fails only when none gave a secret. It returns nil
// when no source was given.
func (c *cli) vaultSecrets(disp run.Display) (*vault.Keyring, error) {
	src := vault.Sources{IdentityList: c.cfg.Vault.IdentityList, IDs: c.vaultIDs, PasswordFiles: c.vaultFiles,
		ConfigFile: c.cfg.Vault.PasswordFile, IDMatch: c.cfg.Vault.IDMatch}
	if c.askVault {
		src.IDs = append(src.IDs, vault.DefaultID+"@prompt_ask_vault_pass")
	}
	if len(src.IdentityList)+len(src.IDs)+len(src.PasswordFiles) == 0 && src.ConfigFile == "" {
		return nil, nil
	}
	return src.Load(func(msg string) { disp.Warn(diag.Warn(msg, nil)) })
}
