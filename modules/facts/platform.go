package facts

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// collectPlatform is the platform collector: the kernel's uname, host
// names and the architecture.
func collectPlatform(s *system, _ *value.Dict) *value.Dict {
	u := unameInfo()
	f := value.NewDict(12)
	f.Set("system", u.sysname)
	f.Set("kernel", u.release)
	f.Set("kernel_version", u.version)
	f.Set("machine", u.machine)
	fqdn := getFQDN(u.nodename)
	f.Set("fqdn", fqdn)
	short, _, _ := strings.Cut(u.nodename, ".")
	f.Set("hostname", short)
	f.Set("nodename", u.nodename)
	_, domain, _ := strings.Cut(fqdn, ".")
	f.Set("domain", domain)
	bits := strconv.Itoa(strconv.IntSize)
	f.Set("userspace_bits", bits)
	switch {
	case u.machine == "x86_64":
		f.Set("architecture", u.machine)
		f.Set("userspace_architecture", map[string]string{"64": "x86_64", "32": "i386"}[bits])
	case solarisI86(u.machine):
		f.Set("architecture", "i386")
		f.Set("userspace_architecture", map[string]string{"64": "x86_64", "32": "i386"}[bits])
	default:
		f.Set("architecture", u.machine)
	}
	id, ok := content("/var/lib/dbus/machine-id")
	if !ok {
		id, ok = content("/etc/machine-id")
	}
	if ok {
		f.Set("machine_id", py.Splitlines(id, false)[0])
	}
	return f
}

// solarisI86 matches i386..i686 and i86pc.
func solarisI86(machine string) bool {
	for _, m := range []string{"i386", "i486", "i586", "i686", "i86pc"} {
		if strings.Contains(machine, m) {
			return true
		}
	}
	return false
}

// getFQDN is Python's socket.getfqdn() for this host: the host's address
// looked up in reverse, preferring the first of its names that holds a
// dot; the host name itself when a lookup fails.
func getFQDN(host string) string {
	addr := hostsAddr(host)
	if addr == "" {
		addrs, err := net.LookupHost(host)
		if err != nil || len(addrs) == 0 {
			return host
		}
		addr = addrs[0]
	}
	names := hostsNames(addr)
	if names == nil {
		found, err := net.LookupAddr(addr)
		if err != nil || len(found) == 0 {
			return host
		}
		for _, n := range found {
			names = append(names, strings.TrimSuffix(n, "."))
		}
	}
	for _, n := range names {
		if strings.Contains(n, ".") {
			return n
		}
	}
	return names[0]
}

// hostsEntries reads /etc/hosts as (address, names) lines.
func hostsEntries() [][]string {
	var out [][]string
	for _, line := range fileLines("/etc/hosts") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if f := strings.Fields(line); len(f) >= 2 {
			out = append(out, f)
		}
	}
	return out
}

// hostsAddr is the first /etc/hosts address of a name.
func hostsAddr(name string) string {
	for _, e := range hostsEntries() {
		for _, n := range e[1:] {
			if strings.EqualFold(n, name) {
				return e[0]
			}
		}
	}
	return ""
}

// hostsNames are the names of the first /etc/hosts line of an address,
// canonical name first, as gethostbyaddr returns them.
func hostsNames(addr string) []string {
	ip := net.ParseIP(addr)
	for _, e := range hostsEntries() {
		if other := net.ParseIP(e[0]); other != nil && other.Equal(ip) {
			return e[1:]
		}
	}
	return nil
}

// collectUser is the user collector: who the module runs as.
func collectUser(s *system, _ *value.Dict) *value.Dict {
	name := currentUserName(s)
	pw, ok := passwdByName(name)
	if !ok {
		pw, _ = passwdByUID(os.Getuid())
	}
	return facts("user_id", name, "user_uid", pw.uid, "user_gid", pw.gid, "user_gecos", pw.gecos,
		"user_dir", pw.dir, "user_shell", pw.shell, "real_user_id", os.Getuid(), "effective_user_id", os.Geteuid(),
		"real_group_id", os.Getgid(), "effective_group_id", os.Getgid())
}

// currentUserName is getpass.getuser(): LOGNAME, USER, LNAME or USERNAME
// from the environment, else the name of the real user id.
func currentUserName(s *system) string {
	for _, v := range []string{"LOGNAME", "USER", "LNAME", "USERNAME"} {
		if n, ok := s.getenv(v); ok && n != "" {
			return n
		}
	}
	pw, _ := passwdByUID(os.Getuid())
	return pw.name
}

// passwdEntry is one /etc/passwd line.
type passwdEntry struct {
	name, gecos, dir, shell string
	uid, gid                int
}

func passwdEntries() []passwdEntry {
	var out []passwdEntry
	for _, line := range fileLines("/etc/passwd") {
		f := strings.Split(line, ":")
		if len(f) < 7 || strings.HasPrefix(line, "#") {
			continue
		}
		uid, err1 := strconv.Atoi(f[2])
		gid, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, passwdEntry{name: f[0], uid: uid, gid: gid, gecos: f[4], dir: f[5], shell: f[6]})
	}
	return out
}

func passwdByName(name string) (passwdEntry, bool) {
	for _, e := range passwdEntries() {
		if e.name == name {
			return e, true
		}
	}
	return passwdEntry{}, false
}

func passwdByUID(uid int) (passwdEntry, bool) {
	for _, e := range passwdEntries() {
		if e.uid == uid {
			return e, true
		}
	}
	return passwdEntry{name: strconv.Itoa(uid), uid: uid, gid: os.Getgid()}, false
}

// collectEnv is the env collector: the module's environment.
func collectEnv(s *system, _ *value.Dict) *value.Dict {
	env := value.NewDict(len(s.environ))
	for _, kv := range s.environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env.Set(k, v)
		}
	}
	return facts("env", env)
}

// collectDateTime is the date_time collector.
func collectDateTime(s *system, _ *value.Dict) *value.Dict {
	loc := time.Local
	if tz, ok := s.getenv("TZ"); ok {
		if l, err := time.LoadLocation(strings.TrimPrefix(tz, ":")); err == nil {
			loc = l
		}
	}
	return facts("date_time", dateTime(time.Now().In(loc)))
}

// dateTime is the date_time fact for t, in t's zone, with the strftime
// formats ansible-core uses.
func dateTime(t time.Time) *value.Dict {
	utc := t.UTC()
	zone, offset := t.Zone()
	sign := "+"
	if offset < 0 {
		sign, offset = "-", -offset
	}
	epoch := strconv.FormatInt(t.Unix(), 10)
	return value.DictOf(
		"year", t.Format("2006"),
		"month", t.Format("01"),
		"weekday", t.Format("Monday"),
		"weekday_number", strconv.Itoa(int(t.Weekday())),
		"weeknumber", fmt.Sprintf("%02d", weekNumber(t)),
		"day", t.Format("02"),
		"hour", t.Format("15"),
		"minute", t.Format("04"),
		"second", t.Format("05"),
		"epoch", epoch,
		"epoch_int", epoch,
		"date", t.Format("2006-01-02"),
		"time", t.Format("15:04:05"),
		"iso8601_micro", utc.Format("2006-01-02T15:04:05.000000Z"),
		"iso8601", utc.Format("2006-01-02T15:04:05Z"),
		"iso8601_basic", t.Format("20060102T150405")+fmt.Sprintf("%06d", t.Nanosecond()/1000),
		"iso8601_basic_short", t.Format("20060102T150405"),
		"tz", zone,
		"tz_dst", dstName(t),
		"tz_offset", fmt.Sprintf("%s%02d%02d", sign, offset/3600, offset%3600/60),
	)
}

// dstName is time.tzname[1]: the zone's daylight-saving abbreviation, or
// its standard one when it has no daylight saving time.
func dstName(t time.Time) string {
	jan := time.Date(t.Year(), time.January, 1, 12, 0, 0, 0, t.Location())
	jul := time.Date(t.Year(), time.July, 1, 12, 0, 0, 0, t.Location())
	for _, x := range []time.Time{jan, jul} {
		if x.IsDST() {
			n, _ := x.Zone()
			return n
		}
	}
	n, _ := jan.Zone()
	return n
}

// weekNumber is strftime's %W: the week of the year, Monday first.
func weekNumber(t time.Time) int {
	yd := t.YearDay() - 1
	wd := (int(t.Weekday()) + 6) % 7
	return (yd + 7 - wd) / 7
}
