package template

import (
	"errors"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/settings"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// configLookups returns ansible-core's config lookup.
func configLookups() family {
	return family{collection: "ansible.builtin", lookups: map[string]LookupFunc{
		"config": lookupConfig,
	}}
}

// lookupConfig returns the value of each setting named by the terms, as
// cfzt-runner resolves it from ANSIBLE_* variables, the ansible.cfg in use
// and the defaults (engine/settings), or the value of a lookup plugin's
// option with plugin_type=lookup. on_missing says what an unknown name
// does: fail (error), warn and skip it (warn), or skip it (skip).
func lookupConfig(c *Ctx, terms []any, a *Args) ([]any, error) {
	opts, err := lookupOptions(c, "config", a)
	if err != nil {
		return nil, err
	}
	ptype, _ := opts["plugin_type"].(string)
	pname, _ := opts["plugin_name"].(string)
	if (ptype != "" || pname != "") && (ptype == "" || pname == "") {
		return nil, Errorf("Both plugin_type and plugin_name are required, cannot use one without the other.")
	}
	out := []any{}
	for _, t := range terms {
		name, ok := t.(string)
		if !ok {
			return nil, Errorf("Invalid setting identifier, %s is not a %s, its a %s.", value.Repr(t), py.ClassRepr("str"), py.ClassRepr(value.TypeName(t)))
		}
		v, origin, err := c.configValue(ptype, pname, name)
		var undef *settings.UndefinedError
		switch {
		case errors.As(err, &undef):
			switch opts["on_missing"] {
			case "error":
				return nil, Errorf("%s", err.Error())
			case "warn":
				c.warn(diag.Warn("Skipping "+name+": "+err.Error(), nil))
			}
			continue
		case err != nil:
			return nil, optionErr(err)
		}
		if opts["show_origin"] == true {
			out = append(out, []any{v, origin})
		} else {
			out = append(out, v)
		}
	}
	return out, nil
}

// configValue resolves one setting: a core one, or an option of a lookup
// plugin (the only plugins whose options cfzt-runner defines).
func (c *Ctx) configValue(ptype, pname, name string) (any, string, error) {
	if ptype == "" {
		return c.eng.Settings.Core(name)
	}
	_, found := c.eng.lookups[stripFQCN(pname)]
	if ptype != "lookup" || !found {
		return nil, "", Errorf("Unable to load %s plugin %s.", ptype, value.Repr(pname))
	}
	// ansible-core keeps a plugin's option definitions under the name it
	// was first loaded by: its fully qualified name loads it but finds none.
	d, ok := lookupOptionDefs()[pname][name]
	label := settings.Label(ptype, pname, name)
	if !ok {
		return nil, "", &settings.UndefinedError{Label: label}
	}
	return c.eng.Settings.Resolve(label, d, nil, false)
}
