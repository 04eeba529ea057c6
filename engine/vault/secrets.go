package vault

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// Sources are the places a run's vault secrets come from, as
// ansible-playbook's setup_vault_secrets reads them: the configured
// identity list (ANSIBLE_VAULT_IDENTITY_LIST), then every --vault-id
// (label@source, or a bare source), then every --vault-password-file and
// the configured vault_password_file (ANSIBLE_VAULT_PASSWORD_FILE), which
// get the default id.
type Sources struct {
	IdentityList  []string
	IDs           []string
	PasswordFiles []string
	ConfigFile    string
	IDMatch       bool
}

// Load reads the secrets. A source that cannot be read is a warning
// ("Error getting vault password file (id): ..."), through warn, and the
// run fails with its error only when no source gave a secret. A prompt
// source is refused: cfzt-runner never reads a terminal for a password.
func (s Sources) Load(warn func(string)) (*Keyring, error) {
	slugs := append(append([]string{}, s.IdentityList...), s.IDs...)
	files := append([]string{}, s.PasswordFiles...)
	if s.ConfigFile != "" {
		files = append(files, s.ConfigFile)
	}
	for _, f := range files {
		slugs = append(slugs, DefaultID+"@"+f)
	}
	k := &Keyring{IDMatch: s.IDMatch}
	var last error
	found := false
	for _, slug := range slugs {
		id, src := splitID(slug)
		if id == "" {
			id = DefaultID
		}
		if src == "prompt" || src == "prompt_ask_vault_pass" {
			return nil, fmt.Errorf("cfzt-runner does not prompt for vault passwords (vault id %q asked for %s): give a password file or script instead", id, src)
		}
		pw, getErr, loadErr := readSecret(src, id)
		if getErr != nil {
			warn(fmt.Sprintf("Error getting vault password file (%s): %s", id, getErr))
			last = getErr
			continue
		}
		if loadErr != nil {
			warn(fmt.Sprintf("Error in vault password file loading (%s): %s", id, loadErr))
			last = loadErr
			continue
		}
		found = true
		k.Secrets = append(k.Secrets, Secret{ID: id, Password: pw})
	}
	if last != nil && !found {
		return nil, last
	}
	return k, nil
}

// splitID splits label@source; a slug without "@" is a bare source.
func splitID(slug string) (id, src string) {
	if i := strings.Index(slug, "@"); i >= 0 {
		return slug[:i], slug[i+1:]
	}
	return "", slug
}

// readSecret reads one password file, or runs it when it is executable
// (a "-client" script gets --vault-id ID). getErr is a file that cannot
// be used at all, loadErr one whose content or run failed.
func readSecret(name, id string) (pw []byte, getErr, loadErr error) {
	path := name
	if strings.HasPrefix(path, "~") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, strings.TrimPrefix(path, "~"))
		}
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("The vault password file %s was not found", path), nil
	}
	if st.IsDir() {
		return nil, fmt.Errorf("The vault password file provided '%s' can not be a directory", path), nil
	}
	if st.Mode()&0o111 != 0 {
		return runScript(path, name, id)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("Could not read vault password file '%s'.", path)
	}
	pw = bytes.Trim(bytes.TrimSpace(data), "\r\n")
	if len(pw) == 0 {
		return nil, nil, fmt.Errorf("Invalid vault password was provided from file (%s)", path)
	}
	return pw, nil, nil
}

func runScript(path, name, id string) ([]byte, error, error) {
	base := strings.TrimSuffix(name, filepath.Ext(name))
	client := strings.HasSuffix(base, "-client")
	args := []string{}
	if client && id != "" {
		args = append(args, "--vault-id", id)
	}
	cmd := exec.Command(path, args...)
	var stderr bytes.Buffer
	if client {
		cmd.Stderr = &stderr
	} else {
		cmd.Stderr = os.Stderr
	}
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			rc := ee.ExitCode()
			switch {
			case client && rc == 2:
				return nil, nil, fmt.Errorf("Vault password client script %s did not find a secret for vault-id=%s: %s", path, id, py.BytesRepr(stderr.Bytes()))
			case client:
				return nil, nil, fmt.Errorf("Vault password client script %s returned non-zero (%d) when getting secret for vault-id=%s: %s", path, rc, id, py.BytesRepr(stderr.Bytes()))
			}
			return nil, nil, fmt.Errorf("Vault password script %s returned non-zero (%d): None", path, rc)
		}
		what := "script"
		if client {
			what = "client script"
		}
		return nil, nil, fmt.Errorf("Problem running vault password %s %s (%v). If this is not a script, remove the executable bit from the file.", what, path, err)
	}
	pw := bytes.Trim(out, "\r\n")
	if len(pw) == 0 {
		return nil, nil, fmt.Errorf("Invalid vault password was provided from script (%s)", path)
	}
	return pw, nil, nil
}
