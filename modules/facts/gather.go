package facts

import (
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// setupModule is the fact module gather_facts runs: FACTS_MODULES is
// "smart", which means setup when no network OS is set.
const setupModule = "ansible.legacy.setup"

// GatherFacts is the ansible.builtin.gather_facts action, which the
// implicit "Gathering Facts" task runs too: it runs setup with its own
// arguments (without `parallel` and None values), keeps the facts,
// warnings and deprecations of the result, marks the facts as gathered
// and hides them from verbose output.
func GatherFacts(req *module.Request) (*value.Dict, error) {
	args := value.NewDict(req.Args.Len())
	req.Args.Each(func(k string, v any) bool {
		if k != "parallel" && v != nil {
			args.Set(k, v)
		}
		return true
	})
	sub := *req
	sub.Args, sub.Name, sub.FQCN, sub.Action = args, "setup", "ansible.builtin.setup", setupModule
	res, params := runSetup(&sub, setupModule)
	out := value.NewDict(6)
	gathered := value.NewDict(0)
	if value.Truthy(res.Default("failed", false)) {
		// The module's own result, as fail_json returned it.
		failure := res.Copy()
		failure.Delete("changed")
		failure.Set("exception", "(traceback unavailable)")
		failure.Set("invocation", value.DictOf("module_args", params))
		msg := "The following modules failed to execute: " + setupModule + "."
		out.Set("ansible_facts", gathered)
		out.Set("failed_modules", value.DictOf(setupModule, failure))
		out.Set("failed", true)
		out.Set("msg", msg)
		out.Set("exception", &module.CapturedErrors{Msg: msg, Events: []string{value.Str(res.Default("msg", ""))}})
	} else {
		if d, ok := res.Default("ansible_facts", nil).(*value.Dict); ok {
			gathered = d
		}
		out.Set("ansible_facts", gathered)
		for _, k := range []string{"warnings", "deprecations"} {
			if l, ok := res.Default(k, nil).([]any); ok && len(l) > 0 {
				out.Set(k, l)
			}
		}
	}
	gathered.Set("_ansible_facts_gathered", true)
	out.Set("_ansible_verbose_override", true)
	out.Set("changed", false)
	return out, nil
}
