package module

import (
	"fmt"
	"os"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/engine/vault"
)

// DecryptedFile returns the controller file an action reads for path, as
// ansible-core's DataLoader.get_real_file(path, decrypt=True) does: path
// itself, or, when the file is vault-encrypted, a private temporary file
// holding its plaintext, which cleanup removes. A file that cannot be
// decrypted is the vault's error.
func DecryptedFile(req *Request, path string) (real string, cleanup func(), err error) {
	none := func() {}
	data, err := os.ReadFile(path)
	if err != nil || !vault.IsEncrypted(data) {
		return path, none, nil
	}
	var keyring *vault.Keyring
	if req.Host != nil && req.Host.Shared() != nil {
		keyring = req.Host.Shared().Vault
	}
	if keyring == nil || len(keyring.Secrets) == 0 {
		return "", none, fmt.Errorf("A vault password or secret must be specified to decrypt %s", path)
	}
	plain, err := keyring.Decrypt(data)
	if err != nil {
		// The vault's error, at the file.
		return "", none, &diag.Diagnostic{Summary: err.Error(), Origin: diag.At(value.Pos{File: path}), Wrapped: err}
	}
	f, err := os.CreateTemp("", "cfzt-vault-")
	if err != nil {
		return "", none, err
	}
	name := f.Name()
	cleanup = func() { os.Remove(name) }
	if _, err := f.Write(plain); err != nil {
		f.Close()
		cleanup()
		return "", none, err
	}
	if err := f.Close(); err != nil {
		cleanup()
		return "", none, err
	}
	return name, cleanup, nil
}
