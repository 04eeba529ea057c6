package settings

import "strings"

// Def defines one setting or plugin option: where its value may come
// from (highest first: a direct value, play variables, environment
// variables, the config file), its default, its type for EnsureType and
// its allowed values.
type Def struct {
	// Vars lists play variables; the last one defined wins.
	Vars []string
	// Env lists environment variables; the last one set wins.
	Env []string
	// Ini lists config file entries; the last one set wins.
	Ini []IniKey
	// Default is used when no source sets the setting; an UnderHome
	// default is relative to ANSIBLE_HOME.
	Default any
	Type    string
	Choices []string
	// Deprecated, when set, is shown whenever a source other than the
	// default sets the setting.
	Deprecated *Deprecation
}

// Deprecation says why a setting goes, in which ansible-core version, and
// what to use instead.
type Deprecation struct{ Why, Version, Alternatives string }

// Message is the deprecation warning for the setting named name.
func (d *Deprecation) Message(name string) string {
	alt := d.Alternatives
	if alt == "" {
		alt = "none"
	}
	return name + " option. Reason: " + d.Why + "\nAlternatives: " + alt
}

// IniKey names an ansible.cfg entry.
type IniKey struct{ Section, Key string }

// UnderHome is a default that ansible-core writes as a template over
// ANSIBLE_HOME: the setting's value is ANSIBLE_HOME followed by the string.
type UnderHome string

func defaults(key string) []IniKey { return []IniKey{{"defaults", key}} }

func envs(names ...string) []string { return names }

// coreDefs are the core settings cfzt-runner can report with the config
// lookup, by name: the ones it reads itself (roles and collections paths,
// hash_behaviour, private_role_vars, host_pattern_mismatch,
// stdout_callback, forks, colours) and the ones roles commonly query. A
// name outside this table is reported as having no definition.
func coreDefs() map[string]Def {
	colour := func(name, def string) Def {
		return Def{Env: envs("ANSIBLE_COLOR_" + strings.ToUpper(name)), Ini: []IniKey{{"colors", name}}, Default: def}
	}
	boolean := func(env, section, key string, def bool) Def {
		return Def{Env: envs(env), Ini: []IniKey{{section, key}}, Default: def, Type: "boolean"}
	}
	pluginPath := func(env, key, kind string) Def {
		return Def{Env: envs(env), Ini: defaults(key), Default: UnderHome("/plugins/" + kind + ":/usr/share/ansible/plugins/" + kind), Type: "pathspec"}
	}
	return map[string]Def{
		"ALLOW_BROKEN_CONDITIONALS":      boolean("ANSIBLE_ALLOW_BROKEN_CONDITIONALS", "defaults", "allow_broken_conditionals", false),
		"ALLOW_EMBEDDED_TEMPLATES":       boolean("ANSIBLE_ALLOW_EMBEDDED_TEMPLATES", "defaults", "allow_embedded_templates", true),
		"ANSIBLE_HOME":                   {Env: envs("ANSIBLE_HOME"), Ini: defaults("home"), Default: "~/.ansible", Type: "path"},
		"ANSIBLE_NOCOLOR":                {Env: envs("ANSIBLE_NOCOLOR", "NO_COLOR"), Ini: defaults("nocolor"), Default: false, Type: "boolean"},
		"ANSIBLE_FORCE_COLOR":            boolean("ANSIBLE_FORCE_COLOR", "defaults", "force_color", false),
		"ANY_ERRORS_FATAL":               boolean("ANSIBLE_ANY_ERRORS_FATAL", "defaults", "any_errors_fatal", false),
		"CALLBACKS_ENABLED":              {Env: envs("ANSIBLE_CALLBACKS_ENABLED"), Ini: defaults("callbacks_enabled"), Default: []any{}, Type: "list"},
		"COLLECTIONS_PATHS":              {Env: envs("ANSIBLE_COLLECTIONS_PATH"), Ini: defaults("collections_path"), Default: UnderHome("/collections:/usr/share/ansible/collections"), Type: "pathspec"},
		"COLOR_CHANGED":                  colour("changed", "yellow"),
		"COLOR_CONSOLE_PROMPT":           colour("console_prompt", "white"),
		"COLOR_DEBUG":                    colour("debug", "dark gray"),
		"COLOR_DEPRECATE":                colour("deprecate", "purple"),
		"COLOR_DIFF_ADD":                 colour("diff_add", "green"),
		"COLOR_DIFF_LINES":               colour("diff_lines", "cyan"),
		"COLOR_DIFF_REMOVE":              colour("diff_remove", "red"),
		"COLOR_ERROR":                    colour("error", "red"),
		"COLOR_HIGHLIGHT":                colour("highlight", "white"),
		"COLOR_INCLUDED":                 colour("included", "cyan"),
		"COLOR_OK":                       colour("ok", "green"),
		"COLOR_SKIP":                     colour("skip", "cyan"),
		"COLOR_UNREACHABLE":              colour("unreachable", "bright red"),
		"COLOR_VERBOSE":                  colour("verbose", "blue"),
		"COLOR_WARN":                     colour("warn", "bright purple"),
		"DEFAULT_ACTION_PLUGIN_PATH":     pluginPath("ANSIBLE_ACTION_PLUGINS", "action_plugins", "action"),
		"DEFAULT_BECOME":                 boolean("ANSIBLE_BECOME", "privilege_escalation", "become", false),
		"DEFAULT_BECOME_METHOD":          {Env: envs("ANSIBLE_BECOME_METHOD"), Ini: []IniKey{{"privilege_escalation", "become_method"}}, Default: "sudo"},
		"DEFAULT_BECOME_USER":            {Env: envs("ANSIBLE_BECOME_USER"), Ini: []IniKey{{"privilege_escalation", "become_user"}}, Default: "root"},
		"DEFAULT_CALLBACK_PLUGIN_PATH":   pluginPath("ANSIBLE_CALLBACK_PLUGINS", "callback_plugins", "callback"),
		"DEFAULT_DEBUG":                  boolean("ANSIBLE_DEBUG", "defaults", "debug", false),
		"DEFAULT_EXECUTABLE":             {Env: envs("ANSIBLE_EXECUTABLE"), Ini: defaults("executable"), Default: "/bin/sh"},
		"DEFAULT_FILTER_PLUGIN_PATH":     pluginPath("ANSIBLE_FILTER_PLUGINS", "filter_plugins", "filter"),
		"DEFAULT_FORCE_HANDLERS":         boolean("ANSIBLE_FORCE_HANDLERS", "defaults", "force_handlers", false),
		"DEFAULT_FORKS":                  {Env: envs("ANSIBLE_FORKS"), Ini: defaults("forks"), Default: 5, Type: "integer"},
		"DEFAULT_GATHERING":              {Env: envs("ANSIBLE_GATHERING"), Ini: defaults("gathering"), Default: "implicit", Choices: []string{"implicit", "explicit", "smart"}},
		"DEFAULT_HASH_BEHAVIOUR":         {Env: envs("ANSIBLE_HASH_BEHAVIOUR"), Ini: defaults("hash_behaviour"), Default: "replace", Type: "string", Choices: []string{"replace", "merge"}},
		"DEFAULT_HOST_LIST":              {Env: envs("ANSIBLE_INVENTORY"), Ini: defaults("inventory"), Default: []any{"/etc/ansible/hosts"}, Type: "pathlist"},
		"DEFAULT_JINJA2_NATIVE":          boolean("ANSIBLE_JINJA2_NATIVE", "defaults", "jinja2_native", true),
		"DEFAULT_KEEP_REMOTE_FILES":      boolean("ANSIBLE_KEEP_REMOTE_FILES", "defaults", "keep_remote_files", false),
		"DEFAULT_LOG_PATH":               {Env: envs("ANSIBLE_LOG_PATH"), Ini: defaults("log_path"), Type: "path"},
		"DEFAULT_LOOKUP_PLUGIN_PATH":     pluginPath("ANSIBLE_LOOKUP_PLUGINS", "lookup_plugins", "lookup"),
		"DEFAULT_MANAGED_STR":            {Ini: defaults("ansible_managed"), Default: "Ansible managed"},
		"DEFAULT_MODULE_PATH":            {Env: envs("ANSIBLE_LIBRARY"), Ini: defaults("library"), Default: UnderHome("/plugins/modules:/usr/share/ansible/plugins/modules"), Type: "pathspec"},
		"DEFAULT_NO_LOG":                 boolean("ANSIBLE_NO_LOG", "defaults", "no_log", false),
		"DEFAULT_POLL_INTERVAL":          {Env: envs("ANSIBLE_POLL_INTERVAL"), Ini: defaults("poll_interval"), Default: 15, Type: "integer"},
		"DEFAULT_PRIVATE_KEY_FILE":       {Env: envs("ANSIBLE_PRIVATE_KEY_FILE"), Ini: defaults("private_key_file"), Type: "path"},
		"DEFAULT_PRIVATE_ROLE_VARS":      boolean("ANSIBLE_PRIVATE_ROLE_VARS", "defaults", "private_role_vars", false),
		"DEFAULT_REMOTE_USER":            {Env: envs("ANSIBLE_REMOTE_USER"), Ini: defaults("remote_user")},
		"DEFAULT_ROLES_PATH":             {Env: envs("ANSIBLE_ROLES_PATH"), Ini: defaults("roles_path"), Default: UnderHome("/roles:/usr/share/ansible/roles:/etc/ansible/roles"), Type: "pathspec"},
		"DEFAULT_STDOUT_CALLBACK":        {Env: envs("ANSIBLE_STDOUT_CALLBACK"), Ini: defaults("stdout_callback"), Default: "default"},
		"DEFAULT_STRATEGY":               {Env: envs("ANSIBLE_STRATEGY"), Ini: defaults("strategy"), Default: "linear"},
		"DEFAULT_TIMEOUT":                {Env: envs("ANSIBLE_TIMEOUT"), Ini: defaults("timeout"), Default: 10, Type: "integer"},
		"DEFAULT_TRANSPORT":              {Env: envs("ANSIBLE_TRANSPORT"), Ini: defaults("transport"), Default: "ssh"},
		"DEFAULT_UNDEFINED_VAR_BEHAVIOR": boolean("ANSIBLE_ERROR_ON_UNDEFINED_VARS", "defaults", "error_on_undefined_vars", true),
		"DEFAULT_VAULT_IDENTITY":         {Env: envs("ANSIBLE_VAULT_IDENTITY"), Ini: defaults("vault_identity"), Default: "default"},
		"DEFAULT_VAULT_PASSWORD_FILE":    {Env: envs("ANSIBLE_VAULT_PASSWORD_FILE"), Ini: defaults("vault_password_file"), Type: "path"},
		"DEFAULT_VERBOSITY":              {Env: envs("ANSIBLE_VERBOSITY"), Ini: defaults("verbosity"), Default: 0, Type: "integer"},
		"DEPRECATION_WARNINGS":           boolean("ANSIBLE_DEPRECATION_WARNINGS", "defaults", "deprecation_warnings", true),
		"DISPLAY_ARGS_TO_STDOUT":         boolean("ANSIBLE_DISPLAY_ARGS_TO_STDOUT", "defaults", "display_args_to_stdout", false),
		"DUPLICATE_YAML_DICT_KEY":        {Env: envs("ANSIBLE_DUPLICATE_YAML_DICT_KEY"), Ini: defaults("duplicate_dict_key"), Default: "warn", Type: "string", Choices: []string{"error", "warn", "ignore"}},
		"ERROR_ON_MISSING_HANDLER":       boolean("ANSIBLE_ERROR_ON_MISSING_HANDLER", "defaults", "error_on_missing_handler", true),
		"HOST_KEY_CHECKING":              boolean("ANSIBLE_HOST_KEY_CHECKING", "defaults", "host_key_checking", true),
		"HOST_PATTERN_MISMATCH":          {Env: envs("ANSIBLE_HOST_PATTERN_MISMATCH"), Ini: []IniKey{{"inventory", "host_pattern_mismatch"}}, Default: "warning", Choices: []string{"error", "warning", "ignore"}},
		"INJECT_FACTS_AS_VARS":           boolean("ANSIBLE_INJECT_FACT_VARS", "defaults", "inject_facts_as_vars", true),
		"INTERPRETER_PYTHON":             {Env: envs("ANSIBLE_PYTHON_INTERPRETER"), Ini: defaults("interpreter_python"), Default: "auto"},
		"INVENTORY_UNPARSED_WARNING":     boolean("ANSIBLE_INVENTORY_UNPARSED_WARNING", "inventory", "inventory_unparsed_warning", true),
		"LOCALHOST_WARNING":              boolean("ANSIBLE_LOCALHOST_WARNING", "defaults", "localhost_warning", true),
		"MAX_FILE_SIZE_FOR_DIFF":         {Env: envs("ANSIBLE_MAX_DIFF_SIZE"), Ini: defaults("max_diff_size"), Default: 104448, Type: "int"},
		"PLAYBOOK_DIR":                   {Env: envs("ANSIBLE_PLAYBOOK_DIR"), Ini: defaults("playbook_dir"), Type: "path"},
		"RETRY_FILES_ENABLED":            {Env: envs("ANSIBLE_RETRY_FILES_ENABLED"), Ini: defaults("retry_files_enabled"), Default: false, Type: "bool"},
		"RETRY_FILES_SAVE_PATH":          {Env: envs("ANSIBLE_RETRY_FILES_SAVE_PATH"), Ini: defaults("retry_files_save_path"), Type: "path"},
		"SYSTEM_WARNINGS":                boolean("ANSIBLE_SYSTEM_WARNINGS", "defaults", "system_warnings", true),
		"TASK_TIMEOUT":                   {Env: envs("ANSIBLE_TASK_TIMEOUT"), Ini: defaults("task_timeout"), Default: 0, Type: "integer"},
	}
}
