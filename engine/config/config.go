// Package config is ansible-core's configuration as cfzt-runner uses it:
// the settings of the ansible.cfg in use (found as ansible-core finds it)
// overridden by their ANSIBLE_* environment variables, read once into a
// typed Config. Nothing else in cfzt-runner reads ANSIBLE_* settings from
// the environment.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/settings"
)

// Environment is what the configuration is read from.
type Environment struct {
	// Lookup reads an environment variable.
	Lookup func(string) (string, bool)
	// Dir is the working directory and Home the user's home directory.
	Dir, Home string
	// Exported are variables the runs' environment has beyond the
	// process's own, as ansible-operator exports --ansible-roles-path and
	// --ansible-collections-path to its runs (Lookup reads them too).
	Exported map[string]string
}

// Process is the process's own environment, working and home directory.
func Process() Environment {
	dir, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	return Environment{Lookup: os.LookupEnv, Dir: dir, Home: home}
}

// Config is the configuration of one invocation.
type Config struct {
	// File is the config file in use ("" for none).
	File string
	// Warnings are problems found while reading the configuration.
	Warnings []string
	// Err is a setting no run can start with.
	Err error

	// RolesPath is DEFAULT_ROLES_PATH and CollectionsPaths
	// COLLECTIONS_PATHS, with ~ expanded and relative entries made
	// absolute.
	RolesPath, CollectionsPaths []string
	// ModulePath is DEFAULT_MODULE_PATH (ANSIBLE_LIBRARY, `library` in
	// ansible.cfg): where module files are searched for after the
	// library/ directories of playbooks and roles.
	ModulePath []string
	// PluginPaths are DEFAULT_FILTER_PLUGIN_PATH, DEFAULT_TEST_PLUGIN_PATH
	// and DEFAULT_LOOKUP_PLUGIN_PATH (ANSIBLE_FILTER_PLUGINS,
	// `filter_plugins` in ansible.cfg, ...) by kind ("filter", "test",
	// "lookup"): where Python plugins are searched for after the
	// directories of playbooks and roles.
	PluginPaths map[string][]string
	// StdoutCallback is DEFAULT_STDOUT_CALLBACK.
	StdoutCallback string
	// MergeHashes is DEFAULT_HASH_BEHAVIOUR=merge.
	MergeHashes bool
	// Forks is DEFAULT_FORKS: hosts still run in turn, but plays see the
	// number in ansible_forks.
	Forks int
	// PrivateRoleVars is DEFAULT_PRIVATE_ROLE_VARS when it is set (nil if
	// not, which keeps ansible-core's default: imports public, includes
	// private).
	PrivateRoleVars *bool
	// HostPatternMismatch is what a host pattern that matches nothing
	// causes: warning, error or ignore.
	HostPatternMismatch string
	// Gathering is DEFAULT_GATHERING (implicit, explicit or smart),
	// InjectFacts INJECT_FACTS_AS_VARS and ShowCustomStats
	// SHOW_CUSTOM_STATS.
	Gathering                    string
	InjectFacts, ShowCustomStats bool
	// ErrorOnMissingHandler is ERROR_ON_MISSING_HANDLER: a notification no
	// handler answers fails the run (else it is a warning).
	ErrorOnMissingHandler bool
	// DiffAlways is DIFF_ALWAYS: the default of --diff.
	DiffAlways bool
	// AllowBrokenConditionals is ALLOW_BROKEN_CONDITIONALS: a conditional
	// whose result is not a boolean (or that is empty, or not a string)
	// is taken by Python truthiness, with a deprecation warning, instead
	// of failing the task.
	AllowBrokenConditionals bool
	// AllowEmbeddedTemplates is ALLOW_EMBEDDED_TEMPLATES (true by
	// default in 2.19): templates in the string constants of conditionals
	// and in lookup terms are rendered, with a warning.
	AllowEmbeddedTemplates bool
	// DeprecationWarnings is DEPRECATION_WARNINGS: false drops the
	// [DEPRECATION WARNING]s of a run (those ALLOW_BROKEN_CONDITIONALS
	// turns errors into, among others).
	DeprecationWarnings bool
	// Vault are the vault settings (vault.go).
	Vault Vault
	// Escalation are the become and connection defaults (become.go).
	Escalation Escalation
	// DisplaySkippedHosts and DisplayOKHosts are the default callback's
	// display_skipped_hosts and display_ok_hosts.
	DisplaySkippedHosts, DisplayOKHosts bool
	// ResultFormat is the default callback's result_format (json, yaml).
	ResultFormat string
	// CallbacksEnabled is CALLBACKS_ENABLED: the aggregate callbacks to
	// load, as named (profile_tasks, ansible.posix.timer, ...).
	CallbacksEnabled []string
	// InventoryAnyUnparsedIsFailed is INVENTORY_ANY_UNPARSED_IS_FAILED (a
	// source no plugin parses ends the run) and InventoryUnparsedIsFailed
	// INVENTORY_UNPARSED_IS_FAILED (no source parsed ends it).
	InventoryAnyUnparsedIsFailed, InventoryUnparsedIsFailed bool
	// LogPath is DEFAULT_LOG_PATH: the file the display also logs to ("" for none).
	LogPath string
	// Callback holds the callbacks' own options: profile_tasks'
	// ProfileTasksLimit ("all" or a number), ProfileTasksSort and
	// ProfileTasksSummaryOnly, profile_roles' ProfileRolesSummaryOnly,
	// and the json callback's JSONIndent.
	ProfileTasksLimit, ProfileTasksSort              string
	ProfileTasksSummaryOnly, ProfileRolesSummaryOnly bool
	JSONIndent                                       int

	// The settings below are read from the environment only.

	// Inventory is DEFAULT_HOST_LIST from ANSIBLE_INVENTORY (nil unset).
	Inventory []string
	// InventoryUnparsedWarning is INVENTORY_UNPARSED_WARNING and
	// LocalhostWarning LOCALHOST_WARNING.
	InventoryUnparsedWarning, LocalhostWarning bool
	// Verbosity is ANSIBLE_VERBOSITY when VerbositySet.
	Verbosity    int
	VerbositySet bool
	// NoColor is ANSIBLE_NOCOLOR (or NO_COLOR), ForceColor
	// ANSIBLE_FORCE_COLOR.
	NoColor, ForceColor bool

	// ini is the config file's contents and lookup the environment, which
	// the config lookup reads any setting from (Settings).
	ini    settings.File
	lookup func(string) (string, bool)
}

// setting is one setting that ansible.cfg and the environment may set.
type setting struct{ env, section, key, def string }

// The ansible.cfg settings cfzt-runner reads, as ansible-core's
// base.yml names them.
var (
	rolesPathSetting   = setting{"ANSIBLE_ROLES_PATH", "defaults", "roles_path", "~/.ansible/roles:/usr/share/ansible/roles:/etc/ansible/roles"}
	pluginPathSettings = map[string]setting{
		"filter": {"ANSIBLE_FILTER_PLUGINS", "defaults", "filter_plugins", "~/.ansible/plugins/filter:/usr/share/ansible/plugins/filter"},
		"test":   {"ANSIBLE_TEST_PLUGINS", "defaults", "test_plugins", "~/.ansible/plugins/test:/usr/share/ansible/plugins/test"},
		"lookup": {"ANSIBLE_LOOKUP_PLUGINS", "defaults", "lookup_plugins", "~/.ansible/plugins/lookup:/usr/share/ansible/plugins/lookup"},
	}
	modulePathSetting      = setting{"ANSIBLE_LIBRARY", "defaults", "library", "~/.ansible/plugins/modules:/usr/share/ansible/plugins/modules"}
	collectionsSetting     = setting{"ANSIBLE_COLLECTIONS_PATH", "defaults", "collections_path", "~/.ansible/collections:/usr/share/ansible/collections"}
	hashBehaviourSetting   = setting{"ANSIBLE_HASH_BEHAVIOUR", "defaults", "hash_behaviour", "replace"}
	privateRoleVarsSetting = setting{"ANSIBLE_PRIVATE_ROLE_VARS", "defaults", "private_role_vars", ""}
	patternMismatchSetting = setting{"ANSIBLE_HOST_PATTERN_MISMATCH", "inventory", "host_pattern_mismatch", "warning"}
	gatheringSetting       = setting{"ANSIBLE_GATHERING", "defaults", "gathering", "implicit"}
	injectFactsSetting     = setting{"ANSIBLE_INJECT_FACT_VARS", "defaults", "inject_facts_as_vars", "true"}
	customStatsSetting     = setting{"ANSIBLE_SHOW_CUSTOM_STATS", "defaults", "show_custom_stats", "false"}
	stdoutCallbackSetting  = setting{"ANSIBLE_STDOUT_CALLBACK", "defaults", "stdout_callback", "default"}
	forksSetting           = setting{"ANSIBLE_FORKS", "defaults", "forks", "5"}
	missingHandlerSetting  = setting{"ANSIBLE_ERROR_ON_MISSING_HANDLER", "defaults", "error_on_missing_handler", "true"}
	diffAlwaysSetting      = setting{"ANSIBLE_DIFF_ALWAYS", "diff", "always", "false"}
	displaySkippedSetting  = setting{"ANSIBLE_DISPLAY_SKIPPED_HOSTS", "defaults", "display_skipped_hosts", "true"}
	displayOKSetting       = setting{"ANSIBLE_DISPLAY_OK_HOSTS", "defaults", "display_ok_hosts", "true"}
	resultFormatSetting    = setting{"ANSIBLE_CALLBACK_RESULT_FORMAT", "defaults", "callback_result_format", "json"}
	callbacksSetting       = setting{"ANSIBLE_CALLBACKS_ENABLED", "defaults", "callbacks_enabled", ""}
	logPathSetting         = setting{"ANSIBLE_LOG_PATH", "defaults", "log_path", ""}
	nocolorSetting         = setting{"ANSIBLE_NOCOLOR", "defaults", "nocolor", "false"}
	forceColorSetting      = setting{"ANSIBLE_FORCE_COLOR", "defaults", "force_color", "false"}
	inventorySetting       = setting{"ANSIBLE_INVENTORY", "defaults", "inventory", ""}
	anyUnparsedSetting     = setting{"ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED", "inventory", "any_unparsed_is_failed", "false"}
	unparsedFailedSetting  = setting{"ANSIBLE_INVENTORY_UNPARSED_FAILED", "inventory", "unparsed_is_failed", "false"}
	profileLimitSetting    = setting{"PROFILE_TASKS_TASK_OUTPUT_LIMIT", "callback_profile_tasks", "task_output_limit", "20"}
	profileSortSetting     = setting{"PROFILE_TASKS_SORT_ORDER", "callback_profile_tasks", "sort_order", "descending"}
	profileSummarySetting  = setting{"PROFILE_TASKS_SUMMARY_ONLY", "callback_profile_tasks", "summary_only", "false"}
	rolesSummarySetting    = setting{"PROFILE_ROLES_SUMMARY_ONLY", "callback_profile_roles", "summary_only", "false"}
	jsonIndentSetting      = setting{"ANSIBLE_JSON_INDENT", "defaults", "json_indent", "4"}
	brokenCondSetting      = setting{"ANSIBLE_ALLOW_BROKEN_CONDITIONALS", "defaults", "allow_broken_conditionals", "false"}
	embeddedTmplSetting    = setting{"ANSIBLE_ALLOW_EMBEDDED_TEMPLATES", "defaults", "allow_embedded_templates", "true"}
	deprecationsSetting    = setting{"ANSIBLE_DEPRECATION_WARNINGS", "defaults", "deprecation_warnings", "true"}
)

// reader reads settings from the environment, then the config file.
type reader struct {
	env Environment
	ini settings.File
	// base is the config file's directory, which relative paths in the
	// file are relative to.
	base string
}

// get returns a setting's value; set reports that the environment or the
// file gave it, fromFile that the file did.
func (r *reader) get(s setting) (v string, set, fromFile bool) {
	if v, ok := r.env.Lookup(s.env); ok {
		return v, true, false
	}
	if v, ok := r.ini.Get(s.section, s.key); ok {
		return v, true, true
	}
	return s.def, false, false
}

func (r *reader) str(s setting) string {
	v, _, _ := r.get(s)
	return v
}

// boolean reads a boolean setting as ansible-core's config does: an
// unrecognised value is false.
func (r *reader) boolean(s setting) bool {
	b, _ := py.LenientBoolean(r.str(s))
	return b
}

// paths reads a pathspec setting: relative entries are relative to the
// config file when it gave them, else to the working directory.
func (r *reader) paths(s setting) []string {
	v, set, fromFile := r.get(s)
	switch {
	case fromFile:
		return splitPaths(v, r.base, r.env.Home)
	case set:
		return splitPaths(v, r.env.Dir, r.env.Home)
	}
	return splitPaths(v, "", r.env.Home)
}

// Load finds and reads the config file as ansible-core does
// (ANSIBLE_CONFIG, ./ansible.cfg unless the directory is world-writable,
// ~/.ansible.cfg, /etc/ansible/ansible.cfg) and applies the environment.
func Load(env Environment) *Config {
	c := &Config{lookup: env.Lookup}
	r := &reader{env: env, ini: settings.File{}}
	c.File, c.Warnings = findFile(env)
	if c.File != "" {
		if data, err := os.ReadFile(c.File); err == nil {
			r.ini = settings.ParseINI(string(data))
		} else {
			c.File = ""
		}
	}
	c.ini = r.ini
	r.base = filepath.Dir(c.File)
	c.RolesPath = r.paths(rolesPathSetting)
	c.CollectionsPaths = r.paths(collectionsSetting)
	c.ModulePath = r.paths(modulePathSetting)
	c.PluginPaths = map[string][]string{}
	for kind, st := range pluginPathSettings {
		c.PluginPaths[kind] = r.paths(st)
	}
	c.MergeHashes = strings.TrimSpace(r.str(hashBehaviourSetting)) == "merge"
	if n, err := strconv.Atoi(strings.TrimSpace(r.str(forksSetting))); err == nil {
		c.Forks = n
	}
	if v, set, _ := r.get(privateRoleVarsSetting); set {
		private, _ := py.LenientBoolean(v)
		c.PrivateRoleVars = &private
	}
	c.HostPatternMismatch = r.str(patternMismatchSetting)
	c.Gathering = strings.ToLower(strings.TrimSpace(r.str(gatheringSetting)))
	c.InjectFacts = r.boolean(injectFactsSetting)
	c.ErrorOnMissingHandler = r.boolean(missingHandlerSetting)
	c.ShowCustomStats = r.boolean(customStatsSetting)
	c.DiffAlways = r.boolean(diffAlwaysSetting)
	c.AllowBrokenConditionals = r.boolean(brokenCondSetting)
	c.AllowEmbeddedTemplates = r.boolean(embeddedTmplSetting)
	c.DeprecationWarnings = r.boolean(deprecationsSetting)
	c.Vault = r.vault()
	c.Escalation = r.escalation()
	c.DisplaySkippedHosts = r.boolean(displaySkippedSetting)
	c.DisplayOKHosts = r.boolean(displayOKSetting)
	c.ResultFormat = strings.ToLower(strings.TrimSpace(r.str(resultFormatSetting)))
	for _, name := range strings.Split(r.str(callbacksSetting), ",") {
		if name = strings.TrimSpace(name); name != "" {
			c.CallbacksEnabled = append(c.CallbacksEnabled, name)
		}
	}
	if v, set, _ := r.get(logPathSetting); set && strings.TrimSpace(v) != "" {
		c.LogPath = expandHome(strings.TrimSpace(v), env)
	}
	c.InventoryAnyUnparsedIsFailed = r.boolean(anyUnparsedSetting)
	c.InventoryUnparsedIsFailed = r.boolean(unparsedFailedSetting)
	c.ProfileTasksLimit = strings.TrimSpace(r.str(profileLimitSetting))
	c.ProfileTasksSort = strings.TrimSpace(r.str(profileSortSetting))
	c.ProfileTasksSummaryOnly = r.boolean(profileSummarySetting)
	c.ProfileRolesSummaryOnly = r.boolean(rolesSummarySetting)
	c.JSONIndent = 4
	if n, err := strconv.Atoi(strings.TrimSpace(r.str(jsonIndentSetting))); err == nil {
		c.JSONIndent = n
	}
	// ansible.cfg may set nocolor and force_color; the environment
	// (ANSIBLE_NOCOLOR, NO_COLOR, ANSIBLE_FORCE_COLOR) wins.
	c.NoColor, c.ForceColor = r.boolean(nocolorSetting), r.boolean(forceColorSetting)
	// DEFAULT_HOST_LIST from ansible.cfg is a pathlist: comma-separated,
	// each relative to the config file's directory.
	if _, set, fromFile := r.get(inventorySetting); set && fromFile {
		v, _ := r.ini.Get("defaults", "inventory")
		for _, p := range strings.Split(v, ",") {
			c.Inventory = append(c.Inventory, splitPaths(strings.TrimSpace(p), r.base, env.Home)...)
		}
	}
	c.StdoutCallback = r.str(stdoutCallbackSetting)
	switch c.StdoutCallback {
	case "json", "ansible.posix.json":
		c.StdoutCallback = "ansible.posix.json"
	case "minimal", "ansible.builtin.minimal":
		c.StdoutCallback = "ansible.builtin.minimal"
	case "oneline", "ansible.builtin.oneline":
		c.StdoutCallback = "ansible.builtin.oneline"
	case "default", "ansible.builtin.default":
	case "yaml", "community.general.yaml":
		// community.general's yaml callback: the default callback with its
		// own YAML results (see display.Default.CommunityYAML).
		c.StdoutCallback = "community.general.yaml"
	case "":
		c.Err = fmt.Errorf("No stdout callback name provided.")
	default:
		// ansible-playbook stops when it cannot load the stdout callback;
		// a callback that Ansible has and cfzt-runner lacks is refused the
		// same way, never replaced by another.
		c.Err = fmt.Errorf("Could not load '%s' callback plugin.", c.StdoutCallback)
	}
	c.readEnvironment(env)
	return c
}

// CallbackDeprecation is the deprecation the stdout callback in use
// announces when it loads (community.general's yaml callback), or nil.
func (c *Config) CallbackDeprecation() *diag.Diagnostic {
	if c.StdoutCallback == "ansible.builtin.oneline" {
		return &diag.Diagnostic{Severity: diag.Deprecation, Version: "2.23", Summary: "The oneline callback plugin is deprecated."}
	}
	if c.StdoutCallback != "community.general.yaml" {
		return nil
	}
	return &diag.Diagnostic{Severity: diag.Deprecation, Version: "12.0.0", Collection: "community.general",
		Summary: "community.general.yaml has been deprecated. The plugin has been superseded by the the option `result_format=yaml` in callback plugin ansible.builtin.default from ansible-core 2.13 onwards."}
}

// readEnvironment reads the settings cfzt-runner takes from the
// environment only.
func (c *Config) readEnvironment(env Environment) {
	get := func(name string) string {
		v, _ := env.Lookup(name)
		return v
	}
	if v := get("ANSIBLE_INVENTORY"); v != "" {
		c.Inventory = strings.Split(v, ",")
	}
	c.InventoryUnparsedWarning = envBool(env, "ANSIBLE_INVENTORY_UNPARSED_WARNING", true)
	c.LocalhostWarning = envBool(env, "ANSIBLE_LOCALHOST_WARNING", true)
	if v := get("ANSIBLE_VERBOSITY"); v != "" {
		c.VerbositySet = true
		c.Verbosity = leadingInt(v)
	}
	if nocolor, ok := env.Lookup("ANSIBLE_NOCOLOR"); ok {
		c.NoColor = nocolor != "" && nocolor != "0" && strings.ToLower(nocolor) != "false"
	} else if get("NO_COLOR") != "" {
		c.NoColor = true
	}
	if force, ok := env.Lookup("ANSIBLE_FORCE_COLOR"); ok {
		c.ForceColor = force != "" && force != "0" && strings.ToLower(force) != "false"
	}
}

// expandHome expands a leading ~ of a path setting.
func expandHome(p string, env Environment) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		return filepath.Join(env.Home, p[1:])
	}
	return p
}

// envBool reads a boolean setting from the environment; an unset or
// unrecognised value is def.
func envBool(env Environment, name string, def bool) bool {
	v, ok := env.Lookup(name)
	if !ok {
		return def
	}
	if b, known := py.LenientBoolean(v); known {
		return b
	}
	return def
}

// leadingInt reads the integer a value starts with (0 when none), as the
// command line has always read ANSIBLE_VERBOSITY.
func leadingInt(v string) int {
	v = strings.TrimSpace(v)
	end := 0
	for end < len(v) && (v[end] >= '0' && v[end] <= '9' || end == 0 && (v[end] == '-' || v[end] == '+')) {
		end++
	}
	n, _ := strconv.Atoi(v[:end])
	return n
}

// Settings is where the config lookup and lookup options read settings
// from: the environment and the config file in use.
func (c *Config) Settings() *settings.Source {
	return &settings.Source{Path: c.File, File: c.ini, Getenv: c.lookup}
}

// Message is the line -v shows about the config file.
func (c *Config) Message() string {
	if c.File == "" {
		return "No config file found; using defaults"
	}
	return "Using " + c.File + " as config file"
}

// FileValue is the ansible_config_file magic variable: the path, or None.
func (c *Config) FileValue() any {
	if c.File == "" {
		return nil
	}
	return c.File
}

// Color reports whether output is coloured, as ansible-core's
// constants decide it: always with force_color (ANSIBLE_FORCE_COLOR),
// else never with nocolor (ANSIBLE_NOCOLOR, NO_COLOR), else on a
// terminal.
func (c *Config) Color(terminal bool) bool {
	switch {
	case c.ForceColor:
		return true
	case c.NoColor:
		return false
	}
	return terminal
}

// InventorySources are the inventory sources of a run: those given on
// the command line, else ANSIBLE_INVENTORY's, else fallback.
func (c *Config) InventorySources(given, fallback []string) []string {
	switch {
	case len(given) > 0:
		return given
	case len(c.Inventory) > 0:
		return c.Inventory
	}
	return fallback
}
