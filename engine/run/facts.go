package run

import (
	"regexp"
	"slices"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// gatherAction is the action of the play's implicit fact gathering task.
const gatherAction = "ansible.builtin.gather_facts"

// gatherFacts runs the implicit "Gathering Facts" task of a play: the
// gather_facts action, with the play's gather_subset, gather_timeout and
// fact_path, on each host DEFAULT_GATHERING selects. It is an ordinary
// task of the play: its facts go to the fact cache, a failure fails the
// host, and play keywords (when, ignore_errors, environment...) apply.
func (r *Runner) gatherFacts(ps *playState) {
	t := r.gatherTask(ps.play)
	if t == nil || !r.tagsMatch(ps.root.tags(t), t) {
		return
	}
	var hosts []string
	for _, h := range r.activeHosts(ps) {
		if r.shouldGather(ps.play, h) {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return
	}
	first := r.newTaskRun(ps, ps.root, t, r.host(hosts[0]))
	r.Display.TaskStart(first.name, t, false)
	st := &step{}
	defer r.endStep(ps, st)
	for i, h := range hosts {
		tr := first
		if i > 0 {
			tr = r.newTaskRun(ps, ps.root, t, r.host(h))
		}
		st.fatal = st.fatal || tr.stepFatal()
		st.add(h, tr.process(tr.result(), nil))
	}
}

// gatherTask builds the play's fact gathering task, as ansible-core's
// PlayIterator does: tagged always unless the play has tags, never run
// once. It is nil when no gather_facts action is registered.
func (r *Runner) gatherTask(p *playbook.Play) *playbook.Task {
	info, ok := r.Modules.Lookup(gatherAction)
	if !ok {
		return nil
	}
	args := value.NewDict(3)
	for _, a := range []struct {
		name string
		v    any
	}{{"gather_subset", p.GatherSubset}, {"gather_timeout", p.GatherTimeout}, {"fact_path", p.FactPath}} {
		if a.v == nil {
			continue
		}
		// gather_subset is a list keyword: a plain string is one item
		// ("!all,!min" is not split).
		if str, ok := a.v.(string); ok && a.name == "gather_subset" && !template.HasMarkers(str) {
			a.v = []any{str}
		}
		args.Set(a.name, a.v)
	}
	t := &playbook.Task{Name: "Gathering Facts", Module: "gather_facts", Action: "gather_facts", Info: info,
		Pos: p.Pos, File: p.Pos.File, Dir: p.Dir, Args: args, Implicit: true}
	t.Set = map[string]bool{"run_once": true}
	t.RunOnce = false
	if len(p.Tags) == 0 {
		t.Tags = []string{"always"}
	}
	return t
}

// shouldGather applies DEFAULT_GATHERING (ANSIBLE_GATHERING) to a host:
// implicit gathers unless the play says gather_facts: false, explicit
// only when it says true, smart as implicit but once per host and run.
func (r *Runner) shouldGather(p *playbook.Play, host string) bool {
	implied := p.GatherFacts == nil || keywordBool(p.GatherFacts)
	switch strings.ToLower(r.Opts.Gathering) {
	case "explicit":
		return p.GatherFacts != nil && keywordBool(p.GatherFacts)
	case "smart":
		return implied && !r.host(host).cache.gathered()
	}
	return implied
}

// factCache is a host's fact cache: the facts modules returned (setup,
// gather_facts, any module's ansible_facts, set_fact with cacheable),
// with the ansible_ prefix they were returned with. Its variables sit at
// the "host facts" level of the precedence ladder, below play vars.
type factCache struct {
	facts *value.Dict
	// view caches vars(); it is rebuilt after each change.
	view *value.Dict
}

func newFactCache() *factCache { return &factCache{facts: value.NewDict(0)} }

// update merges facts into the cache (set_host_facts).
func (c *factCache) update(d *value.Dict) {
	c.facts.Update(d)
	c.view = nil
}

// clear empties the cache (meta: clear_facts).
func (c *factCache) clear() {
	c.facts = value.NewDict(0)
	c.view = nil
}

// gathered reports whether gather_facts ran for the host.
func (c *factCache) gathered() bool {
	return c != nil && value.Truthy(c.facts.Default("_ansible_facts_gathered", false))
}

// setupRan reports whether setup's facts are in the cache (its
// module_setup fact), which makes an undefined variable in a vars_files
// name an error.
func (c *factCache) setupRan() bool {
	return c != nil && value.Truthy(c.facts.Default("module_setup", false))
}

// vars are the variables the cache gives a host: ansible_facts (the facts
// without their ansible_ prefix) and, with INJECT_FACTS_AS_VARS, each
// fact under its own name, restricted keys removed.
func (c *factCache) vars(inject bool) *value.Dict {
	if c.view != nil {
		return c.view
	}
	v := value.NewDict(c.facts.Len() + 1)
	v.Set("ansible_facts", namespaceFacts(c.facts))
	if inject {
		v.Update(cleanFacts(c.facts, nil))
	} else {
		v.Set("ansible_local", c.facts.Default("ansible_local", value.NewDict(0)))
	}
	c.view = v
	return v
}

// namespaceFacts is ansible-core's namespace_facts: the facts with the
// ansible_ prefix removed (except ansible_local), as ansible_facts holds
// them.
func namespaceFacts(facts *value.Dict) *value.Dict {
	out := value.NewDict(facts.Len())
	facts.Each(func(k string, v any) bool {
		if strings.HasPrefix(k, "ansible_") && k != "ansible_local" {
			k = k[len("ansible_"):]
		}
		out.Set(k, v)
		return true
	})
	return out
}

// restrictedFacts are fact names that would override connection and
// magic variables (MAGIC_VARIABLE_MAPPING, COMMON_CONNECTION_VARS,
// RESTRICTED_RESULT_KEYS, INTERNAL_RESULT_KEYS).
var restrictedFacts = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`ansible_become ansible_become_exe ansible_become_flags ansible_become_method
		ansible_become_pass ansible_become_password ansible_become_user ansible_connection ansible_connection_user
		ansible_docker_extra_args ansible_host ansible_module_compression ansible_network_os ansible_password
		ansible_pipelining ansible_port ansible_private_key_file ansible_scp_extra_args ansible_sftp_extra_args
		ansible_shell_executable ansible_shell_type ansible_ssh_common_args ansible_ssh_executable ansible_ssh_extra_args
		ansible_ssh_host ansible_ssh_pass ansible_ssh_pipelining ansible_ssh_port ansible_ssh_private_key_file
		ansible_ssh_timeout ansible_ssh_transfer_method ansible_ssh_user ansible_timeout ansible_user
		ansible_rsync_path ansible_playbook_python ansible_facts add_host add_group`) {
		m[k] = true
	}
	return m
}()

var (
	// connectionFact matches the variables of ansible-core's connection
	// plugins (ansible_ssh_*, ansible_local_*...).
	connectionFact  = regexp.MustCompile(`^ansible_(_paramiko_ssh|local|paramiko_ssh|psrp|ssh|winrm)_`)
	interpreterFact = regexp.MustCompile(`^ansible_.*_interpreter$`)
)

// cleanFacts is ansible-core's clean_facts: the facts without those that
// could override connection or magic variables (ansible_ssh_host_key_*
// facts excepted), and without internal keys. warn, when set, is told
// about each removed key.
func cleanFacts(facts *value.Dict, warn func(string)) *value.Dict {
	out := value.NewDict(facts.Len())
	facts.Each(func(k string, v any) bool {
		restricted := restrictedFacts[k] || strings.HasPrefix(k, "ansible_become_") || interpreterFact.MatchString(k) ||
			(connectionFact.MatchString(k) && !strings.HasSuffix(k, "_bridge") && !strings.HasSuffix(k, "_gwbridge"))
		switch {
		case restricted && !strings.HasPrefix(k, "ansible_ssh_host_key_"):
			if warn != nil {
				warn("Removed restricted key from module data: " + k)
			}
		case strings.HasPrefix(k, "_ansible_"):
		default:
			out.Set(k, stripInternalKeys(v))
		}
		return true
	})
	return out
}

// stripInternalKeys removes _ansible_* keys from nested dicts.
func stripInternalKeys(v any) any {
	if d, ok := v.(*value.Dict); ok {
		return cleanCopy(d)
	}
	return v
}

// factVars are the variables of a host's fact cache.
func (r *Runner) factVars(hs *hostState) *value.Dict {
	return hs.cache.vars(!r.Opts.NoInjectFacts)
}

// storeFacts puts a module's facts in the host's cache (set_host_facts),
// warning about restricted names as ansible-core does when it reads them.
func (r *Runner) storeFacts(hs *hostState, facts *value.Dict) {
	cleanFacts(facts, r.warning)
	hs.cache.update(facts)
}

// resultFacts are the variables a module's facts give the rest of its
// own task (changed_when, failed_when, until), as TaskExecutor does:
// set_fact's and include_vars' as they are, any other module's by their
// own names with INJECT_FACTS_AS_VARS. TaskExecutor means to merge them
// into ansible_facts too, but merges namespace_facts' whole answer, so
// they land under ansible_facts.ansible_facts; the task's conditions see
// the same.
func (tr *taskRun) resultFacts(seen *value.Dict, facts *value.Dict) {
	if tr.t.Info.Flags&module.SetsFacts != 0 || tr.t.Info.Kind == module.KindIncludeVars {
		seen.Update(facts)
		return
	}
	base, ok := seen.Default("ansible_facts", nil).(*value.Dict)
	if !ok {
		base, _ = tr.r.factVars(tr.host).Default("ansible_facts", value.NewDict(0)).(*value.Dict)
	}
	merged := base.Copy()
	merged.Set("ansible_facts", namespaceFacts(facts))
	seen.Set("ansible_facts", merged)
	if !tr.r.Opts.NoInjectFacts {
		seen.Update(cleanFacts(facts, nil))
	}
}

// applyFacts stores the ansible_facts of an ok result: include_vars
// results as include_vars variables, set_fact results as facts of the
// play (and in the cache too with cacheable), anything else in the fact
// cache.
func (tr *taskRun) applyFacts(hs *hostState, res *value.Dict) {
	facts, ok := res.Get("ansible_facts")
	if !ok || tr.t.Info.Flags&module.IgnoresFacts != 0 {
		return
	}
	d, ok := facts.(*value.Dict)
	if !ok {
		return
	}
	switch {
	case tr.t.Info.Kind == module.KindIncludeVars:
		tr.r.addIncludedVars(hs, d)
	case tr.t.Info.Flags&module.SetsFacts != 0:
		if value.Truthy(res.Default("_ansible_facts_cacheable", false)) {
			tr.r.storeFacts(hs, d)
		}
		hs.facts.Update(d)
		tr.trackFactTrust(hs, d)
		recordFactOrigins(tr, hs.facts, d)
		// The result's facts reach ansible-core's check with sorted keys.
		tr.r.warnReservedKeys(sortedKeys(d), tr.t.Args, tr.t.ArgPos)
	default:
		tr.r.storeFacts(hs, d)
	}
}

// clearFacts is meta: clear_facts for one host: its fact cache is
// emptied; set_fact and registered variables stay.
func (r *Runner) clearFacts(host string) {
	r.host(host).cache.clear()
}

// sortedKeys is d with its keys in sorted order.
func sortedKeys(d *value.Dict) *value.Dict {
	keys := slices.Clone(d.Keys())
	slices.Sort(keys)
	out := value.NewDict(len(keys))
	for _, k := range keys {
		v, _ := d.Get(k)
		out.Set(k, v)
	}
	return out
}
