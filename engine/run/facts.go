package run

import (
	"bufio"
	"fmt"
	"os"
	"os/user"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// gatherFacts runs the implicit "Gathering Facts" task of a play whose
// gather_facts is on (the default). Facts are read natively from the
// local system; like ansible-core's setup result they are never dumped
// on screen (_ansible_verbose_override).
func (r *Runner) gatherFacts(ps *playState) {
	if !r.gatheringOn(ps.play) || !TagsSelected([]string{"always"}, r.Opts.Tags, r.Opts.SkipTags) {
		return
	}
	hosts := r.activeHosts(ps)
	if len(hosts) == 0 {
		return
	}
	t := &playbook.Task{Name: "Gathering Facts", Module: "setup", Action: "ansible.builtin.setup", Pos: ps.play.Pos,
		File: ps.play.Pos.File, Args: value.NewDict(0)}
	r.Display.TaskStart(t.Name, t, false)
	facts := localFacts()
	for _, h := range hosts {
		hs := r.host(h)
		hs.gathered = value.NewDict(len(facts.Keys()) + 1)
		hs.gathered.Set("ansible_facts", facts)
		facts.Each(func(k string, v any) bool {
			hs.gathered.Set("ansible_"+k, v)
			return true
		})
		res := value.DictOf("ansible_facts", facts, "changed", false, "_ansible_verbose_override", true)
		r.stat(h).OK++
		r.Display.Result(&Event{Host: h, Task: t, Name: t.Name, Status: StatusOK, Result: res})
	}
}

// gatheringOn reads the play's gather_facts (ANSIBLE_GATHERING=explicit
// turns the default off).
func (r *Runner) gatheringOn(p *playbook.Play) bool {
	if p.GatherFacts == nil {
		return strings.ToLower(os.Getenv("ANSIBLE_GATHERING")) != "explicit"
	}
	return keywordBool(p.GatherFacts)
}

// localFacts collects the facts of this machine that a local runtime can
// read without Python: host names, OS and distribution, kernel, CPU and
// memory, the user, the environment and the date.
func localFacts() *value.Dict {
	f := value.NewDict(48)
	host, _ := os.Hostname()
	short, domain, _ := strings.Cut(host, ".")
	f.Set("hostname", short)
	f.Set("nodename", host)
	f.Set("fqdn", host)
	f.Set("domain", domain)
	system := strings.ToUpper(runtime.GOOS[:1]) + runtime.GOOS[1:]
	f.Set("system", system)
	f.Set("kernel", readTrim("/proc/sys/kernel/osrelease"))
	f.Set("kernel_version", readTrim("/proc/sys/kernel/version"))
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i386", "arm": "armv7l"}[runtime.GOARCH]
	if arch == "" {
		arch = runtime.GOARCH
	}
	f.Set("machine", arch)
	f.Set("architecture", arch)
	f.Set("userspace_architecture", arch)
	f.Set("userspace_bits", strconv.Itoa(strconv.IntSize))
	osr := osRelease()
	dist := osr["NAME"]
	if d, _, ok := strings.Cut(dist, " "); ok {
		dist = d
	}
	f.Set("distribution", dist)
	f.Set("distribution_version", osr["VERSION_ID"])
	major, _, _ := strings.Cut(osr["VERSION_ID"], ".")
	f.Set("distribution_major_version", major)
	f.Set("distribution_release", osr["VERSION_CODENAME"])
	f.Set("os_family", osFamily(osr))
	nproc := runtime.NumCPU()
	f.Set("processor_count", 1)
	f.Set("processor_cores", nproc)
	f.Set("processor_vcpus", nproc)
	f.Set("processor_nproc", nproc)
	f.Set("processor_threads_per_core", 1)
	mem := meminfo()
	f.Set("memtotal_mb", mem["MemTotal"]/1024)
	f.Set("memfree_mb", mem["MemFree"]/1024)
	f.Set("swaptotal_mb", mem["SwapTotal"]/1024)
	f.Set("swapfree_mb", mem["SwapFree"]/1024)
	if up := strings.Fields(readTrim("/proc/uptime")); len(up) > 0 {
		if s, err := strconv.ParseFloat(up[0], 64); err == nil {
			f.Set("uptime_seconds", int(s))
		}
	}
	if u, err := user.Current(); err == nil {
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		f.Set("user_id", u.Username)
		f.Set("user_uid", uid)
		f.Set("user_gid", gid)
		f.Set("user_dir", u.HomeDir)
		f.Set("user_gecos", u.Name)
		f.Set("user_shell", os.Getenv("SHELL"))
		f.Set("real_user_id", os.Getuid())
		f.Set("effective_user_id", os.Geteuid())
		f.Set("real_group_id", os.Getgid())
		f.Set("effective_group_id", os.Getegid())
	}
	env := value.NewDict(32)
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env.Set(k, v)
		}
	}
	f.Set("env", env)
	f.Set("date_time", dateTime(time.Now()))
	f.Set("pkg_mgr", pkgMgr())
	f.Set("service_mgr", serviceMgr())
	f.Set("is_chroot", false)
	f.Set("ansible_local", value.NewDict(0))
	f.Set("gather_subset", []any{"all"})
	f.Set("module_setup", true)
	return f
}

func readTrim(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func osRelease() map[string]string {
	out := map[string]string{}
	for _, p := range []string{"/etc/os-release", "/usr/lib/os-release"} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				out[k] = strings.Trim(v, `"'`)
			}
		}
		break
	}
	return out
}

// osFamily maps a distribution to ansible-core's os_family.
func osFamily(osr map[string]string) string {
	ids := append([]string{osr["ID"]}, strings.Fields(osr["ID_LIKE"])...)
	for _, id := range ids {
		switch id {
		case "debian", "ubuntu":
			return "Debian"
		case "rhel", "fedora", "centos", "rocky", "almalinux":
			return "RedHat"
		case "alpine":
			return "Alpine"
		case "arch":
			return "Archlinux"
		case "suse", "opensuse":
			return "Suse"
		}
	}
	if runtime.GOOS == "darwin" {
		return "Darwin"
	}
	if osr["NAME"] != "" {
		n, _, _ := strings.Cut(osr["NAME"], " ")
		return n
	}
	return strings.ToUpper(runtime.GOOS[:1]) + runtime.GOOS[1:]
}

func meminfo() map[string]int {
	out := map[string]int{}
	fh, err := os.Open("/proc/meminfo")
	if err != nil {
		return out
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		if fs := strings.Fields(v); len(fs) > 0 {
			n, _ := strconv.Atoi(fs[0])
			out[k] = n
		}
	}
	return out
}

func pkgMgr() string {
	for _, c := range []struct{ path, name string }{{"/usr/bin/apt-get", "apt"}, {"/usr/bin/dnf", "dnf"}, {"/usr/bin/yum", "yum"},
		{"/sbin/apk", "apk"}, {"/usr/bin/zypper", "zypper"}, {"/usr/bin/pacman", "pacman"}} {
		if fileExists(c.path) {
			return c.name
		}
	}
	return "unknown"
}

func serviceMgr() string {
	if dirExists("/run/systemd/system") {
		return "systemd"
	}
	if comm := readTrim("/proc/1/comm"); comm != "" {
		return comm
	}
	return "service"
}

// dateTime is the ansible_date_time fact for t.
func dateTime(t time.Time) *value.Dict {
	utc := t.UTC()
	zone, offset := t.Zone()
	sign := "+"
	if offset < 0 {
		sign, offset = "-", -offset
	}
	return value.DictOf(
		"date", t.Format("2006-01-02"),
		"day", t.Format("02"),
		"epoch", strconv.FormatInt(t.Unix(), 10),
		"epoch_int", strconv.FormatInt(t.Unix(), 10),
		"hour", t.Format("15"),
		"iso8601", utc.Format("2006-01-02T15:04:05Z"),
		"iso8601_basic", t.Format("20060102T150405.000000"),
		"iso8601_basic_short", t.Format("20060102T150405"),
		"iso8601_micro", utc.Format("2006-01-02T15:04:05.000000Z"),
		"minute", t.Format("04"),
		"month", t.Format("01"),
		"second", t.Format("05"),
		"time", t.Format("15:04:05"),
		"tz", zone,
		"tz_dst", zone,
		"tz_offset", fmt.Sprintf("%s%02d%02d", sign, offset/3600, offset%3600/60),
		"weekday", t.Format("Monday"),
		"weekday_number", strconv.Itoa(int(t.Weekday())),
		"weeknumber", fmt.Sprintf("%02d", weekNumber(t)),
		"year", t.Format("2006"),
	)
}

// weekNumber is strftime's %W: the week of the year, Monday first.
func weekNumber(t time.Time) int {
	yd := t.YearDay() - 1
	wd := (int(t.Weekday()) + 6) % 7
	return (yd + 7 - wd) / 7
}
