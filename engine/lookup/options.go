package lookup

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/settings"
)

// lookupOptionDefs are the options each lookup of this package declares,
// by lookup and option name, with ansible-core 2.19's types and defaults.
// Each family gives its lookups' options to its template.Library
// (optionsOf): Ctx.LookupOptions reads a lookup's keyword arguments
// through them, and the config lookup shows them for plugin_type=lookup.
// A lookup absent from this table takes no options.
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
		"env": {"default": {Default: ""}},
		"csvfile": {
			"col":       {Type: "int", Default: 1},
			"keycol":    {Type: "int", Default: 0},
			"default":   {},
			"delimiter": str("TAB"),
			"file":      str("ansible.csv"),
			"encoding":  str("utf-8"),
		},
		"ini": {
			"type":           {Type: "str", Default: "ini", Choices: []string{"ini", "properties"}},
			"file":           str("ansible.ini"),
			"section":        str("global"),
			"re":             boolean(false),
			"encoding":       str("utf-8"),
			"default":        str(""),
			"case_sensitive": {Default: false},
			"allow_no_value": boolean(false),
			"interpolation":  boolean(true),
		},
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
		"url": urlOptionDefs(),
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

// optionsOf returns the options of the lookups names, for their library.
func optionsOf(names ...string) map[string]map[string]settings.Def {
	all := lookupOptionDefs()
	out := make(map[string]map[string]settings.Def, len(names))
	for _, n := range names {
		out[n] = all[n]
	}
	return out
}

// urlOptionDefs are the url lookup's options; most may also come from a
// variable, an ANSIBLE_LOOKUP_URL_* environment variable or the
// [url_lookup] section of ansible.cfg.
func urlOptionDefs() map[string]settings.Def {
	configurable := func(typ string, def any, name, key string) settings.Def {
		return settings.Def{Type: typ, Default: def, Vars: []string{"ansible_lookup_url_" + name},
			Env: []string{"ANSIBLE_LOOKUP_URL_" + strings.ToUpper(name)}, Ini: []settings.IniKey{{Section: "url_lookup", Key: key}}}
	}
	return map[string]settings.Def{
		"validate_certs":       {Type: "boolean", Default: true},
		"split_lines":          {Type: "boolean", Default: true},
		"use_proxy":            {Type: "boolean", Default: true},
		"username":             {Type: "string"},
		"password":             {Type: "string"},
		"headers":              {Type: "dictionary"},
		"force":                configurable("boolean", false, "force", "force"),
		"timeout":              configurable("float", 10, "timeout", "timeout"),
		"http_agent":           configurable("string", "ansible-httpget", "agent", "agent"),
		"force_basic_auth":     configurable("boolean", false, "force_basic_auth", "force_basic_auth"),
		"follow_redirects":     configurable("string", "urllib2", "follow_redirects", "follow_redirects"),
		"use_gssapi":           configurable("boolean", false, "use_gssapi", "use_gssapi"),
		"use_netrc":            configurable("boolean", true, "use_netrc", "use_netrc"),
		"unix_socket":          configurable("string", nil, "unix_socket", "unix_socket"),
		"ca_path":              configurable("string", nil, "ca_path", "ca_path"),
		"unredirected_headers": configurable("list", nil, "unredir_headers", "unredirected_headers"),
		"ciphers":              configurable("list", nil, "ciphers", "ciphers"),
	}
}
