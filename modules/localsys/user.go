package localsys

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// userSpec is the user module's argument_spec (the ssh_key_comment
// default names this host, as the Python module's does).
func userSpec() *argspec.Spec {
	host, _ := os.Hostname()
	b, i, s, p := argspec.Bool, argspec.Int, argspec.Str, argspec.Path
	return &argspec.Spec{Options: []argspec.Option{
		{Name: "state", Type: s, Default: "present", Choices: []any{"absent", "present"}},
		{Name: "name", Type: s, Required: true, Aliases: []string{"user"}},
		{Name: "uid", Type: i},
		{Name: "non_unique", Type: b, Default: false},
		{Name: "group", Type: s},
		{Name: "groups", Type: argspec.List, Elements: s},
		{Name: "comment", Type: s},
		{Name: "home", Type: p},
		{Name: "shell", Type: p},
		{Name: "password", Type: s, NoLog: true},
		{Name: "login_class", Type: s},
		{Name: "password_expire_max", Type: i},
		{Name: "password_expire_min", Type: i},
		{Name: "password_expire_warn", Type: i},
		{Name: "hidden", Type: b},
		{Name: "seuser", Type: s},
		{Name: "force", Type: b, Default: false},
		{Name: "remove", Type: b, Default: false},
		{Name: "create_home", Type: b, Default: true, Aliases: []string{"createhome"}},
		{Name: "skeleton", Type: s},
		{Name: "system", Type: b, Default: false},
		{Name: "move_home", Type: b, Default: false},
		{Name: "append", Type: b, Default: false},
		{Name: "generate_ssh_key", Type: b},
		{Name: "ssh_key_bits", Type: i, Default: 0},
		{Name: "ssh_key_type", Type: s, Default: "rsa"},
		{Name: "ssh_key_file", Type: p},
		{Name: "ssh_key_comment", Type: s, Default: "ansible-generated on " + host},
		{Name: "ssh_key_passphrase", Type: s, NoLog: true},
		{Name: "update_password", Type: s, Default: "always", Choices: []any{"always", "on_create"}},
		{Name: "expires", Type: argspec.Float},
		{Name: "password_lock", Type: b},
		{Name: "local", Type: b},
		{Name: "profile", Type: s},
		{Name: "authorization", Type: s},
		{Name: "role", Type: s},
		{Name: "umask", Type: s},
		{Name: "password_expire_account_disable", Type: i},
		{Name: "uid_min", Type: i},
		{Name: "uid_max", Type: i},
	}}
}

// userRun is one run of the user module on Linux (ansible-core's generic
// User class: useradd, usermod, userdel, chage, ssh-keygen).
type userRun struct {
	req   *module.Request
	p     argspec.Params
	name  string
	local bool
	// groups is the groups option joined with commas; hasGroups tells an
	// empty list from no option.
	groups    string
	hasGroups bool
	home      string
	sshFile   string
	// warnings are the module's warnings, returned in its result.
	warnings []any
}

// User is ansible.builtin.user on Linux.
func User(req *module.Request) (*value.Dict, error) {
	p, failed := validate(req, userSpec())
	if failed != nil {
		return failed, nil
	}
	u := &userRun{req: req, p: p, name: p.Str("name"), local: p.Bool("local"), home: p.Str("home")}
	res, err := u.run()
	if f, ok := err.(*module.Failure); ok {
		res, err = module.FailedResult(f), nil
	}
	if res != nil && len(u.warnings) > 0 {
		res.Set("warnings", u.warnings)
	}
	return res, err
}

// setup mirrors User.__init__ and check_password_encrypted.
func (u *userRun) setup() error {
	if u.local {
		for _, k := range []string{"umask", "uid_min", "uid_max"} {
			if u.p.IsSet(k) {
				return module.Fail("'" + k + "' can not be used with 'local'")
			}
		}
	}
	if u.p.IsSet("groups") {
		u.hasGroups = true
		u.groups = strings.Join(u.p.Strs("groups"), ",")
	}
	u.sshFile = filepath.Join(".ssh", "id_"+u.p.Str("ssh_key_type"))
	if u.p.IsSet("ssh_key_file") {
		u.sshFile = u.p.Str("ssh_key_file")
	}
	if !u.hasGroups && u.p.Bool("append") {
		u.warn("'append' is set, but no 'groups' are specified. Use 'groups' for appending new groups." +
			"This will change to an error in Ansible 2.14.")
	}
	if pw, ok := u.str("password"); ok && pw != "" && passwordLooksUnhashed(pw) {
		u.warn("The input password appears not to have been hashed. " +
			"The 'password' argument must be encrypted for this module to work properly.")
	}
	return nil
}

var hashAlphabet = regexp.MustCompile(`[^a-zA-Z0-9./=]`)

// passwordLooksUnhashed is check_password_encrypted's test.
func passwordLooksUnhashed(pw string) bool {
	if pw == "*" || pw == "!" || pw == "*************" {
		return false
	}
	if strings.ContainsAny(pw, ":*!") || !strings.Contains(pw, "$") {
		return true
	}
	fields := strings.Split(pw, "$")
	if len(fields) < 3 {
		return true
	}
	last := fields[len(fields)-1]
	want := map[string]int{"1": 22, "5": 43, "6": 86, "y": 43}
	if n, ok := want[fields[1]]; ok && len(last) != n {
		return true
	}
	return hashAlphabet.MatchString(last)
}

func (u *userRun) warn(msg string) { u.warnings = append(u.warnings, msg) }

func (u *userRun) str(k string) (string, bool) {
	v, ok := u.p.Get(k)
	if !ok || v == nil {
		return "", false
	}
	return value.Str(v), true
}

func (u *userRun) run() (*value.Dict, error) {
	if err := u.setup(); err != nil {
		return nil, err
	}
	res := value.DictOf("name", u.name, "state", u.p.Str("state"))
	exists, err := u.exists()
	if err != nil {
		return nil, err
	}
	var out cmdOutcome
	if u.p.Str("state") == "absent" {
		if exists {
			if u.req.Check {
				return value.DictOf("changed", true), nil
			}
			if out, err = u.remove(); err != nil {
				return nil, err
			}
			if out.rc != 0 {
				return nil, module.Fail(out.stderr, "name", u.name, "rc", out.rc)
			}
			res.Set("force", u.p.Bool("force"))
			res.Set("remove", u.p.Bool("remove"))
		}
		out.addTo(res)
		return res, nil
	}
	if !exists {
		if u.req.Check {
			return value.DictOf("changed", true), nil
		}
		if out, err = u.createWithHome(); err != nil {
			return nil, err
		}
		res.Set("system", u.p.Bool("system"))
		res.Set("create_home", u.p.Bool("create_home"))
	} else {
		if out, err = u.modify(); err != nil {
			return nil, err
		}
		res.Set("append", u.p.Bool("append"))
		res.Set("move_home", u.p.Bool("move_home"))
	}
	if out.ran && out.rc != 0 {
		return nil, module.Fail(out.stderr, "name", u.name, "rc", out.rc)
	}
	if u.p.IsSet("password") {
		res.Set("password", "NOT_LOGGING_PASSWORD")
	}
	out.addTo(res)
	if ok, _ := u.exists(); ok {
		if err := u.present(res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// createWithHome creates the user; a home whose parent was missing is
// then given to the user, as main() does.
func (u *userRun) createWithHome() (cmdOutcome, error) {
	needsParents := false
	if u.home != "" && u.p.Bool("create_home") {
		if st, err := os.Stat(filepath.Dir(u.home)); err != nil || !st.IsDir() {
			needsParents = true
		}
	}
	out, err := u.create()
	if err != nil || !needsParents {
		return out, err
	}
	if info, ok := u.info(); ok {
		if err := chownTree(u.home, info.uid, info.gid); err != nil {
			return out, earlyFailure(err)
		}
	}
	return out, nil
}

// present completes the result of an existing user: its passwd entry, a
// missing home directory, the ssh key and the password ageing.
func (u *userRun) present(res *value.Dict) error {
	info, _ := u.info()
	res.Set("uid", info.uid)
	res.Set("group", info.gid)
	res.Set("comment", info.gecos)
	res.Set("home", info.home)
	res.Set("shell", info.shell)
	if u.hasGroups {
		res.Set("groups", u.groups)
	}
	home := u.home
	if home == "" {
		home = info.home
	}
	if _, err := os.Stat(home); err != nil && u.p.Bool("create_home") {
		if !u.req.Check {
			if err := u.createHomedir(home); err != nil {
				return err
			}
			if err := chownTree(home, info.uid, info.gid); err != nil {
				return earlyFailure(err)
			}
		}
		res.Set("changed", true)
	}
	if u.p.Bool("generate_ssh_key") {
		if err := u.sshKey(res); err != nil {
			return err
		}
	}
	out, err := u.setPasswordExpire()
	if err != nil {
		return err
	}
	if out.ran {
		if out.rc != 0 {
			return module.Fail(out.stderr, "name", u.name, "rc", out.rc)
		}
		res.Set("changed", true)
	}
	return nil
}

// exists is user_exists: /etc/passwd as pwd reads it, or its own lines
// with local.
func (u *userRun) exists() (bool, error) {
	if u.local {
		ok, err := localEntryExists(passwdFile, u.name)
		if err != nil {
			return false, module.Fail("'local: true' specified but unable to find local account file " + passwdFile + " to parse.")
		}
		return ok, nil
	}
	_, ok := userByName(u.name)
	return ok, nil
}

// info is user_info: the passwd entry, with the shadow password when
// the passwd one is a placeholder.
func (u *userRun) info() (passwdEntry, bool) {
	if ok, _ := u.exists(); !ok {
		return passwdEntry{}, false
	}
	info, ok := userByName(u.name)
	if !ok {
		return info, false
	}
	if len(info.passwd) <= 1 {
		info.passwd, _ = u.shadow()
	}
	return info, true
}

// shadow is user_password: the shadow password and expiry day ("" and
// -1 when the user has no shadow entry).
func (u *userRun) shadow() (string, int) {
	sp, ok := shadowByName(u.name)
	if !ok {
		return "", 0
	}
	return sp.passwd, sp.expire
}

// bin is get_bin_path(name, required=True): its failure is the module's.
func (u *userRun) bin(name string) (string, error) {
	p, err := binPath(u.req, name)
	if err != nil {
		return "", module.Fail(err.Error())
	}
	return p, nil
}

// command resolves useradd/usermod/userdel, or their libuser
// counterparts with local.
func (u *userRun) command(name string) (string, error) {
	if u.local {
		name = "l" + name
	}
	return u.bin(name)
}

func (u *userRun) remove() (cmdOutcome, error) {
	bin, err := u.command("userdel")
	if err != nil {
		return cmdOutcome{}, err
	}
	argv := []string{bin}
	if u.p.Bool("force") && !u.local {
		argv = append(argv, "-f")
	}
	if u.p.Bool("remove") {
		argv = append(argv, "-r")
	}
	return execute(u.req, append(argv, u.name), true)
}

// expiresArg is the -e argument for expires (days since the epoch as a
// date; "" for a negative value, which clears the expiry).
func (u *userRun) expiresArg() (string, bool) {
	v, ok := u.p.Get("expires")
	if !ok || v == nil {
		return "", false
	}
	f, _ := v.(float64)
	if f < 0 {
		return "", true
	}
	return time.Unix(int64(f), 0).UTC().Format("2006-01-02"), true
}

// groupsSet is get_groups_set: the groups option's names, each checked to
// exist; with removePrimary the user's primary group is left out, with
// namesOnly numbers become names.
func (u *userRun) groupsSet(removePrimary, namesOnly bool) ([]string, error) {
	info, hasInfo := u.info()
	var out []string
	for _, g := range strings.Split(u.groups, ",") {
		g = strings.TrimSpace(g)
		if g == "" || slices.Contains(out, g) {
			continue
		}
		ge, ok := groupByNameOrID(g)
		if !ok {
			return nil, module.Fail("Group " + g + " does not exist")
		}
		switch {
		case hasInfo && removePrimary && ge.gid == info.gid:
		case namesOnly:
			if !slices.Contains(out, ge.name) {
				out = append(out, ge.name)
			}
		default:
			out = append(out, g)
		}
	}
	return out, nil
}

// membership is user_group_membership(exclude_primary=False): the groups
// that list the user as a member.
func (u *userRun) membership() []string {
	var out []string
	for _, g := range allGroups() {
		if slices.Contains(g.members, u.name) {
			out = append(out, g.name)
		}
	}
	return out
}

// symmetricDifference is Python's set ^ set, sorted for a stable command
// line.
func symmetricDifference(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

// itoa formats a number argument.
func itoa(n int) string { return strconv.Itoa(n) }
