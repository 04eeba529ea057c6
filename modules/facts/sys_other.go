//go:build !linux

package facts

import (
	"os"
	"runtime"
	"strings"
)

// uname is the kernel's uname(2) answer; outside Linux only the system
// name and host name are known.
type uname struct{ sysname, nodename, release, version, machine string }

func unameInfo() uname {
	host, _ := os.Hostname()
	return uname{sysname: strings.ToUpper(runtime.GOOS[:1]) + runtime.GOOS[1:], nodename: host, machine: runtime.GOARCH}
}

func mountSize(string) map[string]int64 { return nil }

func sameRoot() (same, ok bool) { return true, false }

func rootInode() uint64 { return 2 }
