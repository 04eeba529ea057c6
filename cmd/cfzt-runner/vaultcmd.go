package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/config"
	"github.com/cfzt/cfzt-runner/engine/vault"
)

// isVaultCommand reports a `cfzt-runner vault view|encrypt_string` command
// line (a playbook named "vault" is still a playbook otherwise).
func isVaultCommand(args []string) bool {
	return len(args) > 1 && args[0] == "vault" && (args[1] == "view" || args[1] == "encrypt_string")
}

// vaultOptions are the flags of a vault subcommand.
type vaultOptions struct {
	ids, files      multi
	name, encryptID string
}

// vaultFlagSet defines the flags of `vault SUB` (shared with its --help).
func vaultFlagSet(sub string, out io.Writer) (*flag.FlagSet, *vaultOptions) {
	o := &vaultOptions{}
	fs := flag.NewFlagSet("cfzt-runner vault "+sub, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Var(&o.ids, "vault-id", "the vault identity to use ([LABEL@]FILE); may be repeated")
	fs.Var(&o.files, "vault-password-file", "vault password file (run when executable); may be repeated")
	fs.Var(&o.files, "vault-pass-file", "alias of --vault-password-file")
	if sub == "encrypt_string" {
		fs.StringVar(&o.name, "name", "", "the variable name to print the value under")
		fs.StringVar(&o.encryptID, "encrypt-vault-id", "", "the vault id whose secret encrypts (default: the first)")
	}
	return fs, o
}

// runVaultCommand is a small part of ansible-vault: `view` prints the
// plaintext of vault-encrypted files, `encrypt_string` prints a `!vault`
// value for a string, with the secrets given as to a run.
func runVaultCommand(args []string, stdout, stderr io.Writer) int {
	sub := args[0]
	fs, o := vaultFlagSet(sub, stderr)
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	ids, files, name, encryptID := o.ids, o.files, o.name, o.encryptID
	cfg := config.Load(config.Process())
	src := vault.Sources{IdentityList: cfg.Vault.IdentityList, IDs: ids, PasswordFiles: files, ConfigFile: cfg.Vault.PasswordFile, IDMatch: cfg.Vault.IDMatch}
	keyring, err := src.Load(func(msg string) { fmt.Fprintln(stderr, "[WARNING]:", msg) })
	if err != nil {
		fmt.Fprintln(stderr, "[ERROR]:", err)
		return 1
	}
	switch sub {
	case "view":
		if fs.NArg() == 0 {
			fmt.Fprintln(stderr, "[ERROR]: vault view needs the files to show")
			return 2
		}
		for _, f := range fs.Args() {
			data, err := os.ReadFile(f)
			if err != nil {
				fmt.Fprintf(stderr, "[ERROR]: Unable to read source file (%s): %v\n", f, err)
				return 1
			}
			plain, err := keyring.Decrypt(data)
			if err != nil {
				fmt.Fprintf(stderr, "[ERROR]: %s for %s\n", strings.TrimSuffix(err.Error(), "."), f)
				return 1
			}
			stdout.Write(plain)
		}
		return 0
	default:
		if fs.NArg() != 1 {
			fmt.Fprintln(stderr, "[ERROR]: vault encrypt_string needs one string to encrypt")
			return 2
		}
		if keyring == nil || len(keyring.Secrets) == 0 {
			fmt.Fprintln(stderr, "[ERROR]: A vault password must be specified to encrypt data")
			return 1
		}
		secret := keyring.Secrets[0]
		if encryptID != "" {
			found := false
			for _, s := range keyring.Secrets {
				if s.ID == encryptID {
					secret, found = s, true
					break
				}
			}
			if !found {
				fmt.Fprintf(stderr, "[ERROR]: Did not find a match for --encrypt-vault-id=%s in the known vault-ids\n", encryptID)
				return 1
			}
		}
		text, err := vault.Encrypt([]byte(fs.Arg(0)), secret.Password, secret.ID)
		if err != nil {
			fmt.Fprintln(stderr, "[ERROR]:", err)
			return 1
		}
		indent := strings.Repeat(" ", 10)
		body := indent + strings.ReplaceAll(strings.TrimSuffix(string(text), "\n"), "\n", "\n"+indent)
		if name != "" {
			fmt.Fprintf(stdout, "%s: !vault |\n%s\n", name, body)
		} else {
			fmt.Fprintf(stdout, "!vault |\n%s\n", body)
		}
		fmt.Fprintln(stderr, "Encryption successful")
		return 0
	}
}
