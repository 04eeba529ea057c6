package main

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/vault"
	"github.com/stretchr/testify/require"
)

// Attack: a `command: touch` for a host reached over ssh (or at another
// address) must not run on the controller; the run says why and exits 4.
func TestCLIRemoteHostNeverRunsLocally(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	marker := filepath.Join(dir, "touched")
	writeFiles(t, dir, map[string]string{
		"hosts":  "remote1 ansible_connection=ssh ansible_host=127.0.0.1 ansible_port=1\nremote2 ansible_host=192.0.2.1\n",
		"pb.yml": "- hosts: all\n  gather_facts: false\n  tasks:\n    - command: touch " + marker + "-{{ inventory_hostname }}\n",
	})
	res := runCLIProcess(t, dir, home, "-i", "hosts", "pb.yml")
	require.Equal(t, 4, res.rc, res.stdout+res.stderr)
	for _, h := range []string{"remote1", "remote2"} {
		require.NoFileExists(t, marker+"-"+h)
		require.Contains(t, res.stdout, "fatal: ["+h+"]: UNREACHABLE! => {\"changed\": false, \"msg\": \"Task failed: cfzt-runner runs tasks only through the local connection")
	}
	require.Contains(t, res.stdout, "ansible_connection asks host 'remote1' for the 'ssh' connection")
	require.Contains(t, res.stdout, "ansible_host sends host 'remote2' to '192.0.2.1'")
	require.Regexp(t, `remote1\s+: ok=0\s+changed=0\s+unreachable=1\s+failed=0`, res.stdout)

	// -c ssh asks for more than local too.
	res = runCLIProcess(t, dir, home, "-i", "localhost,", "-c", "ssh", "pb.yml")
	require.Equal(t, 4, res.rc, res.stdout+res.stderr)
	require.NoFileExists(t, marker+"-localhost")
	require.Contains(t, res.stdout, "-c/--connection asks for the 'ssh' connection")
	res = runCLIEnv(t, dir, home, []string{"ANSIBLE_TRANSPORT=ssh"}, "-i", "localhost,", "pb.yml")
	require.Equal(t, 4, res.rc, res.stdout+res.stderr)
	require.NoFileExists(t, marker+"-localhost")
	require.Contains(t, res.stdout, "the transport setting (ANSIBLE_TRANSPORT) asks for the 'ssh' connection")
}

// Attack: become to another user must not run as the current user.
func TestCLIBecomeNobodyIsRefused(t *testing.T) {
	me, err := user.Current()
	require.NoError(t, err)
	if me.Username == "nobody" {
		t.Skip("runs as nobody")
	}
	if _, err := user.Lookup("nobody"); err != nil {
		t.Skip("no user nobody")
	}
	dir, home := t.TempDir(), t.TempDir()
	writeFiles(t, dir, map[string]string{
		"pb.yml": "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - command: id -un\n      become: true\n      become_user: nobody\n      register: r\n    - debug: var=r.stdout\n",
	})
	res := runCLIProcess(t, dir, home, "-i", "localhost,", "pb.yml")
	require.Equal(t, 2, res.rc, res.stdout+res.stderr)
	require.Contains(t, res.stdout, "cfzt-runner does not implement become: this task asks to become 'nobody' (the become_user keyword; become set by the become keyword)")
	require.NotContains(t, res.stdout, `"r.stdout": "`+me.Username+`"`)

	res = runCLIProcess(t, dir, home, "-i", "localhost,", "-b", "--become-user", "nobody", "pb.yml")
	require.Equal(t, 2, res.rc)
	require.Contains(t, res.stdout, "become 'nobody'")

	// The configured defaults are refused as well, never ignored.
	writeFiles(t, dir, map[string]string{"plain.yml": "- hosts: localhost\n  gather_facts: false\n  tasks:\n    - command: id -un\n"})
	res = runCLIEnv(t, dir, home, []string{"ANSIBLE_BECOME=true", "ANSIBLE_BECOME_USER=nobody"}, "-i", "localhost,", "plain.yml")
	require.Equal(t, 2, res.rc)
	require.Contains(t, res.stdout, "become 'nobody' (the become_user setting (ANSIBLE_BECOME_USER); become set by the become setting (ANSIBLE_BECOME))")
}

// --vault-pass-file and --vault-id are options, and the plaintext of a
// vault value reaches the task; a wrong password never shows ciphertext
// as the value.
func TestCLIVaultOptions(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	text, err := vault.Encrypt([]byte("s3cret"), []byte("pw1"), "")
	require.NoError(t, err)
	indented := "    v: !vault |\n      " + strings.ReplaceAll(strings.TrimSpace(string(text)), "\n", "\n      ") + "\n"
	writeFiles(t, dir, map[string]string{
		"pw": "pw1\n", "bad": "nope\n",
		"pb.yml": "- hosts: localhost\n  gather_facts: false\n  vars:\n" + indented + "  tasks:\n    - debug: msg=\"got {{ v }}\"\n",
	})
	for _, args := range [][]string{{"--vault-pass-file", "pw"}, {"--vault-password-file", "pw"}, {"--vault-id", "pw"}, {"--vault-id", "x@bad", "--vault-id", "y@pw"}} {
		res := runCLIProcess(t, dir, home, append(append([]string{"-i", "localhost,"}, args...), "pb.yml")...)
		require.Equal(t, 0, res.rc, "%v: %s%s", args, res.stdout, res.stderr)
		require.Contains(t, res.stdout, `"msg": "got s3cret"`)
	}
	res := runCLIEnv(t, dir, home, []string{"ANSIBLE_VAULT_PASSWORD_FILE=" + filepath.Join(dir, "pw")}, "-i", "localhost,", "pb.yml")
	require.Equal(t, 0, res.rc, res.stdout+res.stderr)
	require.Contains(t, res.stdout, `"msg": "got s3cret"`)

	res = runCLIProcess(t, dir, home, "-i", "localhost,", "--vault-id", "bad", "pb.yml")
	require.Equal(t, 2, res.rc)
	require.Contains(t, res.stdout, "Attempt to use undecryptable variable: Decryption failed (no vault secrets were found that could decrypt).")
	require.NotContains(t, res.stdout, "$ANSIBLE_VAULT")

	res = runCLIProcess(t, dir, home, "-i", "localhost,", "--ask-vault-pass", "pb.yml")
	require.Equal(t, 1, res.rc)
	require.Contains(t, res.stderr, "cfzt-runner does not prompt for vault passwords")
}

func TestVaultCommandRoundTrip(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	require.NoError(t, os.WriteFile(pw, []byte("pw1\n"), 0o600))
	var out, errOut strings.Builder
	require.Equal(t, 0, runVaultCommand([]string{"encrypt_string", "--vault-id", "dev@" + pw, "--name", "x", "s3cret"}, &out, &errOut), errOut.String())
	require.True(t, strings.HasPrefix(out.String(), "x: !vault |\n          $ANSIBLE_VAULT;1.2;AES256;dev\n"), out.String())
	body := strings.TrimPrefix(out.String(), "x: !vault |\n")
	file := filepath.Join(dir, "enc")
	require.NoError(t, os.WriteFile(file, []byte(strings.ReplaceAll(body, "          ", "")), 0o600))
	out.Reset()
	require.Equal(t, 0, runVaultCommand([]string{"view", "--vault-pass-file", pw, file}, &out, &errOut), errOut.String())
	require.Equal(t, "s3cret", out.String())

	bad := filepath.Join(dir, "bad")
	require.NoError(t, os.WriteFile(bad, []byte("nope\n"), 0o600))
	out.Reset()
	errOut.Reset()
	require.Equal(t, 1, runVaultCommand([]string{"view", "--vault-password-file", bad, file}, &out, &errOut))
	require.Empty(t, out.String())
	require.Contains(t, errOut.String(), "Decryption failed (no vault secrets were found that could decrypt) for "+file)
	require.Equal(t, 1, runVaultCommand([]string{"encrypt_string", "x"}, &out, &errOut))
}
