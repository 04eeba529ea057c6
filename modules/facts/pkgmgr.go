package facts

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// pkgMgrs are the package managers recognised by the presence of their
// program; the last one present wins, as in ansible-core.
var pkgMgrs = []struct{ path, name string }{
	{"/usr/bin/rpm-ostree", "atomic_container"}, {"/usr/bin/yum", "dnf"}, {"/usr/bin/dnf-3", "dnf"}, {"/usr/bin/dnf5", "dnf5"},
	{"/usr/bin/apt-get", "apt"}, {"/usr/bin/zypper", "zypper"}, {"/usr/sbin/urpmi", "urpmi"}, {"/usr/bin/pacman", "pacman"},
	{"/bin/opkg", "opkg"}, {"/usr/pkg/bin/pkgin", "pkgin"}, {"/opt/local/bin/pkgin", "pkgin"}, {"/opt/tools/bin/pkgin", "pkgin"},
	{"/opt/local/bin/port", "macports"}, {"/usr/local/bin/brew", "homebrew"}, {"/opt/homebrew/bin/brew", "homebrew"},
	{"/sbin/apk", "apk"}, {"/usr/sbin/pkg", "pkgng"}, {"/usr/sbin/swlist", "swdepot"}, {"/usr/bin/emerge", "portage"},
	{"/usr/sbin/pkgadd", "svr4pkg"}, {"/usr/bin/pkg", "pkg5"}, {"/usr/bin/xbps-install", "xbps"}, {"/usr/local/sbin/pkg", "pkgng"},
	{"/usr/bin/swupd", "swupd"}, {"/usr/sbin/sorcery", "sorcery"}, {"/usr/bin/installp", "installp"},
}

// collectPkgMgr is the pkg_mgr collector.
func collectPkgMgr(s *system, collected *value.Dict) *value.Dict {
	family := value.Str(collected.Default("ansible_os_family", ""))
	name := "unknown"
	for _, p := range pkgMgrs {
		if family == "Altlinux" && p.path == "/usr/bin/pkg" {
			continue
		}
		if exists(p.path) {
			name = p.name
		}
	}
	switch {
	case family == "RedHat":
		name = redHatPkgMgr()
	case family == "Debian" && name != "apt":
		name = "apt"
	case family == "Altlinux" && name == "apt":
		name = "apt_rpm"
	}
	if name == "apt" && exists("/usr/bin/rpm") {
		// APT-RPM when rpm owns apt-get.
		if rc, _, _ := s.run("/usr/bin/rpm", "-q", "--whatprovides", "/usr/bin/apt-get"); rc == 0 {
			name = "apt_rpm"
		}
	}
	return facts("pkg_mgr", name)
}

// redHatPkgMgr is the default package manager of a Red Hat family system.
func redHatPkgMgr() string {
	if exists("/run/ostree-booted") {
		return "atomic_container"
	}
	for _, p := range []string{"/usr/bin/dnf", "/usr/bin/microdnf"} {
		if exists(p) {
			if real, err := filepath.EvalSymlinks(p); err == nil && real == "/usr/bin/dnf5" {
				return "dnf5"
			}
			return "dnf"
		}
	}
	return "unknown"
}

// procOneNames maps PID 1's name to the service manager it is.
var procOneNames = map[string]string{"procd": "openwrt_init", "runit-init": "runit", "svscan": "svc", "openrc-init": "openrc"}

// collectServiceMgr is the service_mgr collector: PID 1's name when it is
// telling, else what the system's layout shows.
func collectServiceMgr(s *system, collected *value.Dict) *value.Dict {
	proc1, ok := content("/proc/1/comm")
	if !ok {
		proc1 = ""
		if rc, out, _ := s.run("/bin/sh", "-c", "ps -p 1 -o comm|tail -n 1"); rc == 0 && strings.TrimSpace(out) != "" &&
			!regexp.MustCompile(`^ *[0-9]+ `).MatchString(out) && out != "COMMAND\n" {
			proc1, ok = out, true
		}
	}
	if !ok {
		if target, err := os.Readlink("/sbin/init"); err == nil {
			proc1, ok = target, true
		}
	}
	if ok {
		proc1 = strings.TrimSpace(filepath.Base(proc1))
		if proc1 == "init" || strings.HasSuffix(proc1, "sh") {
			ok = false
		}
	}
	if ok {
		if m, known := procOneNames[proc1]; known {
			return facts("service_mgr", m)
		}
		return facts("service_mgr", proc1)
	}
	return facts("service_mgr", serviceMgrByLayout(s, collected))
}

func serviceMgrByLayout(s *system, collected *value.Dict) string {
	system := value.Str(collected.Default("ansible_system", ""))
	dist := value.Str(collected.Default("ansible_distribution", ""))
	switch {
	case dist == "MacOSX":
		return "launchd"
	case strings.Contains(system, "BSD") || system == "Bitrig" || system == "DragonFly":
		return "bsdinit"
	case system == "AIX":
		return "src"
	case system == "SunOS":
		return "smf"
	case dist == "OpenWrt":
		return "openwrt_init"
	case dist == "SMGL":
		return "simpleinit_msb"
	case system != "Linux":
		return "service"
	case systemdBooted(s):
		return "systemd"
	case s.binPath("initctl") != "" && exists("/etc/init/"):
		return "upstart"
	case exists("/sbin/openrc"):
		return "openrc"
	case s.binPath("systemctl") != "" && initIsSystemd():
		return "systemd"
	case exists("/etc/init.d/"):
		return "sysvinit"
	case exists("/etc/dinit.d/"):
		return "dinit"
	}
	return "service"
}

// initIsSystemd reports whether /sbin/init links to systemd.
func initIsSystemd() bool {
	target, err := os.Readlink("/sbin/init")
	return err == nil && filepath.Base(target) == "systemd"
}
