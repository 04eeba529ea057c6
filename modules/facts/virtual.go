package facts

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// virtScan accumulates what LinuxVirtual.get_virtual_facts finds: the
// first finding sets the type and role, every finding adds its
// technology to the guest or host set.
type virtScan struct {
	found       bool
	typ, role   string
	hasRole     bool
	guest, host map[string]bool
}

// guestTech records a guest technology; the first finding sets the type
// (and the role when role is not empty).
func (v *virtScan) guestTech(tech, typ, role string) {
	v.guest[tech] = true
	v.first(typ, role)
}

func (v *virtScan) hostTech(tech, typ, role string) {
	v.host[tech] = true
	v.first(typ, role)
}

func (v *virtScan) first(typ, role string) {
	if v.found {
		return
	}
	v.typ = typ
	if role != "" {
		v.role, v.hasRole = role, true
	}
	v.found = true
}

// collectVirtual is the virtual collector on Linux.
func collectVirtual(s *system, _ *value.Dict) *value.Dict {
	v := &virtScan{guest: map[string]bool{}, host: map[string]bool{}}
	v.containers()
	v.hypervisors()
	v.dmi()
	v.vserverAndCPU(s)
	v.modules()
	if bin := s.binPath("dmidecode"); bin != "" {
		if rc, out, _ := s.run(bin, "-s", "system-product-name"); rc == 0 {
			var vendor strings.Builder
			for _, line := range py.Splitlines(out, false) {
				if !strings.HasPrefix(line, "#") {
					vendor.WriteString(strings.TrimSpace(line))
				}
			}
			if strings.HasPrefix(vendor.String(), "VMware") {
				v.guestTech("VMware", "VMware", "guest")
			}
			if strings.Contains(out, "BHYVE") {
				v.guestTech("bhyve", "bhyve", "guest")
			}
		}
	}
	if exists("/dev/kvm") {
		v.hostTech("kvm", "kvm", "host")
	}
	if !v.found {
		v.typ, v.role, v.hasRole = "NA", "NA", true
	}
	f := value.NewDict(4)
	f.Set("virtualization_type", v.typ)
	if v.hasRole {
		f.Set("virtualization_role", v.role)
	}
	f.Set("virtualization_tech_guest", sortedSet(v.guest))
	f.Set("virtualization_tech_host", sortedSet(v.host))
	return f
}

func sortedSet(m map[string]bool) []any {
	l := make([]string, 0, len(m))
	for k := range m {
		l = append(l, k)
	}
	sort.Strings(l)
	return strList(l)
}

var (
	cgroupDocker = regexp.MustCompile(`/docker(/|-[0-9a-f]+\.scope)`)
	cgroupLXC    = regexp.MustCompile(`/lxc/|/machine\.slice/machine-lxc`)
)

// containers looks for container runtimes: cgroups, PID 1's environment,
// OpenVZ, systemd's container file and Docker's marker files.
func (v *virtScan) containers() {
	for _, line := range fileLines("/proc/1/cgroup") {
		if cgroupDocker.MatchString(line) {
			v.guestTech("docker", "docker", "guest")
		}
		if cgroupLXC.MatchString(line) {
			v.guestTech("lxc", "lxc", "guest")
		}
		if strings.Contains(line, "/system.slice/containerd.service") {
			v.guestTech("containerd", "containerd", "guest")
		}
	}
	if env, ok := content("/proc/1/environ"); ok {
		for _, line := range strings.Split(strings.TrimRight(env, "\x00"), "\x00") {
			if strings.Contains(line, "container=lxc") {
				v.guestTech("lxc", "lxc", "guest")
			}
			if strings.Contains(line, "container=podman") {
				v.guestTech("podman", "podman", "guest")
			}
			if strings.HasPrefix(line, "container=") && len(line) > len("container=") {
				v.guestTech("container", "container", "guest")
			}
		}
	}
	if exists("/proc/vz") && !exists("/proc/lve") {
		v.typ = "openvz"
		role := "guest"
		if exists("/proc/bc") {
			v.host["openvz"], role = true, "host"
		} else {
			v.guest["openvz"] = true
		}
		if !v.found {
			v.role, v.hasRole = role, true
		}
		v.found = true
	}
	systemdContainer, _ := content("/run/systemd/container")
	if systemdContainer != "" {
		v.guestTech(systemdContainer, systemdContainer, "guest")
	}
	if exists("/.dockerenv") || exists("/.dockerinit") {
		v.guestTech("docker", "docker", "guest")
	}
	if v.guest["docker"] || v.guest["lxc"] || v.guest["podman"] || v.guest["openvz"] || v.guest["containerd"] || systemdContainer != "" {
		v.guest["container"] = true
	}
}

// hypervisors looks for Xen.
func (v *virtScan) hypervisors() {
	if !exists("/proc/xen") {
		if !v.found {
			v.role, v.hasRole = "guest", true
		}
		return
	}
	isHost := false
	for _, line := range fileLines("/proc/xen/capabilities") {
		if strings.Contains(line, "control_d") {
			isHost = true
		}
	}
	if isHost {
		v.hostTech("xen", "xen", "host")
	} else {
		v.first("xen", "guest")
		v.found = true
	}
	if !v.found {
		v.role, v.hasRole = "guest", true
	}
}

// dmi recognises hypervisors by the DMI product and vendor names.
func (v *virtScan) dmi() {
	const dir = "/sys/devices/virtual/dmi/id/"
	product, _ := content(dir + "product_name")
	vendor, _ := content(dir + "sys_vendor")
	family, _ := content(dir + "product_family")
	bios, _ := content(dir + "bios_vendor")
	tech := func(name, typ string) {
		v.guest[name] = true
		if !v.found {
			v.typ, v.found = typ, true
		}
	}
	switch product {
	case "KVM", "KVM Server", "Bochs", "AHV", "CloudStack KVM Hypervisor":
		tech("kvm", "kvm")
	}
	if vendor == "oVirt" {
		tech("oVirt", "oVirt")
	}
	if vendor == "Red Hat" {
		if family == "RHV" {
			tech("RHV", "RHV")
		} else if product == "RHEV Hypervisor" {
			tech("RHEV", "RHEV")
		}
	}
	if strings.HasPrefix(product, "VMware") {
		tech("VMware", "VMware")
	}
	if product == "OpenStack Compute" || product == "OpenStack Nova" {
		tech("openstack", "openstack")
	}
	switch bios {
	case "Xen":
		tech("xen", "xen")
	case "innotek GmbH":
		tech("virtualbox", "virtualbox")
	case "Amazon EC2", "DigitalOcean", "Hetzner", "Linode":
		tech("kvm", "kvm")
	}
	switch vendor {
	case "QEMU", "Amazon EC2", "DigitalOcean", "Google", "Scaleway", "Nutanix":
		tech("kvm", "kvm")
	case "KubeVirt":
		tech("KubeVirt", "KubeVirt")
	case "Microsoft Corporation":
		tech("VirtualPC", "VirtualPC")
	case "Parallels Software International Inc.":
		tech("parallels", "parallels")
	case "OpenStack Foundation":
		tech("openstack", "openstack")
	}
	if !v.found {
		v.role, v.hasRole = "", false
	}
}

var (
	vxID     = regexp.MustCompile(`^VxID:\s+\d+`)
	vxIDHost = regexp.MustCompile(`^VxID:\s+0`)
	// cpuSigns map /proc/cpuinfo lines to a guest technology.
	cpuSigns = []struct {
		re   *regexp.Regexp
		tech string
	}{
		{regexp.MustCompile(`^model name.*QEMU Virtual CPU`), "kvm"},
		{regexp.MustCompile(`^vendor_id.*User Mode Linux`), "uml"},
		{regexp.MustCompile(`^model name.*UML`), "uml"},
		{regexp.MustCompile(`^machine.*CHRP IBM pSeries .emulated by qemu.`), "kvm"},
		{regexp.MustCompile(`^vendor_id.*PowerVM Lx86`), "powervm_lx86"},
	}
	s390 = regexp.MustCompile(`^vendor_id.*IBM/S390`)
)

// vserverAndCPU looks for Linux-VServer and for hypervisors the CPU
// model names.
func (v *virtScan) vserverAndCPU(s *system) {
	for _, line := range fileLines("/proc/self/status") {
		if !vxID.MatchString(line) {
			continue
		}
		if !v.found {
			v.typ = "linux_vserver"
		}
		if vxIDHost.MatchString(line) {
			v.host["linux_vserver"] = true
			if !v.found {
				v.role, v.hasRole = "host", true
			}
		} else {
			v.guest["linux_vserver"] = true
			if !v.found {
				v.role, v.hasRole = "guest", true
			}
		}
		v.found = true
	}
	for _, line := range fileLines("/proc/cpuinfo") {
		matched := false
		for _, sign := range cpuSigns {
			if sign.re.MatchString(line) {
				v.guest[sign.tech] = true
				if !v.found {
					v.typ = sign.tech
				}
				matched = true
				break
			}
		}
		if !matched && s390.MatchString(line) {
			v.s390(s)
			matched = true
		}
		if !matched {
			continue
		}
		if !v.found {
			if v.typ == "PR/SM" {
				v.role = "LPAR"
			} else {
				v.role = "guest"
			}
			v.hasRole, v.found = true, true
		}
	}
}

// s390 asks lscpu for the hypervisor of an IBM Z guest.
func (v *virtScan) s390(s *system) {
	v.guest["PR/SM"] = true
	if !v.found {
		v.typ = "PR/SM"
	}
	if s.binPath("lscpu") == "" {
		v.guest["ibm_systemz"] = true
		if !v.found {
			v.typ = "ibm_systemz"
		}
		return
	}
	if rc, out, _ := s.run("lscpu"); rc == 0 {
		for _, line := range py.Splitlines(out, false) {
			k, val, _ := strings.Cut(line, ":")
			if strings.TrimSpace(k) == "Hypervisor" {
				t := strings.TrimSpace(val)
				v.guest[t] = true
				if !v.found {
					v.typ = t
				}
			}
		}
	}
}

// modules looks at the loaded kernel modules for hypervisor hosts.
func (v *virtScan) modules() {
	lines := fileLines("/proc/modules")
	if lines == nil {
		return
	}
	loaded := map[string]bool{}
	for _, line := range lines {
		name, _, _ := strings.Cut(line, " ")
		loaded[name] = true
	}
	if loaded["kvm"] {
		v.host["kvm"] = true
		if !v.found {
			v.typ, v.role, v.hasRole = "kvm", "host", true
		}
		if isDir("/rhev/") {
			comms, _ := filepath.Glob("/proc/[0-9]*/comm")
			for _, c := range comms {
				if data, err := os.ReadFile(c); err == nil {
					if n := strings.TrimRight(string(data), " \t\r\n"); n == "vdsm" || n == "vdsmd" {
						v.host["RHEV"] = true
						if !v.found {
							v.typ = "RHEV"
						}
						break
					}
				}
			}
		}
		v.found = true
	}
	if loaded["vboxdrv"] {
		v.hostTech("virtualbox", "virtualbox", "host")
	}
	if loaded["virtio"] {
		v.hostTech("kvm", "kvm", "guest")
	}
}
