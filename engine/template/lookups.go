package template

// builtinLookups returns the lookup plugins.
func builtinLookups() map[string]LookupFunc {
	return map[string]LookupFunc{}
}
