package run

import (
	"sort"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// CustomStatsDisplay is an optional Display method for the set_stats
// data of the run, shown after the recap when SHOW_CUSTOM_STATS is on:
// perHost by host name, run for the stats set without per_host.
type CustomStatsDisplay interface {
	CustomStats(hosts []string, perHost map[string]*value.Dict, run *value.Dict)
}

// runStatsKey is where stats without a host go, as in ansible-core.
const runStatsKey = "_run"

// recordStats adds an ok result's ansible_stats to the run's custom
// stats, as the strategy does: per host (each host the task ran for) or
// for the whole run, set or aggregated.
func (tr *taskRun) recordStats(res *value.Dict, hosts []*hostState) {
	stats, ok := res.Default("ansible_stats", nil).(*value.Dict)
	if !ok {
		return
	}
	data, ok := stats.Default("data", nil).(*value.Dict)
	if !ok || data.Len() == 0 {
		return
	}
	targets := []string{runStatsKey}
	if value.Truthy(stats.Default("per_host", true)) {
		targets = targets[:0]
		for _, hs := range hosts {
			targets = append(targets, hs.name)
		}
	}
	aggregate := value.Truthy(stats.Default("aggregate", false))
	if tr.r.custom == nil {
		tr.r.custom = map[string]*value.Dict{}
	}
	for _, h := range targets {
		cur, ok := tr.r.custom[h]
		if !ok {
			cur = value.NewDict(data.Len())
			tr.r.custom[h] = cur
		}
		data.Each(func(k string, v any) bool {
			if aggregate {
				aggregateStat(cur, k, v)
			} else {
				cur.Set(k, v)
			}
			return true
		})
	}
}

// aggregateStat is update_custom_stats: a new stat is set; a dict merges
// into the one recorded, numbers add, strings and lists concatenate; a
// value of another type than the recorded one is ignored.
func aggregateStat(cur *value.Dict, k string, v any) {
	old, ok := cur.Get(k)
	if !ok {
		cur.Set(k, v)
		return
	}
	switch o := old.(type) {
	case *value.Dict:
		if d, ok := v.(*value.Dict); ok {
			cur.Set(k, mergeHash(o, d))
		}
	case []any:
		if l, ok := v.([]any); ok {
			cur.Set(k, append(append([]any{}, o...), l...))
		}
	case string:
		if s, ok := v.(string); ok {
			cur.Set(k, o+s)
		}
	case bool:
		if b, ok := v.(bool); ok {
			cur.Set(k, boolInt(o)+boolInt(b))
		}
	case int:
		switch n := v.(type) {
		case int:
			cur.Set(k, o+n)
		case bool:
			cur.Set(k, o+boolInt(n))
		}
	case float64:
		if f, ok := v.(float64); ok {
			cur.Set(k, o+f)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// mergeHash is ansible-core's merge_hash with list_merge=replace: b's
// keys win, dicts present in both merge recursively.
func mergeHash(a, b *value.Dict) *value.Dict {
	out := a.Copy()
	b.Each(func(k string, v any) bool {
		if bd, ok := v.(*value.Dict); ok {
			if ad, ok := out.Default(k, nil).(*value.Dict); ok {
				out.Set(k, mergeHash(ad, bd))
				return true
			}
		}
		out.Set(k, v)
		return true
	})
	return out
}

// showCustomStats hands the custom stats to the display after the
// recap, when SHOW_CUSTOM_STATS is on and any were recorded.
func (r *Runner) showCustomStats() {
	cs, ok := r.Display.(CustomStatsDisplay)
	if !ok || !r.Opts.ShowCustomStats || len(r.custom) == 0 {
		return
	}
	var hosts []string
	for h := range r.custom {
		if h != runStatsKey {
			hosts = append(hosts, h)
		}
	}
	sort.Strings(hosts)
	cs.CustomStats(hosts, r.custom, r.custom[runStatsKey])
}
