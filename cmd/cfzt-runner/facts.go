package main

import (
	"os"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/run"
)

// factOptions adds the fact and stats settings to the executor options:
// DEFAULT_GATHERING, INJECT_FACTS_AS_VARS and SHOW_CUSTOM_STATS, from the
// environment or else the config file's [defaults].
func (c config) factOptions(o run.Options) run.Options {
	o.Gathering = strings.ToLower(c.setting("ANSIBLE_GATHERING", "gathering", "implicit"))
	o.NoInjectFacts = !configBool(c.setting("ANSIBLE_INJECT_FACT_VARS", "inject_facts_as_vars", "true"))
	o.ShowCustomStats = configBool(c.setting("ANSIBLE_SHOW_CUSTOM_STATS", "show_custom_stats", "false"))
	return o
}

// setting is an option's value: its environment variable, its
// [defaults] key, else def.
func (c config) setting(env, key, def string) string {
	if v, ok := os.LookupEnv(env); ok {
		return v
	}
	if v, ok := c.defaults[key]; ok {
		return v
	}
	return def
}

// configBool reads a boolean setting as ansible-core's config does.
func configBool(v string) bool {
	b, _ := argspec.LenientBoolean(v)
	return b
}
