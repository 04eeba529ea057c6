//go:build unix && !linux

package kubetest

import "syscall"

// sysProcAttr puts the apiserver in its own process group, so that Stop can
// signal everything it started. Only Linux can also kill it when the test
// binary dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

func signalGroup(pid int, sig syscall.Signal) {
	if err := syscall.Kill(-pid, sig); err != nil {
		_ = syscall.Kill(pid, sig)
	}
}
