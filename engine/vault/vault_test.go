package vault

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func TestDecryptAnsibleVaultTexts(t *testing.T) {
	k := &Keyring{Secrets: []Secret{{ID: DefaultID, Password: []byte("secret1")}}}
	got, err := k.Decrypt(fixture(t, "v11.txt"))
	require.NoError(t, err)
	require.Equal(t, "hello vault", string(got))
	// 1.2 with a label: the default secret is tried after the label's
	// (none here), as ansible-core does without vault_id_match.
	got, err = k.Decrypt(fixture(t, "v12-dev.txt"))
	require.NoError(t, err)
	require.Equal(t, "labelled", string(got))
}

func TestDecryptSecretOrderAndIDMatch(t *testing.T) {
	good := Secret{ID: "dev", Password: []byte("secret1")}
	bad := Secret{ID: DefaultID, Password: []byte("wrong")}
	k := &Keyring{Secrets: []Secret{bad, good}}
	got, err := k.Decrypt(fixture(t, "v12-dev.txt"))
	require.NoError(t, err)
	require.Equal(t, "labelled", string(got))
	// With vault_id_match only the text's own id is tried.
	k = &Keyring{Secrets: []Secret{{ID: "other", Password: []byte("secret1")}}, IDMatch: true}
	_, err = k.Decrypt(fixture(t, "v12-dev.txt"))
	require.ErrorIs(t, err, ErrNoMatch)
}

func TestDecryptErrors(t *testing.T) {
	var none *Keyring
	_, err := none.Decrypt(fixture(t, "v11.txt"))
	require.ErrorIs(t, err, ErrNoSecrets)
	k := &Keyring{Secrets: []Secret{{ID: DefaultID, Password: []byte("wrong")}}}
	_, err = k.Decrypt(fixture(t, "v11.txt"))
	require.ErrorIs(t, err, ErrNoMatch)
	_, err = k.Decrypt([]byte("plain text"))
	require.ErrorIs(t, err, ErrNotVault)
	_, err = k.Decrypt([]byte("$ANSIBLE_VAULT;1.1;AES\n00\n"))
	require.EqualError(t, err, "Cipher 'AES' could not be found.")
}

// Attacks: a hostile vault text (from a vars file or a CR) must give an
// error, never a crash, a wrong plaintext or a slow derivation loop.
func TestDecryptHostileTexts(t *testing.T) {
	k := &Keyring{Secrets: []Secret{{ID: DefaultID, Password: []byte("secret1")}}}
	good := fixture(t, "v11.txt")
	lines := strings.Split(strings.TrimSpace(string(good)), "\n")
	payload := strings.Join(lines[1:], "")
	cases := map[string]string{
		"header only":     "$ANSIBLE_VAULT",
		"short header":    "$ANSIBLE_VAULT;1.1",
		"odd hex":         "$ANSIBLE_VAULT;1.1;AES256\nabc",
		"not hex":         "$ANSIBLE_VAULT;1.1;AES256\nzz",
		"no newlines":     "$ANSIBLE_VAULT;1.1;AES256\n616263",
		"empty payload":   "$ANSIBLE_VAULT;1.1;AES256\n",
		"truncated":       "$ANSIBLE_VAULT;1.1;AES256\n" + payload[:len(payload)-8],
		"flipped byte":    "$ANSIBLE_VAULT;1.1;AES256\n" + payload[:len(payload)-1] + flipHex(payload[len(payload)-1]),
		"non-ascii":       "$ANSIBLE_VAULT;1.1;AES256\n\xff",
		"relabelled text": "$ANSIBLE_VAULT;1.2;AES256;evil\n" + payload[:len(payload)-1] + flipHex(payload[len(payload)-1]),
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := k.Decrypt([]byte(text))
			require.Error(t, err)
			require.Nil(t, out)
		})
	}
}

func flipHex(c byte) string {
	if c == '0' {
		return "1"
	}
	return "0"
}

func TestEncryptRoundTrip(t *testing.T) {
	for _, id := range []string{"", DefaultID, "prod"} {
		text, err := Encrypt([]byte("s3cr3t\nline"), []byte("pw"), id)
		require.NoError(t, err)
		require.True(t, IsEncrypted(text))
		first := string(bytes.SplitN(text, []byte("\n"), 2)[0])
		if id == "prod" {
			require.Equal(t, "$ANSIBLE_VAULT;1.2;AES256;prod", first)
		} else {
			require.Equal(t, "$ANSIBLE_VAULT;1.1;AES256", first)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(text)), "\n")[1:] {
			require.LessOrEqual(t, len(l), 80)
		}
		got, err := (&Keyring{Secrets: []Secret{{ID: id, Password: []byte("pw")}}}).Decrypt(text)
		require.NoError(t, err)
		require.Equal(t, "s3cr3t\nline", string(got))
	}
	_, err := Encrypt([]byte("x"), nil, "")
	require.Error(t, err)
}

func TestLoadSources(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	require.NoError(t, os.WriteFile(pw, []byte("secret1\n"), 0o600))
	script := filepath.Join(dir, "pw.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho secret1\n"), 0o700))
	client := filepath.Join(dir, "vault-client.sh")
	require.NoError(t, os.WriteFile(client, []byte("#!/bin/sh\n[ \"$1 $2\" = '--vault-id dev' ] || exit 2\necho secret1\n"), 0o700))
	failing := filepath.Join(dir, "fail.sh")
	require.NoError(t, os.WriteFile(failing, []byte("#!/bin/sh\nexit 3\n"), 0o700))
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o600))

	var warns []string
	warn := func(s string) { warns = append(warns, s) }
	k, err := Sources{IDs: []string{"dev@" + client, script}, PasswordFiles: []string{pw}}.Load(warn)
	require.NoError(t, err)
	require.Empty(t, warns)
	require.Len(t, k.Secrets, 3)
	require.Equal(t, []string{"dev", DefaultID, DefaultID}, []string{k.Secrets[0].ID, k.Secrets[1].ID, k.Secrets[2].ID})
	for _, s := range k.Secrets {
		require.Equal(t, "secret1", string(s.Password))
	}

	// One bad source among good ones is a warning; all bad is the last error.
	k, err = Sources{PasswordFiles: []string{filepath.Join(dir, "nope"), pw}}.Load(warn)
	require.NoError(t, err)
	require.Len(t, k.Secrets, 1)
	require.Equal(t, []string{"Error getting vault password file (default): The vault password file " + filepath.Join(dir, "nope") + " was not found"}, warns)
	warns = nil
	_, err = Sources{PasswordFiles: []string{failing, empty}, ConfigFile: dir}.Load(warn)
	require.EqualError(t, err, "The vault password file provided '"+dir+"' can not be a directory")
	require.Equal(t, []string{
		"Error in vault password file loading (default): Vault password script " + failing + " returned non-zero (3): None",
		"Error in vault password file loading (default): Invalid vault password was provided from file (" + empty + ")",
		"Error getting vault password file (default): The vault password file provided '" + dir + "' can not be a directory",
	}, warns)
	_, err = Sources{IDs: []string{"x@prompt"}}.Load(warn)
	require.ErrorContains(t, err, "does not prompt")
}
