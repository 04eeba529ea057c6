// Package vault reads and writes Ansible Vault data (format 1.1 and 1.2,
// cipher AES256) as ansible-core's parsing/vault does: the key, HMAC key
// and counter come from PBKDF2-HMAC-SHA256 (10000 iterations) over the
// password and a per-text salt, the payload is AES-256-CTR over the
// PKCS#7-padded plaintext, and an HMAC-SHA256 of the ciphertext
// authenticates it. Only the standard library's primitives are used.
package vault

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Header starts every vault text.
const Header = "$ANSIBLE_VAULT"

// DefaultID is the vault id of a secret given without a label
// (ansible-core's DEFAULT_VAULT_IDENTITY).
const DefaultID = "default"

const (
	iterations = 10000
	keyLen     = 32
	ivLen      = aes.BlockSize
)

// Errors worded as ansible-core's AnsibleVaultError messages.
var (
	ErrNoSecrets = errors.New("Attempting to decrypt but no vault secrets found.")
	ErrNoMatch   = errors.New("Decryption failed (no vault secrets were found that could decrypt).")
	ErrNotVault  = errors.New("Input is not vault encrypted data.")
)

// FormatError is a malformed vault text (ansible-core's
// AnsibleVaultFormatError): no secret is tried after it.
type FormatError struct{ Msg string }

func (e *FormatError) Error() string { return e.Msg }

// IsVaultError reports whether err is a vault text that could not be
// decrypted.
func IsVaultError(err error) bool {
	var fe *FormatError
	return errors.Is(err, ErrNoSecrets) || errors.Is(err, ErrNoMatch) || errors.Is(err, ErrNotVault) || errors.As(err, &fe)
}

// Secret is one vault password and the vault id it was given for.
type Secret struct {
	ID       string
	Password []byte
}

// Keyring holds the secrets of a run, in the order they were given.
// IDMatch is ansible-core's vault_id_match: only a secret whose id is the
// text's own vault id is tried.
type Keyring struct {
	Secrets []Secret
	IDMatch bool
}

// IsEncrypted reports whether data is vault text.
func IsEncrypted(data []byte) bool {
	for _, c := range data {
		if c >= 0x80 {
			return false
		}
	}
	return bytes.HasPrefix(data, []byte(Header))
}

// Envelope is the parsed header of a vault text and its hex payload.
type Envelope struct {
	Version string
	Cipher  string
	ID      string
	Payload []byte
}

// ParseEnvelope splits a vault text into its header fields and payload.
func ParseEnvelope(data []byte) (*Envelope, error) {
	lines := bytes.Split(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\n"))
	head := strings.Split(strings.TrimSpace(string(lines[0])), ";")
	if len(head) < 3 {
		return nil, &FormatError{Msg: "Vault envelope format error."}
	}
	env := &Envelope{Version: strings.TrimSpace(head[1]), Cipher: strings.TrimSpace(head[2]), ID: DefaultID}
	if len(head) >= 4 {
		env.ID = strings.TrimSpace(head[3])
	}
	for _, l := range lines[1:] {
		env.Payload = append(env.Payload, bytes.TrimSpace(l)...)
	}
	return env, nil
}

// Decrypt decrypts a vault text with the keyring's secrets, trying the
// secrets of the text's vault id first, as ansible-core does. A nil or
// empty keyring is ErrNoSecrets.
func (k *Keyring) Decrypt(data []byte) ([]byte, error) {
	if !IsEncrypted(data) {
		return nil, ErrNotVault
	}
	env, err := ParseEnvelope(data)
	if err != nil {
		return nil, err
	}
	if env.Cipher != "AES256" {
		return nil, &FormatError{Msg: fmt.Sprintf("Cipher '%s' could not be found.", env.Cipher)}
	}
	if k == nil || len(k.Secrets) == 0 {
		return nil, ErrNoSecrets
	}
	for _, s := range k.ordered(env.ID) {
		plain, err := decryptAES256(env.Payload, s.Password)
		var fe *FormatError
		if errors.As(err, &fe) {
			return nil, err
		}
		if err == nil {
			return plain, nil
		}
	}
	return nil, ErrNoMatch
}

// ordered lists the secrets to try for a text of vault id id: those of
// that id first, then (unless IDMatch) the others in the order given.
func (k *Keyring) ordered(id string) []Secret {
	var out []Secret
	for _, s := range k.Secrets {
		if s.ID == id {
			out = append(out, s)
		}
	}
	if k.IDMatch {
		return out
	}
	for _, s := range k.Secrets {
		if s.ID != id {
			out = append(out, s)
		}
	}
	return out
}

func unhex(b []byte) ([]byte, error) {
	out := make([]byte, hex.DecodedLen(len(b)))
	if _, err := hex.Decode(out, b); err != nil || len(b)%2 != 0 {
		return nil, &FormatError{Msg: "Vault format unhexlify error."}
	}
	return out, nil
}

func deriveKeys(password, salt []byte) (key, hmacKey, iv []byte, err error) {
	dk, err := pbkdf2.Key(sha256.New, string(password), salt, iterations, 2*keyLen+ivLen)
	if err != nil {
		return nil, nil, nil, err
	}
	return dk[:keyLen], dk[keyLen : 2*keyLen], dk[2*keyLen:], nil
}

// errHMAC is a secret that does not decrypt the text.
var errHMAC = errors.New("HMAC verification failed")

func decryptAES256(payload, password []byte) ([]byte, error) {
	inner, err := unhex(payload)
	if err != nil {
		return nil, err
	}
	parts := bytes.SplitN(inner, []byte("\n"), 3)
	if len(parts) != 3 {
		return nil, &FormatError{Msg: "Vault vaulttext format error."}
	}
	salt, err := unhex(parts[0])
	if err != nil {
		return nil, err
	}
	ct, err := unhex(parts[2])
	if err != nil {
		return nil, err
	}
	want, err := unhex(parts[1])
	if err != nil {
		return nil, err
	}
	key, hkey, iv, err := deriveKeys(password, salt)
	if err != nil {
		return nil, err
	}
	mac := hmac.New(sha256.New, hkey)
	mac.Write(ct)
	if !hmac.Equal(mac.Sum(nil), want) {
		return nil, errHMAC
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	plain := make([]byte, len(ct))
	cipher.NewCTR(block, iv).XORKeyStream(plain, ct)
	return unpad(plain)
}

func unpad(b []byte) ([]byte, error) {
	n := len(b)
	if n == 0 || n%aes.BlockSize != 0 {
		return nil, errors.New("Invalid padding bytes.")
	}
	p := int(b[n-1])
	if p == 0 || p > aes.BlockSize {
		return nil, errors.New("Invalid padding bytes.")
	}
	for _, c := range b[n-p:] {
		if int(c) != p {
			return nil, errors.New("Invalid padding bytes.")
		}
	}
	return b[:n-p], nil
}

// Encrypt makes a vault text of plain with password: format 1.1, or 1.2
// when id is a label other than "default", wrapped at 80 columns and
// ending in a newline, as ansible-vault writes it.
func Encrypt(plain, password []byte, id string) ([]byte, error) {
	if len(password) == 0 {
		return nil, errors.New("A vault password must be specified to encrypt data")
	}
	salt := make([]byte, 32)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	key, hkey, iv, err := deriveKeys(password, salt)
	if err != nil {
		return nil, err
	}
	p := aes.BlockSize - len(plain)%aes.BlockSize
	padded := append(append([]byte{}, plain...), bytes.Repeat([]byte{byte(p)}, p)...)
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	ct := make([]byte, len(padded))
	cipher.NewCTR(block, iv).XORKeyStream(ct, padded)
	mac := hmac.New(sha256.New, hkey)
	mac.Write(ct)
	inner := strings.Join([]string{hex.EncodeToString(salt), hex.EncodeToString(mac.Sum(nil)), hex.EncodeToString(ct)}, "\n")
	payload := hex.EncodeToString([]byte(inner))
	head := Header + ";1.1;AES256"
	if id != "" && id != DefaultID {
		head = Header + ";1.2;AES256;" + id
	}
	var b strings.Builder
	b.WriteString(head)
	for i := 0; i < len(payload); i += 80 {
		b.WriteByte('\n')
		b.WriteString(payload[i:min(i+80, len(payload))])
	}
	b.WriteByte('\n')
	return []byte(b.String()), nil
}
