package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// findFile returns the config file ansible-core would use, and the
// warning it gives for an ansible.cfg it ignores in a world-writable
// working directory.
func findFile(env Environment) (string, []string) {
	var candidates []string
	fromEnv, envSet := env.Lookup("ANSIBLE_CONFIG")
	if envSet {
		fromEnv = absPath(fromEnv, env)
		if st, err := os.Stat(fromEnv); err == nil && st.IsDir() {
			fromEnv = filepath.Join(fromEnv, "ansible.cfg")
		}
		candidates = append(candidates, fromEnv)
	}
	worldWritable := false
	if st, err := os.Stat(env.Dir); err == nil && st.Mode().Perm()&0o002 != 0 {
		worldWritable = fileReadable(filepath.Join(env.Dir, "ansible.cfg"))
	} else {
		candidates = append(candidates, filepath.Join(env.Dir, "ansible.cfg"))
	}
	candidates = append(candidates, absPath("~/.ansible.cfg", env), "/etc/ansible/ansible.cfg")
	found := ""
	for _, p := range candidates {
		if fileReadable(p) {
			found = p
			break
		}
	}
	var warnings []string
	if worldWritable && (!envSet || found != fromEnv) {
		warnings = append(warnings, fmt.Sprintf("Ansible is being run in a world writable directory (%s), ignoring it as an ansible.cfg source. "+
			"For more information see https://docs.ansible.com/ansible/devel/reference_appendices/config.html#cfg-in-world-writable-dir", env.Dir))
	}
	return found, warnings
}

// absPath expands ~ and makes p absolute (relative to the working
// directory), without resolving links.
func absPath(p string, env Environment) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = filepath.Join(env.Home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(env.Dir, p)
	}
	return filepath.Clean(p)
}

func fileReadable(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// splitPaths splits a pathspec list, expanding ~ and making relative
// entries relative to base, as ansible-core's config does.
func splitPaths(v, base, home string) []string {
	var out []string
	for _, p := range filepath.SplitList(v) {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = filepath.Join(home, p[1:])
		} else if !filepath.IsAbs(p) && base != "" {
			p = filepath.Join(base, p)
		}
		out = append(out, p)
	}
	return out
}
