package facts

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// collector gathers one group of facts, as one of ansible-core's
// BaseFactCollector classes does. The facts it returns are unprefixed
// ("distribution"); the caller adds the namespace.
type collector struct {
	// name is the subset name gather_subset accepts ("hardware").
	name string
	// ids are further subset names that select this collector
	// ("devices", "mounts" for hardware); excluding the name excludes
	// them too.
	ids []string
	// requires are collectors whose facts this one reads.
	requires []string
	// prefix replaces "ansible_" for the facts of this collector
	// (facter_, ohai_).
	prefix string
	// collect returns the facts; collected holds the namespaced facts
	// of the collectors that ran before.
	collect func(s *system, collected *value.Dict) *value.Dict
}

// minimalSubset is what setup always gathers unless "!min" is given.
var minimalSubset = []string{"apparmor", "caps", "cmdline", "date_time", "distribution", "dns", "env", "fips", "local",
	"lsb", "pkg_mgr", "platform", "python", "selinux", "service_mgr", "ssh_pub_keys", "user"}

// BadSubsetError is setup's failure for a gather_subset entry that names
// no collector.
type BadSubsetError struct {
	Subset string
	Valid  []string
}

func (e *BadSubsetError) Error() string {
	return fmt.Sprintf("Bad subset '%s' given to Ansible. gather_subset options allowed: all, %s", e.Subset, strings.Join(e.Valid, ", "))
}

// subsetIndex maps every subset name to the collectors that answer to it,
// and every collector name to its further ids.
type subsetIndex struct {
	byID    map[string][]*collector
	aliases map[string][]string
}

func indexCollectors(cs []*collector) subsetIndex {
	ix := subsetIndex{byID: map[string][]*collector{}, aliases: map[string][]string{}}
	for _, c := range cs {
		ix.byID[c.name] = append(ix.byID[c.name], c)
		for _, id := range c.ids {
			ix.byID[id] = append(ix.byID[id], c)
			ix.aliases[c.name] = append(ix.aliases[c.name], id)
		}
	}
	return ix
}

// valid lists every accepted subset name, sorted.
func (ix subsetIndex) valid() []string {
	out := make([]string, 0, len(ix.byID))
	for id := range ix.byID {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// collectorNames expands gather_subset into subset names as
// get_collector_names does: the minimal set always starts the list,
// "all" adds every name, "!x" excludes x (and its ids), and names given
// explicitly win over exclusions. Excluding an unknown name is ignored;
// adding one is an error.
func (ix subsetIndex) collectorNames(gatherSubset []string) (map[string]bool, error) {
	if len(gatherSubset) == 0 {
		gatherSubset = []string{"all"}
	}
	all := ix.valid()
	minimal := map[string]bool{}
	for _, m := range minimalSubset {
		minimal[m] = true
	}
	add, exclude, explicit := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, subset := range append([]string{"min"}, gatherSubset...) {
		switch subset {
		case "min":
			for m := range minimal {
				add[m] = true
			}
			continue
		case "all":
			for _, id := range all {
				add[id] = true
			}
			continue
		}
		if name, negated := strings.CutPrefix(subset, "!"); negated {
			switch name {
			case "min":
				for m := range minimal {
					exclude[m] = true
				}
			case "all":
				for _, id := range all {
					if !minimal[id] {
						exclude[id] = true
					}
				}
			default:
				for _, a := range ix.aliases[name] {
					exclude[a] = true
				}
				exclude[name] = true
			}
			continue
		}
		if _, ok := ix.byID[subset]; !ok {
			return nil, &BadSubsetError{Subset: subset, Valid: all}
		}
		explicit[subset] = true
		add[subset] = true
	}
	if len(add) == 0 {
		for _, id := range all {
			add[id] = true
		}
	}
	for name := range exclude {
		if !explicit[name] {
			delete(add, name)
		}
	}
	return add, nil
}

// selectCollectors resolves subset names to the collectors to run, with
// the collectors they require, ordered so that each runs after those it
// requires (the order of the platform's collector list otherwise).
func (ix subsetIndex) selectCollectors(all []*collector, names map[string]bool) ([]*collector, error) {
	for {
		grew := false
		for name := range names {
			for _, c := range ix.byID[name] {
				for _, req := range c.requires {
					if names[req] {
						continue
					}
					if _, ok := ix.byID[req]; !ok {
						return nil, fmt.Errorf("unresolved fact dep %s", req)
					}
					names[req] = true
					grew = true
				}
			}
		}
		if !grew {
			break
		}
	}
	wanted := map[*collector]bool{}
	for name := range names {
		for _, c := range ix.byID[name] {
			wanted[c] = true
		}
	}
	var ordered []*collector
	done := map[string]bool{}
	for len(ordered) < len(wanted) {
		progress := false
		for _, c := range all {
			if !wanted[c] || done[c.name] || !requirementsDone(c, done) {
				continue
			}
			ordered = append(ordered, c)
			done[c.name] = true
			progress = true
		}
		if !progress {
			return nil, fmt.Errorf("Unable to tsort deps, there was a cycle in the graph.")
		}
	}
	return ordered, nil
}

func requirementsDone(c *collector, done map[string]bool) bool {
	for _, r := range c.requires {
		if !done[r] {
			return false
		}
	}
	return true
}

// filterFacts keeps the facts whose name matches one of the patterns
// (shell wildcards); a pattern that does not start with ansible_, facter
// or ohai also matches with ansible_ in front. An empty filter keeps
// everything.
func filterFacts(facts *value.Dict, patterns []string) *value.Dict {
	if len(patterns) == 0 || (len(patterns) == 1 && patterns[0] == "*") {
		return facts
	}
	out := value.NewDict(facts.Len())
	for _, p := range patterns {
		facts.Each(func(k string, v any) bool {
			if p == "" || py.Fnmatch(k, p) {
				out.Set(k, v)
			} else if !strings.HasPrefix(p, "ansible_") && !strings.HasPrefix(p, "facter") && !strings.HasPrefix(p, "ohai") &&
				py.Fnmatch(k, "ansible_"+p) {
				out.Set(k, v)
			}
			return true
		})
	}
	return out
}
