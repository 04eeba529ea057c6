// Package files implements ansible.builtin's file modules natively: file,
// copy, stat, lineinfile, blockinfile, replace, tempfile, find, fetch,
// get_url, assemble and unarchive, with ansible-core 2.19's arguments,
// result keys, messages, check mode and diff shapes. The helpers for the
// file common arguments (mode, owner, group, attributes), atomic writes,
// backups and diffs are shared by every module here and by the template
// module (see WriteRendered).
package files

import "github.com/cfzt/cfzt-runner/engine/module"

// Entries returns the file modules for the registry.
func Entries() []module.Entry {
	return []module.Entry{
		fileDef().entry(),
		statDef().entry(),
		copyActionEntry(),
		findDef().entry(),
		lineinfileDef().entry(),
		blockinfileDef().entry(),
		replaceDef().entry(),
		tempfileDef().entry(),
		fetchEntry(),
		assembleEntry(),
		getURLDef().entry(),
		iniFileEntry(),
		filesizeEntry(),
		unarchiveEntry(),
	}
}
