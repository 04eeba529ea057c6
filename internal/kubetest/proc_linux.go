package kubetest

import "syscall"

// sysProcAttr puts the apiserver in its own process group, so that Stop can
// signal everything it started, and makes the kernel kill it when the test
// binary dies, so that no orphan apiserver is left behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func signalGroup(pid int, sig syscall.Signal) {
	if err := syscall.Kill(-pid, sig); err != nil {
		_ = syscall.Kill(pid, sig)
	}
}
