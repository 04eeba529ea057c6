package lookup

import (
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// inventoryLookups returns ansible-core's inventory_hostnames lookup.
func inventoryLookups() template.Library {
	return template.Library{Collection: "ansible.builtin", Lookups: map[string]template.LookupFunc{
		"inventory_hostnames": lookupInventoryHostnames,
	}}
}

// lookupInventoryHostnames lists the hosts the terms (host patterns such
// as "all:!localhost" or "web[0:2]") select in the inventory the groups
// variable describes.
func lookupInventoryHostnames(c *template.Ctx, terms []any, _ *template.Args) ([]any, error) {
	groups, err := c.Var("groups")
	if err != nil {
		return nil, err
	}
	d, ok := groups.(*value.Dict)
	if !ok {
		return []any{}, nil
	}
	patterns := make([]string, len(terms))
	for i, t := range terms {
		patterns[i] = value.Str(t)
	}
	out := []any{}
	for _, h := range c.SelectHosts(d, patterns) {
		out = append(out, h)
	}
	return out, nil
}
