package main

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
)

// withUserHome makes the run see the private home's .kube directory at
// the user's own home (from the password database) too. ansible-core
// expands a leading ~ of a path on the managed host (copy's dest) to the
// remote user's home, ~root here, not to $HOME, which the targets' other
// paths use; in CI both are the same directory. The bind mount lives in a
// private mount namespace (unshare, as root); elsewhere argv runs as it is.
func withUserHome(argv []string, home string) []string {
	u, err := user.Current()
	unshare, lerr := exec.LookPath("unshare")
	if err != nil || lerr != nil || os.Geteuid() != 0 || u.HomeDir == "" || u.HomeDir == home {
		return argv
	}
	point := filepath.Join(u.HomeDir, ".kube")
	// The mount point stays afterwards: removing it would detach the bind
	// mounts of concurrent runs on it (Linux detaches the mounts of other
	// namespaces on a removed mount point).
	if _, err := os.Lstat(point); os.IsNotExist(err) {
		if os.Mkdir(point, 0o700) != nil {
			return argv
		}
	}
	script := `mount --make-rprivate / && mount --bind "$1" "$2" && shift 2 && exec "$@"`
	out := append([]string{unshare, "--mount", "--", "sh", "-c", script, "sh", filepath.Join(home, ".kube"), point}, argv...)
	return out
}
