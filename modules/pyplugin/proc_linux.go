package pyplugin

import "syscall"

// procAttr puts the helper in its own process group (a terminal's ^C is
// the runner's to handle) and has the kernel kill it if the runner dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
