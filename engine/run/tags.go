package run

import (
	"path/filepath"

	"github.com/cfzt/cfzt-runner/engine/playbook"
)

// tagsMatch applies --tags and --skip-tags.
func (r *Runner) tagsMatch(tags []string, t *playbook.Task) bool {
	return TagsSelected(tags, r.Opts.Tags, r.Opts.SkipTags)
}

// TagsSelected reports whether an item with tags runs under --tags only
// and --skip-tags skip, as ansible-core's Taggable.evaluate_tags does.
func TagsSelected(tags, only, skip []string) bool {
	untagged := len(tags) == 0
	if untagged {
		tags = []string{"untagged"}
	}
	has := func(name string) bool { return containsStr(tags, name) }
	disjoint := func(set []string) bool {
		for _, s := range set {
			if has(s) {
				return false
			}
		}
		return true
	}
	if len(only) == 0 {
		only = []string{"all"}
	}
	run := true
	if len(only) > 0 {
		run = has("always") ||
			(containsStr(only, "all") && !has("never")) ||
			!disjoint(only) ||
			(containsStr(only, "tagged") && !untagged && !has("never"))
	}
	if run && len(skip) > 0 {
		switch {
		case containsStr(skip, "all"):
			if !has("always") || containsStr(skip, "always") {
				run = false
			}
		case !disjoint(skip):
			run = false
		case containsStr(skip, "tagged") && !untagged:
			run = false
		}
	}
	return run
}

// startMatches reports whether t is the --start-at-task task.
func (r *Runner) startMatches(t *playbook.Task) bool {
	want := r.Opts.StartAt
	name := t.Name
	if name == want {
		return true
	}
	if t.Role != nil && t.Role.Name()+" : "+name == want {
		return true
	}
	if ok, _ := filepath.Match(want, name); ok {
		return true
	}
	return false
}
