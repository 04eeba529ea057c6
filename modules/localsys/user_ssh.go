package localsys

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// sshKeyPath is get_ssh_key_path: ssh_key_file, relative to the home.
func (u *userRun) sshKeyPath(info passwdEntry) (string, error) {
	if filepath.IsAbs(u.sshFile) {
		return u.sshFile, nil
	}
	if _, err := os.Stat(info.home); err != nil && !u.req.Check {
		return "", errors.New("User " + u.name + " home directory does not exist")
	}
	return filepath.Join(info.home, u.sshFile), nil
}

// sshKey generates the key when it is missing (ssh_key_gen) and reports
// it: ssh_fingerprint, ssh_key_file, ssh_public_key.
func (u *userRun) sshKey(res *value.Dict) error {
	info, _ := u.info()
	out, err := u.sshKeyGen(info)
	if err != nil {
		return err
	}
	if out.ran && out.rc != 0 {
		return module.Fail(out.stderr, "name", u.name, "rc", out.rc)
	}
	if out.ran {
		res.Set("changed", true)
	}
	keyFile, err := u.sshKeyPath(info)
	if err != nil {
		return err
	}
	res.Set("ssh_fingerprint", u.sshFingerprint(keyFile))
	res.Set("ssh_key_file", keyFile)
	if data, err := os.ReadFile(keyFile + ".pub"); err == nil {
		res.Set("ssh_public_key", strings.TrimSpace(string(data)))
	} else {
		res.Set("ssh_public_key", nil)
	}
	return nil
}

// sshFingerprint is ssh-keygen -l's output, or "" when the key is
// missing (the Python module reports the empty stderr then).
func (u *userRun) sshFingerprint(keyFile string) string {
	if _, err := os.Stat(keyFile); err != nil {
		return ""
	}
	bin, err := binPath(u.req, "ssh-keygen")
	if err != nil {
		return ""
	}
	out, err := runCmdInput(u.req, []string{bin, "-l", "-f", keyFile})
	if err != nil {
		return ""
	}
	if out.rc == 0 {
		return strings.TrimSpace(out.stdout)
	}
	return strings.TrimSpace(out.stderr)
}

// sshKeyGen is ssh_key_gen: an existing key (or public key) is kept
// unless force; the passphrase is given with -N rather than typed at a
// terminal.
func (u *userRun) sshKeyGen(info passwdEntry) (cmdOutcome, error) {
	keyFile, err := u.sshKeyPath(info)
	if err != nil {
		return cmdOutcome{ran: true, rc: 1, stderr: err.Error()}, nil
	}
	pubFile := keyFile + ".pub"
	sshDir := filepath.Dir(keyFile)
	if _, err := os.Stat(sshDir); err != nil {
		if u.req.Check {
			return cmdOutcome{ran: true}, nil
		}
		if err := os.Mkdir(sshDir, 0o700); err != nil {
			return cmdOutcome{ran: true, rc: 1, stderr: fmt.Sprintf("Failed to create %s: %s", sshDir, err)}, nil
		}
		if err := os.Chown(sshDir, info.uid, info.gid); err != nil {
			return cmdOutcome{ran: true, rc: 1, stderr: fmt.Sprintf("Failed to create %s: %s", sshDir, err)}, nil
		}
	}
	var stdin []string
	force := u.p.Bool("force")
	if _, err := os.Stat(keyFile); err == nil {
		if !force {
			u.warn(`Found existing ssh key private file "` + keyFile + `", no force, so skipping ssh-keygen generation`)
			return cmdOutcome{stdout: `Key already exists, use "force: yes" to overwrite`}, nil
		}
		u.warn(`Overwriting existing ssh key private file "` + keyFile + `"`)
		stdin = []string{"y"}
	}
	if _, err := os.Stat(pubFile); err == nil {
		if !force {
			u.warn(`Found existing ssh key public file "` + pubFile + `", no force, so skipping ssh-keygen generation`)
			return cmdOutcome{stdout: `Public key already exists, use "force: yes" to overwrite`}, nil
		}
		u.warn(`Overwriting existing ssh key public file "` + pubFile + `"`)
		if err := os.Remove(pubFile); err != nil {
			return cmdOutcome{}, err
		}
	}
	bin, err := u.bin("ssh-keygen")
	if err != nil {
		return cmdOutcome{}, err
	}
	argv := []string{bin, "-t", u.p.Str("ssh_key_type")}
	if bits := u.p.Int("ssh_key_bits"); bits > 0 {
		argv = append(argv, "-b", itoa(bits))
	}
	passphrase, _ := u.str("ssh_key_passphrase")
	argv = append(argv, "-C", u.p.Str("ssh_key_comment"), "-f", keyFile, "-N", passphrase)
	out, err := execute(u.req, argv, true, stdin...)
	if err != nil || out.rc != 0 || u.req.Check {
		return out, err
	}
	for _, f := range []string{keyFile, pubFile} {
		if err := os.Chown(f, info.uid, info.gid); err != nil {
			return out, err
		}
	}
	return out, nil
}

// setPasswordExpire is set_password_expire: chage for the ageing values
// that differ from the shadow entry.
func (u *userRun) setPasswordExpire() (cmdOutcome, error) {
	sp, ok := shadowByName(u.name)
	if !ok {
		return cmdOutcome{}, nil
	}
	var argv []string
	for _, c := range []struct {
		opt, flag string
		current   int
	}{
		{"password_expire_min", "-m", sp.min},
		{"password_expire_max", "-M", sp.max},
		{"password_expire_warn", "-W", sp.warn},
	} {
		if u.p.IsSet(c.opt) && u.p.Int(c.opt) != c.current {
			argv = append(argv, c.flag, itoa(u.p.Int(c.opt)))
		}
	}
	if len(argv) == 0 {
		return cmdOutcome{}, nil
	}
	bin, err := u.bin("chage")
	if err != nil {
		return cmdOutcome{}, err
	}
	return execute(u.req, append(append([]string{bin}, argv...), u.name), true)
}
