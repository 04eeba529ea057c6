//go:build !linux

package pyplugin

import "syscall"

// procAttr puts the helper in its own process group.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
