package template

import (
	"errors"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/engine/vault"
	"github.com/stretchr/testify/require"
)

type vaultVars map[string]any

func (m vaultVars) Lookup(name string) (any, bool, bool) {
	v, ok := m[name]
	return v, true, ok
}

func TestVaultedValuesDecryptWhereUsed(t *testing.T) {
	text, err := vault.Encrypt([]byte("{{ 6 * 7 }}"), []byte("pw"), "")
	require.NoError(t, err)
	pos := value.Pos{File: "pb.yml", Line: 4, Col: 13}
	v := value.Vaulted{Text: string(text), Pos: pos}
	vars := vaultVars{"secret": v, "box": value.DictOf("inner", v), "unused": v}

	e := New()
	e.Vault = &vault.Keyring{Secrets: []vault.Secret{{ID: vault.DefaultID, Password: []byte("pw")}}}
	got, err := e.Render("{{ secret }}", vars, Options{})
	require.NoError(t, err)
	require.Equal(t, "{{ 6 * 7 }}", got, "the plaintext is data, never a template")
	got, err = e.Render("{{ box.inner | length }}", vars, Options{})
	require.NoError(t, err)
	require.Equal(t, 11, got)

	// Without the right secret only the use fails, at the tag.
	e.Vault = &vault.Keyring{Secrets: []vault.Secret{{ID: vault.DefaultID, Password: []byte("wrong")}}}
	got, err = e.Render("{{ 'ok' }}", vars, Options{})
	require.NoError(t, err)
	require.Equal(t, "ok", got)
	_, err = e.Render("x {{ box.inner }}", vars, Options{})
	require.ErrorIs(t, err, vault.ErrNoMatch)
	var ve *VaultError
	require.True(t, errors.As(err, &ve))
	require.Equal(t, pos, ve.Pos)
	require.Equal(t, "Error rendering template: Attempt to use undecryptable variable: Decryption failed (no vault secrets were found that could decrypt).", err.Error())
	d := diag.Of(ve)
	require.Equal(t, "Error rendering template.", d.Summary)
	require.Equal(t, &pos, d.Cause.(*diag.Diagnostic).Origin)
	e.Vault = nil
	_, err = e.Eval("secret", vars, Options{})
	require.ErrorIs(t, err, vault.ErrNoSecrets)
	require.Contains(t, err.Error(), "Error rendering expression: Attempt to use undecryptable variable: Attempting to decrypt but no vault secrets found.")
}
