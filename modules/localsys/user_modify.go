package localsys

import (
	"slices"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
)

// modify is modify_user_usermod: usermod with the options that differ
// (and libuser's tools with local).
func (u *userRun) modify() (cmdOutcome, error) {
	lgroupmod, lchage, err := u.libuserTools()
	if err != nil {
		return cmdOutcome{}, err
	}
	bin, err := u.command("usermod")
	if err != nil {
		return cmdOutcome{}, err
	}
	info, _ := u.info()
	hasAppend := u.hasAppend(bin)
	argv := []string{bin}
	if u.p.IsSet("uid") && info.uid != u.p.Int("uid") {
		argv = append(argv, "-u", itoa(u.p.Int("uid")))
		if u.p.Bool("non_unique") {
			argv = append(argv, "-o")
		}
	}
	if g, ok := u.str("group"); ok {
		ge, exists := groupByNameOrID(g)
		if !exists {
			return cmdOutcome{}, module.Fail("Group " + g + " does not exist")
		}
		if info.gid != ge.gid {
			argv = append(argv, "-g", itoa(ge.gid))
		}
	}
	groupArgs, add, del, err := u.groupChanges(hasAppend)
	if err != nil {
		return cmdOutcome{}, err
	}
	argv = append(argv, groupArgs...)
	argv = append(argv, u.attributeChanges(info)...)
	var localExpiry []string
	if arg, change := u.expiryChange(); change {
		if u.local {
			days, _ := u.localExpiresDays()
			localExpiry = []string{lchage, "-E", days, u.name}
		} else {
			argv = append(argv, "-e", arg)
		}
	}
	argv = append(argv, u.passwordChanges(info)...)
	out := cmdOutcome{}
	if len(argv) > 1 {
		if out, err = execute(u.req, append(argv, u.name), true); err != nil {
			return out, err
		}
	}
	if !u.local || (out.ran && out.rc != 0) {
		return out, nil
	}
	var steps [][]string
	if localExpiry != nil {
		steps = append(steps, localExpiry)
	}
	for _, g := range add {
		steps = append(steps, []string{lgroupmod, "-M", u.name, g})
	}
	for _, g := range del {
		steps = append(steps, []string{lgroupmod, "-m", u.name, g})
	}
	return u.runSteps(out, steps)
}

// groupChanges compares the groups option with the user's memberships:
// usermod's -a/-G/-A arguments, or with local the groups to join and
// leave.
func (u *userRun) groupChanges(hasAppend bool) (argv, add, del []string, err error) {
	if !u.hasGroups {
		return nil, nil, nil, nil
	}
	appendMode := u.p.Bool("append")
	current := u.membership()
	var groups, diff []string
	needMod := false
	if u.groups == "" {
		needMod = len(current) > 0 && !appendMode
	} else {
		if groups, err = u.groupsSet(false, true); err != nil {
			return nil, nil, nil, err
		}
		diff = symmetricDifference(current, groups)
		if len(diff) > 0 {
			if !appendMode {
				needMod = true
			}
			for _, g := range groups {
				if appendMode && slices.Contains(diff, g) {
					if hasAppend {
						argv = append(argv, "-a")
					}
					needMod = true
					break
				}
			}
		}
	}
	if !needMod {
		return argv, nil, nil, nil
	}
	if u.local {
		for _, g := range groups {
			if !slices.Contains(current, g) {
				add = append(add, g)
			}
		}
		if !appendMode {
			for _, g := range current {
				if !slices.Contains(groups, g) {
					del = append(del, g)
				}
			}
		}
		return argv, add, del, nil
	}
	if appendMode && !hasAppend {
		return append(argv, "-A", strings.Join(diff, ",")), nil, nil, nil
	}
	return append(argv, "-G", strings.Join(groups, ",")), nil, nil, nil
}

// attributeChanges are usermod's -c, -d (-m), -s and -f for what differs.
func (u *userRun) attributeChanges(info passwdEntry) []string {
	var argv []string
	if c, ok := u.str("comment"); ok && info.gecos != c {
		argv = append(argv, "-c", c)
	}
	if u.home != "" && info.home != u.home {
		argv = append(argv, "-d", u.home)
		if u.p.Bool("move_home") {
			argv = append(argv, "-m")
		}
	}
	if s, ok := u.str("shell"); ok && info.shell != s {
		argv = append(argv, "-s", s)
	}
	if u.p.IsSet("password_expire_account_disable") {
		argv = append(argv, "-f", itoa(u.p.Int("password_expire_account_disable")))
	}
	return argv
}

// passwordChanges are usermod's -L/-U and -p: a new password replaces the
// lock flags (and carries the lock itself).
func (u *userRun) passwordChanges(info passwdEntry) []string {
	var argv []string
	locked := strings.HasPrefix(info.passwd, "!")
	if v, ok := u.p.Get("password_lock"); ok && v != nil {
		if v == true && !locked {
			argv = append(argv, "-L")
		} else if v == false && locked {
			argv = append(argv, "-U")
		}
	}
	pw, ok := u.str("password")
	if u.p.Str("update_password") == "always" && ok && strings.TrimLeft(info.passwd, "!") != strings.TrimLeft(pw, "!") {
		argv = []string{"-p", u.lockedPassword(pw)}
	}
	return argv
}
