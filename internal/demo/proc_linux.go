package demo

import "syscall"

// sysProcAttr kills a tier with the demo, even when the demo is killed.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
