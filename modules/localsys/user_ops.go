package localsys

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
)

// earlyFailure is exit_json(failed=True, msg=...) for an OSError while the
// home directory is made or given to the user.
func earlyFailure(err error) error { return module.Fail(err.Error()) }

// libuserTools finds lgroupmod and lchage, which local: true needs
// before anything runs ("" without local).
func (u *userRun) libuserTools() (lgroupmod, lchage string, err error) {
	if !u.local {
		return "", "", nil
	}
	if lgroupmod, err = u.bin("lgroupmod"); err != nil {
		return "", "", err
	}
	lchage, err = u.bin("lchage")
	return lgroupmod, lchage, err
}

// create is create_user_useradd.
func (u *userRun) create() (cmdOutcome, error) {
	lgroupmod, lchage, err := u.libuserTools()
	if err != nil {
		return cmdOutcome{}, err
	}
	bin, err := u.command("useradd")
	if err != nil {
		return cmdOutcome{}, err
	}
	argv := []string{bin}
	if u.p.IsSet("uid") {
		argv = append(argv, "-u", itoa(u.p.Int("uid")))
		if u.p.Bool("non_unique") {
			argv = append(argv, "-o")
		}
	}
	if s, ok := u.str("seuser"); ok {
		argv = append(argv, "-Z", s)
	}
	if g, ok := u.str("group"); ok {
		if _, exists := groupByNameOrID(g); !exists {
			return cmdOutcome{}, module.Fail("Group " + g + " does not exist")
		}
		argv = append(argv, "-g", g)
	} else if _, exists := groupByNameOrID(u.name); exists {
		if u.local {
			argv = append(argv, "-n")
		} else {
			argv = append(argv, "-N")
		}
	}
	var groups []string
	if u.groups != "" {
		if groups, err = u.groupsSet(true, false); err != nil {
			return cmdOutcome{}, err
		}
		if !u.local {
			argv = append(argv, "-G", strings.Join(groups, ","))
		}
	}
	if c, ok := u.str("comment"); ok {
		argv = append(argv, "-c", c)
	}
	if u.home != "" {
		if u.p.Bool("create_home") {
			if st, err := os.Stat(filepath.Dir(u.home)); err != nil || !st.IsDir() {
				if err := u.createHomedir(u.home); err != nil {
					return cmdOutcome{}, err
				}
			}
		}
		argv = append(argv, "-d", u.home)
	}
	if s, ok := u.str("shell"); ok {
		argv = append(argv, "-s", s)
	}
	if e, ok := u.expiresArg(); ok && !u.local {
		argv = append(argv, "-e", e)
	}
	if u.p.IsSet("password_expire_account_disable") {
		argv = append(argv, "-f", itoa(u.p.Int("password_expire_account_disable")))
	}
	if pw, ok := u.str("password"); ok {
		argv = append(argv, "-p", u.lockedPassword(pw))
	}
	argv = append(argv, u.homeCreationArgs()...)
	if u.p.Bool("system") {
		argv = append(argv, "-r")
	}
	for _, k := range [][2]string{{"uid_min", "UID_MIN="}, {"uid_max", "UID_MAX="}} {
		if u.p.IsSet(k[0]) {
			argv = append(argv, "-K", k[1]+itoa(u.p.Int(k[0])))
		}
	}
	out, err := execute(u.req, append(argv, u.name), true)
	if err != nil || !u.local || out.rc != 0 {
		return out, err
	}
	return u.localAfterCreate(out, lchage, lgroupmod, groups)
}

// localAfterCreate sets the expiry and the groups with libuser's tools,
// which luseradd does not take.
func (u *userRun) localAfterCreate(out cmdOutcome, lchage, lgroupmod string, groups []string) (cmdOutcome, error) {
	var steps [][]string
	if days, ok := u.localExpiresDays(); ok {
		steps = append(steps, []string{lchage, "-E", days, u.name})
	}
	for _, g := range groups {
		steps = append(steps, []string{lgroupmod, "-M", u.name, g})
	}
	return u.runSteps(out, steps)
}

// runSteps runs further commands after a first one, adding their output,
// and stops at the first failure.
func (u *userRun) runSteps(out cmdOutcome, steps [][]string) (cmdOutcome, error) {
	for _, argv := range steps {
		next, err := execute(u.req, argv, true)
		if err != nil {
			return out, err
		}
		out.ran, out.rc = true, next.rc
		out.stdout += next.stdout
		out.stderr += next.stderr
		if next.rc != 0 {
			break
		}
	}
	return out, nil
}

// localExpiresDays is lchage's -E value for expires: -1 for a negative
// one, else whole days since the epoch.
func (u *userRun) localExpiresDays() (string, bool) {
	v, ok := u.p.Get("expires")
	if !ok || v == nil {
		return "", false
	}
	f, _ := v.(float64)
	if f < 0 {
		return "-1", true
	}
	return strconv.FormatInt(int64(f)/86400, 10), true
}

// homeCreationArgs are useradd's options about the home directory.
func (u *userRun) homeCreationArgs() []string {
	if !u.p.Bool("create_home") {
		return []string{"-M"}
	}
	var argv []string
	if !u.local {
		argv = append(argv, "-m")
	}
	if s, ok := u.str("skeleton"); ok {
		argv = append(argv, "-k", s)
	}
	if s, ok := u.str("umask"); ok {
		argv = append(argv, "-K", "UMASK="+s)
	}
	return argv
}

// lockedPassword is the password as given, with "!" before it when
// password_lock is set.
func (u *userRun) lockedPassword(pw string) string {
	if u.p.Bool("password_lock") {
		return "!" + pw
	}
	return pw
}

// hasAppend is _check_usermod_append: whether usermod --help lists -a.
func (u *userRun) hasAppend(usermod string) bool {
	out, err := runCmdInput(u.req, []string{usermod, "--help"})
	if err != nil {
		return false
	}
	for _, line := range strings.Split(out.stdout+out.stderr, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "-a, --append") {
			return true
		}
	}
	return false
}

// createHomedir makes a home from the skeleton (or empty) with the mode
// login.defs asks for (HOME_MODE, else from UMASK, else 0755).
func (u *userRun) createHomedir(path string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	skel := "/etc/skel"
	if s, ok := u.str("skeleton"); ok {
		skel = s
	}
	if _, err := os.Stat(skel); err == nil && skel != os.DevNull {
		if err := os.CopyFS(path, os.DirFS(skel)); err != nil {
			return earlyFailure(err)
		}
	} else if err := os.MkdirAll(path, 0o777); err != nil {
		return earlyFailure(err)
	}
	if mode, ok := loginDefsHomeMode(); ok {
		if err := os.Chmod(path, mode); err != nil {
			return earlyFailure(err)
		}
	}
	return nil
}

var (
	homeModeLine = regexp.MustCompile(`^HOME_MODE\s+(\d+)$`)
	umaskLine    = regexp.MustCompile(`^UMASK\s+(\d+)$`)
)

// loginDefsHomeMode reads the home directory mode from /etc/login.defs;
// false when the file is missing.
func loginDefsHomeMode() (os.FileMode, bool) {
	f, err := os.Open("/etc/login.defs")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	mode := os.FileMode(0o755)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := homeModeLine.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.ParseUint(m[1], 8, 32)
			return os.FileMode(n), true
		}
		if m := umaskLine.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.ParseUint(m[1], 8, 32)
			mode = os.FileMode(0o777 &^ n)
		}
	}
	return mode, true
}

// chownTree is chown_homedir: the directory and everything under it,
// except symbolic links to files.
func chownTree(root string, uid, gid int) error {
	if err := os.Chown(root, uid, gid); err != nil {
		return err
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(p); err != nil || !st.IsDir() {
				return nil
			}
		}
		return os.Chown(p, uid, gid)
	})
}

// expiryChange is usermod's -e argument when expires differs from the
// shadow entry's expiry day ("" when nothing changes).
func (u *userRun) expiryChange() (arg string, change bool) {
	want, ok := u.expiresArg()
	if !ok {
		return "", false
	}
	_, current := u.shadow()
	if want == "" {
		return "", current >= 0
	}
	currentDate := time.Unix(int64(current)*86400, 0).UTC().Format("2006-01-02")
	return want, current < 0 || currentDate != want
}
