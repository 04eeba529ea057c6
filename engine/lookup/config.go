package lookup

import (
	"errors"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/settings"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// configLookups returns ansible-core's config lookup.
func configLookups() template.Library {
	return template.Library{Collection: "ansible.builtin",
		Lookups: map[string]template.LookupFunc{
			"config": lookupConfig,
		},
		LookupOptions: optionsOf("config"),
	}
}

// lookupConfig returns the value of each setting named by the terms, as
// cfzt-runner resolves it from ANSIBLE_* variables, the ansible.cfg in use
// and the defaults (engine/settings), or the value of a lookup plugin's
// option with plugin_type=lookup. on_missing says what an unknown name
// does: fail (error), warn and skip it (warn), or skip it (skip).
func lookupConfig(c *template.Ctx, terms []any, a *template.Args) ([]any, error) {
	opts, err := c.LookupOptions("config", a)
	if err != nil {
		return nil, err
	}
	ptype, _ := opts["plugin_type"].(string)
	pname, _ := opts["plugin_name"].(string)
	if (ptype != "" || pname != "") && (ptype == "" || pname == "") {
		return nil, template.Errorf("Both plugin_type and plugin_name are required, cannot use one without the other.")
	}
	out := []any{}
	for _, t := range terms {
		name, ok := t.(string)
		if !ok {
			return nil, template.Errorf("Invalid setting identifier, %s is not a %s, its a %s.", value.Repr(t), py.ClassRepr("str"), py.ClassRepr(value.TypeName(t)))
		}
		v, origin, err := configValue(c, ptype, pname, name)
		var undef *settings.UndefinedError
		switch {
		case errors.As(err, &undef):
			switch opts["on_missing"] {
			case "error":
				return nil, template.Errorf("%s", err.Error())
			case "warn":
				c.Warn(diag.Warn("Skipping "+name+": "+err.Error(), nil))
			}
			continue
		case err != nil:
			return nil, template.OptionErr(err)
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
func configValue(c *template.Ctx, ptype, pname, name string) (any, string, error) {
	if ptype == "" {
		return c.Engine().Settings.Core(name)
	}
	defs, found := c.Engine().LookupOptionDefs(pname)
	if ptype != "lookup" || !found {
		return nil, "", template.Errorf("Unable to load %s plugin %s.", ptype, value.Repr(pname))
	}
	d, ok := defs[name]
	label := settings.Label(ptype, pname, name)
	if !ok {
		return nil, "", &settings.UndefinedError{Label: label}
	}
	return c.Engine().Settings.Resolve(label, d, nil, false)
}
