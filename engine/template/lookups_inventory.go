package template

import "github.com/cfzt/cfzt-runner/engine/value"

// inventoryLookups returns ansible-core's inventory_hostnames lookup.
func inventoryLookups() family {
	return family{collection: "ansible.builtin", lookups: map[string]LookupFunc{
		"inventory_hostnames": lookupInventoryHostnames,
	}}
}

// lookupInventoryHostnames lists the hosts the terms (host patterns such
// as "all:!localhost" or "web[0:2]") select in the inventory the groups
// variable describes.
func lookupInventoryHostnames(c *Ctx, terms []any, _ *Args) ([]any, error) {
	groups, err := c.Var("groups")
	if err != nil {
		return nil, err
	}
	d, ok := groups.(*value.Dict)
	if !ok || c.opt.Hosts == nil {
		return []any{}, nil
	}
	patterns := make([]string, len(terms))
	for i, t := range terms {
		patterns[i] = value.Str(t)
	}
	out := []any{}
	for _, h := range c.opt.Hosts(d, patterns) {
		out = append(out, h)
	}
	return out, nil
}
