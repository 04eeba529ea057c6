package run

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/inventory"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ListOptions select what ListPlaybook prints.
type ListOptions struct {
	Tasks, Tags, Hosts bool
	// OnlyTags and SkipTags are --tags and --skip-tags.
	OnlyTags, SkipTags []string
	// Limit is --limit: the listed hosts are cut down to it.
	Limit string
}

// ListPlaybook prints ansible-playbook's --list-tasks, --list-tags and
// --list-hosts report for one playbook.
func ListPlaybook(w io.Writer, pb *playbook.Playbook, inv *inventory.Inventory, o ListOptions) {
	only := o.OnlyTags
	if o.Tags && len(o.OnlyTags) == 0 && len(o.SkipTags) == 0 {
		// Listing tags shows every tag, including never's, unless the
		// user chose tags.
		only = []string{"never", "all"}
	}
	fmt.Fprintf(w, "\nplaybook: %s\n", pb.Arg)
	for i, play := range pb.Plays {
		hostList := hostsText(play.Hosts)
		name := play.Name
		if name == "" {
			name = hostList
		}
		playTags := uniqueSorted(play.Tags)
		fmt.Fprintf(w, "\n  play #%d (%s): %s\tTAGS: [%s]", i+1, hostList, name, strings.Join(playTags, ","))
		if o.Hosts {
			hosts, _ := inv.Match(play.Hosts)
			hosts, _ = inv.Limit(hosts, o.Limit)
			fmt.Fprintf(w, "\n    pattern: %s\n    hosts (%d):", patternRepr(play.Hosts), len(hosts))
			for _, h := range hosts {
				fmt.Fprintf(w, "\n      %s", h)
			}
		}
		fmt.Fprintln(w)
		if !o.Tasks && !o.Tags {
			continue
		}
		var b strings.Builder
		if o.Tasks {
			b.WriteString("    tasks:\n")
		}
		all := map[string]bool{}
		l := &lister{w: &b, only: only, skip: o.SkipTags, tasks: o.Tasks, playTags: play.Tags, all: all}
		l.items(play.PreTasks, play.Tags)
		for _, ri := range play.Roles {
			l.role(ri, append(append([]string{}, play.Tags...), ri.Ref.Tags...))
		}
		l.items(play.Tasks, play.Tags)
		l.items(play.PostTasks, play.Tags)
		if o.Tags {
			for _, t := range play.Tags {
				all[t] = true
			}
			var tags []string
			for t := range all {
				tags = append(tags, t)
			}
			sort.Strings(tags)
			fmt.Fprintf(&b, "      TASK TAGS: [%s]\n", strings.Join(tags, ", "))
		}
		io.WriteString(w, b.String())
		if !strings.HasSuffix(b.String(), "\n") {
			fmt.Fprintln(w)
		}
	}
}

// lister walks a play's compiled task list.
type lister struct {
	w          *strings.Builder
	only, skip []string
	tasks      bool
	playTags   []string
	all        map[string]bool
}

func (l *lister) role(ri *playbook.RoleInstance, tags []string) {
	for _, d := range ri.Deps {
		l.role(d, append(append([]string{}, tags...), d.Ref.Tags...))
	}
	l.items(ri.Tasks, tags)
}

// selected reports whether a block keeps any task after tag filtering.
func (l *lister) selected(items []playbook.Item, tags []string) bool {
	for _, it := range items {
		switch x := it.(type) {
		case *playbook.Task:
			if TagsSelected(uniqueSorted(append(append([]string{}, tags...), x.Tags...)), l.only, l.skip) {
				return true
			}
		case *playbook.Block:
			inner := append(append([]string{}, tags...), x.Tags...)
			if l.selected(x.Block, inner) || l.selected(x.Rescue, inner) || l.selected(x.Always, inner) {
				return true
			}
		}
	}
	return false
}

// items lists the tasks of a block section (rescue and always sections
// are not listed, as in ansible-playbook).
func (l *lister) items(items []playbook.Item, tags []string) {
	for _, it := range items {
		switch x := it.(type) {
		case *playbook.Task:
			own := uniqueSorted(append(append([]string{}, tags...), x.Tags...))
			if !TagsSelected(own, l.only, l.skip) {
				continue
			}
			for _, t := range own {
				l.all[t] = true
			}
			if !l.tasks {
				continue
			}
			name := x.Name
			if name == "" {
				name = x.Action
			} else if x.Role != nil && x.Info.Kind != module.KindIncludeRole {
				name = x.Role.Name() + " : " + name
			}
			fmt.Fprintf(l.w, "      %s\tTAGS: [%s]\n", name, strings.Join(uniqueSorted(append(append([]string{}, l.playTags...), own...)), ", "))
		case *playbook.Block:
			inner := append(append([]string{}, tags...), x.Tags...)
			if x.Role != nil && x.Role.Ref != nil && !x.Static {
				inner = append(inner, x.Role.Ref.Tags...)
			}
			if !l.selected(x.Block, inner) && !l.selected(x.Rescue, inner) && !l.selected(x.Always, inner) {
				continue
			}
			l.items(x.Block, inner)
		}
	}
}

func uniqueSorted(tags []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range tags {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// hostsText is a play's hosts joined with commas, as the listing shows.
func hostsText(h any) string {
	if l, ok := h.([]any); ok {
		return joinStr(l, ",")
	}
	return value.Str(h)
}

// patternRepr is the Python repr of the play's host list.
func patternRepr(h any) string {
	if l, ok := h.([]any); ok {
		return value.Repr(l)
	}
	return value.Repr([]any{value.Str(h)})
}
