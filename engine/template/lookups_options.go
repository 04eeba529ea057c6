package template

import "github.com/cfzt/cfzt-runner/engine/settings"

// lookupOptionDefs are the options each lookup declares, by lookup and
// option name, with ansible-core 2.19's types and defaults. lookupOptions
// reads a lookup's keyword arguments through them, and the config lookup
// shows them for plugin_type=lookup. A lookup absent from this table
// takes no options (or, like sequence, parses its own).
func lookupOptionDefs() map[string]map[string]settings.Def {
	str := func(def any) settings.Def { return settings.Def{Type: "str", Default: def} }
	boolean := func(def bool) settings.Def { return settings.Def{Type: "bool", Default: def} }
	unused := func(alternatives string) *settings.Deprecation {
		return &settings.Deprecation{Why: "This option is no longer used in the Ansible Core code base.", Version: "2.23", Alternatives: alternatives}
	}
	return map[string]map[string]settings.Def{
		"config": {
			"on_missing":  {Type: "string", Default: "error", Choices: []string{"error", "warn", "skip"}},
			"plugin_type": {Type: "string", Choices: []string{"become", "cache", "callback", "cliconf", "connection", "httpapi", "inventory", "lookup", "netconf", "shell", "vars"}},
			"plugin_name": {Type: "string"},
			"show_origin": {Type: "bool"},
		},
		"env":  {"default": {Default: ""}},
		"vars": {"default": {}},
		"file": {"lstrip": boolean(false), "rstrip": boolean(true)},
		"first_found": {
			"files": {Type: "list", Default: []any{}},
			"paths": {Type: "list", Default: []any{}},
			"skip":  {Type: "boolean", Default: false},
		},
		"password": {
			"encrypt": {},
			"ident":   {Type: "string"},
			"chars":   {Type: "list", Default: []any{"ascii_letters", "digits", ".,:-_"}},
			"length":  {Type: "integer", Default: 20},
			"seed":    {Type: "str"},
		},
		"template": {
			"convert_data": {Type: "bool", Default: true, Deprecated: unused(
				"Jinja2 native mode is now the default and only option, which is mutually exclusive with this option.")},
			"jinja2_native": {Type: "bool", Default: true, Deprecated: unused(
				"Jinja2 native mode is now the default and only option.")},
			"template_vars":         {Type: "dict"},
			"variable_start_string": str("{{"),
			"variable_end_string":   str("}}"),
			"comment_start_string":  str("{#"),
			"comment_end_string":    str("#}"),
			"trim_blocks":           boolean(true),
		},
	}
}
