package config

import (
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// The vault settings of ansible-core's base.yml.
var (
	vaultPasswordFileSetting = setting{"ANSIBLE_VAULT_PASSWORD_FILE", "defaults", "vault_password_file", ""}
	vaultIdentityListSetting = setting{"ANSIBLE_VAULT_IDENTITY_LIST", "defaults", "vault_identity_list", ""}
	vaultIDMatchSetting      = setting{"ANSIBLE_VAULT_ID_MATCH", "defaults", "vault_id_match", "false"}
)

// Vault is where a run's vault secrets come from besides the command line.
type Vault struct {
	// PasswordFile is DEFAULT_VAULT_PASSWORD_FILE (a path; relative to the
	// config file when the file gave it).
	PasswordFile string
	// IdentityList is DEFAULT_VAULT_IDENTITY_LIST: label@source entries
	// tried before the command line's.
	IdentityList []string
	// IDMatch is DEFAULT_VAULT_ID_MATCH.
	IDMatch bool
}

func (r *reader) vault() Vault {
	var v Vault
	if p, set, fromFile := r.get(vaultPasswordFileSetting); set && strings.TrimSpace(p) != "" {
		p = strings.TrimSpace(p)
		switch {
		case p == "~" || strings.HasPrefix(p, "~/"):
			p = filepath.Join(r.env.Home, p[1:])
		case fromFile && !filepath.IsAbs(p):
			p = filepath.Join(r.base, p)
		}
		v.PasswordFile = p
	}
	for _, id := range strings.Split(r.str(vaultIdentityListSetting), ",") {
		if id = strings.TrimSpace(id); id != "" {
			v.IdentityList = append(v.IdentityList, id)
		}
	}
	v.IDMatch, _ = py.LenientBoolean(r.str(vaultIDMatchSetting))
	return v
}
