package inventory

import (
	"github.com/cfzt/cfzt-runner/engine/value"
)

func (inv *Inventory) parseYAML(file string, data []byte) error {
	docs, _, err := value.DecodeYAML(file, data)
	if err != nil || len(docs) == 0 {
		return err
	}
	root, _ := docs[0].(*value.Dict)
	root.Each(func(g string, v any) bool {
		inv.parseYAMLGroup(file, g, v)
		return true
	})
	return nil
}

func (inv *Inventory) parseYAMLGroup(file, name string, v any) {
	g := inv.group(name)
	d, _ := v.(*value.Dict)
	if hosts, ok := d.Get("hosts"); ok {
		if hd, ok := hosts.(*value.Dict); ok {
			hd.Each(func(h string, hv any) bool {
				for _, host := range expandHost(h) {
					inv.addHost(host, name, file)
					if vars, ok := hv.(*value.Dict); ok {
						vars.Each(func(k string, v any) bool { inv.setVar(inv.hostVars[host], k, v); return true })
					}
				}
				return true
			})
		}
	}
	if vars, ok := d.Get("vars"); ok {
		if vd, ok := vars.(*value.Dict); ok {
			vd.Each(func(k string, v any) bool { inv.setGroupVar(g, k, v); return true })
		}
	}
	if ch, ok := d.Get("children"); ok {
		if cd, ok := ch.(*value.Dict); ok {
			cd.Each(func(c string, cv any) bool {
				inv.link(name, c)
				inv.parseYAMLGroup(file, c, cv)
				return true
			})
		}
	}
}
