package value

// Vaulted is a scalar tagged `!vault`: Ansible Vault ciphertext, kept as
// it was written until the template engine decrypts it where it is used
// (ansible-core's EncryptedString), so that a value that cannot be
// decrypted fails only where it is used. Pos is where the tag was written.
type Vaulted struct {
	Text string
	Pos  Pos
}

// String is the ciphertext: the plaintext is never produced here.
func (v Vaulted) String() string { return v.Text }

// JSONValue is the ciphertext, which is all a value that was never
// decrypted can show.
func (v Vaulted) JSONValue() any { return v.Text }
