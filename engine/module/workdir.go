package module

import (
	"os"
	"path/filepath"
	"sync"
)

// workDirMu serialises the module runs that change the process's working
// directory (see InBaseDir).
var workDirMu sync.Mutex

// InBaseDir runs fn in the request's base directory when one of paths is
// relative and that directory is not already the working directory.
// ansible-core starts a module on the local connection in the playbook's
// directory, so a relative path in its arguments resolves there and is
// reported as written. The working directory belongs to the whole process,
// so such runs are serialised and the directory is restored afterwards;
// runs with absolute paths (the usual case) change nothing.
func InBaseDir(req *Request, paths []string, fn func()) {
	relative := false
	for _, p := range paths {
		if p != "" && !filepath.IsAbs(p) {
			relative = true
		}
	}
	dir := req.BaseDir()
	wd, err := os.Getwd()
	if !relative || err != nil || dir == wd {
		fn()
		return
	}
	workDirMu.Lock()
	defer workDirMu.Unlock()
	if os.Chdir(dir) != nil {
		fn()
		return
	}
	defer func() { _ = os.Chdir(wd) }()
	fn()
}
