package files

import "github.com/cfzt/cfzt-runner/engine/module/argspec"

// Specs returns the argument specs this package's modules validate with,
// by fully qualified name, for `cfzt-runner doc`. A module absent here
// checks its arguments in its own code.
func Specs() map[string]*argspec.Spec {
	return map[string]*argspec.Spec{
		"ansible.builtin.file":        fileDef().spec,
		"ansible.builtin.stat":        statDef().spec,
		"ansible.builtin.copy":        copyModuleDef().spec,
		"ansible.builtin.find":        findDef().spec,
		"ansible.builtin.lineinfile":  lineinfileDef().spec,
		"ansible.builtin.blockinfile": blockinfileDef().spec,
		"ansible.builtin.replace":     replaceDef().spec,
		"ansible.builtin.tempfile":    tempfileDef().spec,
		"ansible.builtin.assemble":    assembleModuleDef().spec,
		"ansible.builtin.get_url":     getURLDef().spec,
		"community.general.ini_file":  iniFileDef().spec,
		"community.general.filesize":  filesizeDef().spec,
		"ansible.builtin.unarchive":   unarchiveDef("").spec,
	}
}
