//go:build !linux

package demo

import "syscall"

// sysProcAttr has no parent-death signal outside Linux; the demo stops its
// tiers on exit and on interrupt.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
