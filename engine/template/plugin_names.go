package template

import "sort"

// PluginNames lists the plugins of a kind ("filter", "test" or "lookup")
// that e implements, sorted: a plugin of a library given to New by its fully qualified name
// (the collection its errors name), one registered later by a module
// package (RegisterLookup) by the name it was registered under. An unknown
// kind lists nothing.
func (e *Engine) PluginNames(kind string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range e.libs {
		var names []string
		switch kind {
		case "filter":
			names = pluginKeys(f.Filters)
		case "test":
			names = pluginKeys(f.Tests)
		case "lookup":
			names = pluginKeys(f.Lookups)
		}
		for _, n := range names {
			seen[n] = true
			out = append(out, f.Collection+"."+n)
		}
	}
	var registered []string
	switch kind {
	case "filter":
		registered = pluginKeys(e.filters)
	case "test":
		registered = pluginKeys(e.tests)
	case "lookup":
		registered = pluginKeys(e.lookups)
	}
	for _, n := range registered {
		if !seen[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func pluginKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
