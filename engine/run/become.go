package run

import (
	"fmt"
	"os"
	"os/user"
	"strconv"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// cfzt-runner does not escalate privileges: every task runs as the user
// that runs cfzt-runner. A task that asks to become another user fails
// with a message saying so, rather than running as the current user in
// its place; becoming the current user (root as root) is nothing to do
// and runs. Controller-only actions (debug, set_fact, ...) never become
// anyone under ansible-core either, so they run.

// becomeSetting is one become setting and what gave it.
type becomeSetting struct {
	value any
	from  string
}

// becomeSettingOf reads a become setting as ansible-core's PlayContext
// does: the variable wins over the keyword (task, block, play), which wins
// over the command line.
func (tr *taskRun) becomeSettingOf(sc *scope, variable, keyword string, get func(*playbook.Keywords) any, cli any, cliFlag string) (becomeSetting, bool) {
	if v, _, ok := sc.Lookup(variable); ok {
		return becomeSetting{tr.renderScalar(v, sc), variable}, true
	}
	if kw := tr.f.keyword(tr.t, keyword, get); kw != nil {
		return becomeSetting{tr.renderScalar(kw, sc), "the " + keyword + " keyword"}, true
	}
	if cli != nil {
		return becomeSetting{cli, cliFlag}, true
	}
	return becomeSetting{}, false
}

// becomeProblem returns the error of a task that asks to become a user
// other than the current one, or nil.
func (tr *taskRun) becomeProblem(sc *scope) error {
	if connectionlessTask(tr) {
		return nil
	}
	var cliBecome any
	if tr.r.Opts.Become {
		cliBecome = true
	}
	b, ok := tr.becomeSettingOf(sc, "ansible_become", "become", func(k *playbook.Keywords) any { return k.Become }, cliBecome, orDefault(tr.r.Opts.BecomeFrom, "-b/--become"))
	if !ok || !keywordBool(b.value) {
		return nil
	}
	var cliUser any
	if tr.r.Opts.BecomeUser != "" {
		cliUser = tr.r.Opts.BecomeUser
	}
	target, from := "root", "the default become_user"
	if u, ok := tr.becomeSettingOf(sc, "ansible_become_user", "become_user", func(k *playbook.Keywords) any { return k.BecomeUser }, cliUser, orDefault(tr.r.Opts.BecomeUserFrom, "--become-user")); ok && u.value != nil && value.Str(u.value) != "" {
		target, from = value.Str(u.value), u.from
	}
	current, isCurrent := isCurrentUser(target)
	if isCurrent {
		return nil
	}
	return fmt.Errorf("cfzt-runner does not implement become: this task asks to become '%s' (%s; become set by %s), but cfzt-runner runs every task as the user that runs it ('%s'). Run cfzt-runner as '%s', or remove become from the task.", target, from, b.from, current, target)
}

// isCurrentUser reports whether name (a user name or a numeric uid) is
// the user cfzt-runner runs as, and returns that user's name.
func isCurrentUser(name string) (string, bool) {
	uid := os.Getuid()
	current := strconv.Itoa(uid)
	if u, err := user.Current(); err == nil {
		current = u.Username
	}
	if name == current || name == strconv.Itoa(uid) {
		return current, true
	}
	if u, err := user.Lookup(name); err == nil && u.Uid == strconv.Itoa(uid) {
		return current, true
	}
	return current, false
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
