package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/settings"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// config is the part of ansible-core's configuration cfzt-runner uses,
// from the ansible.cfg in use and the ANSIBLE_* environment.
type config struct {
	// path is the config file in use ("" for none); message the -v line
	// that says so.
	path    string
	message string
	// warnings are problems found while looking for the file.
	warnings  []string
	rolesPath []string
	// collectionsPaths hold installed collections.
	collectionsPaths []string
	// stdoutCallback is [defaults] stdout_callback or
	// ANSIBLE_STDOUT_CALLBACK.
	stdoutCallback string
	// mergeHashes is hash_behaviour=merge.
	mergeHashes bool
	// privateRoleVars is private_role_vars when it is set (nil if not).
	privateRoleVars *bool
	// hostPatternMismatch is what a host pattern that matches nothing
	// causes: warning, error or ignore.
	hostPatternMismatch string
	// gathering is DEFAULT_GATHERING, injectFacts INJECT_FACTS_AS_VARS
	// and showCustomStats SHOW_CUSTOM_STATS.
	gathering                    string
	injectFacts, showCustomStats bool
	// ini is the config file's contents.
	ini iniFile
	err error
}

// pathValue is the ansible_config_file magic variable: the path or None.
func (c config) pathValue() any {
	if c.path == "" {
		return nil
	}
	return c.path
}

// iniFile is an ansible.cfg as configparser reads it.
type iniFile settings.File

// setting reads a setting from its environment variable, then the
// config file, then its default; fromFile tells where it came from.
func (f iniFile) setting(env, section, key, def string) (v string, set, fromFile bool) {
	if v, ok := os.LookupEnv(env); ok {
		return v, true, false
	}
	if v, ok := settings.File(f).Get(section, key); ok {
		return v, true, true
	}
	return def, false, false
}

// settings is where the config lookup and lookup options read settings:
// the environment and the config file in use.
func (c config) settings() *settings.Source {
	return &settings.Source{Path: c.path, File: settings.File(c.ini)}
}

// loadConfig finds and reads the config file as ansible-core does
// (ANSIBLE_CONFIG, ./ansible.cfg unless the directory is world-writable,
// ~/.ansible.cfg, /etc/ansible/ansible.cfg) and applies the environment.
func loadConfig() config {
	c := config{message: "No config file found; using defaults"}
	ini := iniFile{}
	c.path, c.warnings = findConfigFile()
	if c.path != "" {
		if data, err := os.ReadFile(c.path); err == nil {
			ini = iniFile(settings.ParseINI(string(data)))
			c.message = "Using " + c.path + " as config file"
		} else {
			c.path = ""
		}
	}
	c.ini = ini
	base := filepath.Dir(c.path)
	cwd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	paths := func(env, key, def string) []string {
		v, set, fromFile := ini.setting(env, "defaults", key, def)
		switch {
		case fromFile:
			return splitPaths(v, base)
		case set:
			return splitPaths(v, cwd)
		}
		return splitPaths(v, "")
	}
	c.rolesPath = paths("ANSIBLE_ROLES_PATH", "roles_path", "~/.ansible/roles:/usr/share/ansible/roles:/etc/ansible/roles")
	c.collectionsPaths = paths("ANSIBLE_COLLECTIONS_PATH", "collections_path", filepath.Join(home, ".ansible", "collections")+":/usr/share/ansible/collections")
	hb, _, _ := ini.setting("ANSIBLE_HASH_BEHAVIOUR", "defaults", "hash_behaviour", "replace")
	c.mergeHashes = strings.TrimSpace(hb) == "merge"
	if v, set, _ := ini.setting("ANSIBLE_PRIVATE_ROLE_VARS", "defaults", "private_role_vars", ""); set {
		private := truthy(v)
		c.privateRoleVars = &private
	}
	c.hostPatternMismatch, _, _ = ini.setting("ANSIBLE_HOST_PATTERN_MISMATCH", "inventory", "host_pattern_mismatch", "warning")
	gathering, _, _ := ini.setting("ANSIBLE_GATHERING", "defaults", "gathering", "implicit")
	c.gathering = strings.ToLower(strings.TrimSpace(gathering))
	inject, _, _ := ini.setting("ANSIBLE_INJECT_FACT_VARS", "defaults", "inject_facts_as_vars", "true")
	c.injectFacts = truthy(inject)
	show, _, _ := ini.setting("ANSIBLE_SHOW_CUSTOM_STATS", "defaults", "show_custom_stats", "false")
	c.showCustomStats = truthy(show)
	c.stdoutCallback, _, _ = ini.setting("ANSIBLE_STDOUT_CALLBACK", "defaults", "stdout_callback", "default")
	switch c.stdoutCallback {
	case "default", "ansible.builtin.default":
	case "":
		c.err = fmt.Errorf("No stdout callback name provided.")
	default:
		c.warnings = append(c.warnings, fmt.Sprintf("The stdout callback '%s' is not available in cfzt-runner; the 'default' callback is used instead.", c.stdoutCallback))
	}
	return c
}

// findConfigFile returns the config file ansible-core would use, and the
// warning it gives for an ansible.cfg it ignores in a world-writable
// working directory.
func findConfigFile() (string, []string) {
	var candidates []string
	fromEnv, envSet := os.LookupEnv("ANSIBLE_CONFIG")
	if envSet {
		fromEnv = absPath(fromEnv)
		if st, err := os.Stat(fromEnv); err == nil && st.IsDir() {
			fromEnv = filepath.Join(fromEnv, "ansible.cfg")
		}
		candidates = append(candidates, fromEnv)
	}
	cwd, _ := os.Getwd()
	worldWritable := false
	if st, err := os.Stat(cwd); err == nil && st.Mode().Perm()&0o002 != 0 {
		worldWritable = fileReadable(filepath.Join(cwd, "ansible.cfg"))
	} else {
		candidates = append(candidates, filepath.Join(cwd, "ansible.cfg"))
	}
	candidates = append(candidates, absPath("~/.ansible.cfg"), "/etc/ansible/ansible.cfg")
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
			"For more information see https://docs.ansible.com/ansible/devel/reference_appendices/config.html#cfg-in-world-writable-dir", cwd))
	}
	return found, warnings
}

// absPath expands ~ and makes p absolute, without resolving links.
func absPath(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, _ := os.UserHomeDir()
		p = filepath.Join(home, p[1:])
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func fileReadable(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// truthy reads a boolean setting as ansible-core's config does.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "y", "on", "t":
		return true
	}
	return false
}

// splitPaths splits a pathspec list, expanding ~ and making relative
// entries relative to base, as ansible-core's config does.
func splitPaths(v, base string) []string {
	home, _ := os.UserHomeDir()
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

// newLoader returns a playbook loader with the configuration's role and
// variable settings, rendering load-time templates with eng.
func (c config) newLoader(reg *module.Registry, eng *template.Engine, extra *value.Dict) *playbook.Loader {
	l := playbook.NewLoader(reg, c.rolesPath)
	l.CollectionsPaths = c.collectionsPaths
	l.MergeHashes = c.mergeHashes
	l.PrivateRoleVars = c.privateRoleVars
	l.ExtraVars = extra
	l.Render = run.LoaderRenderer(eng, c.mergeHashes)
	return l
}
