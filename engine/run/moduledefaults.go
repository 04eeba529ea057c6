package run

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// withModuleDefaults adds to a task's arguments the module_defaults of
// the play, blocks and task that name its module, or a group holding
// it (the groups are the module's entry's, module.Info.InGroup), as
// ansible-core does: inner levels override outer ones, group
// defaults come before the module's own, and an argument the task gives
// wins over both. A default given as a template is rendered to its
// mapping first; the values are rendered with the task's own.
func (tr *taskRun) withModuleDefaults(args *value.Dict, sc *scope) (*value.Dict, error) {
	merged := tr.mergedModuleDefaults()
	if merged.Len() == 0 {
		return args, nil
	}
	info := tr.t.Info
	fqcn := info.FQCN
	var groups, own []any
	merged.Each(func(k string, v any) bool {
		if name, ok := strings.CutPrefix(k, "group/"); ok {
			if info.InGroup(name) {
				groups = append(groups, v)
			}
		} else if k == fqcn {
			own = append(own, v)
		}
		return true
	})
	if len(groups)+len(own) == 0 {
		return args, nil
	}
	out := value.NewDict(args.Len())
	for _, v := range append(groups, own...) {
		d, err := tr.moduleDefaultsDict(v, sc)
		if err != nil {
			return nil, err
		}
		d.Each(func(k string, v any) bool {
			if !args.Has(k) {
				out.Set(k, v)
			}
			return true
		})
	}
	out.Update(args)
	return out, nil
}

// mergedModuleDefaults merges the module_defaults of every level around
// the task, outermost first, so that inner levels win. Module names are
// resolved to their fully qualified names first, so `file` and
// `ansible.builtin.file` are one entry, as ansible-core keys them.
func (tr *taskRun) mergedModuleDefaults() *value.Dict {
	merged := value.NewDict(0)
	add := func(v any) {
		list, ok := v.([]any)
		if !ok {
			list = []any{v}
		}
		for _, e := range list {
			d, ok := e.(*value.Dict)
			if !ok {
				continue
			}
			d.Each(func(k string, v any) bool {
				if info, ok := tr.r.Modules.Lookup(k); ok && !strings.HasPrefix(k, "group/") {
					k = info.FQCN
				}
				merged.Set(k, v)
				return true
			})
		}
	}
	for _, x := range tr.f.chain() {
		if x.kw != nil && x.kw.Set["module_defaults"] {
			add(x.kw.ModuleDefaults)
		}
	}
	if tr.t.Set["module_defaults"] {
		add(tr.t.ModuleDefaults)
	}
	return merged
}

// moduleDefaultsDict returns one entry's arguments, rendering an entry
// written as a template.
func (tr *taskRun) moduleDefaultsDict(v any, sc *scope) (*value.Dict, error) {
	if d, ok := v.(*value.Dict); ok {
		return d, nil
	}
	if v == nil {
		return value.NewDict(0), nil
	}
	rv, err := tr.r.Engine.RenderValue(v, sc, tr.optAt(tr.t.Pos))
	if err != nil {
		return nil, diag.Chain("Task failed.", tr.t.Pos, diag.Chain("Error while resolving value for 'module_defaults'.", tr.t.Pos, err))
	}
	if d, ok := rv.(*value.Dict); ok {
		return d, nil
	}
	return value.NewDict(0), nil
}
