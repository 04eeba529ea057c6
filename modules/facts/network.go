package facts

import (
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// interfaceTypes name the ARPHRD numbers of /sys/class/net/*/type.
var interfaceTypes = map[string]string{"1": "ether", "32": "infiniband", "512": "ppp", "772": "loopback", "65534": "tunnel"}

// collectNetwork is the network collector on Linux: interfaces from
// /sys/class/net, addresses and routes from the ip command (no network
// facts without it, as in ansible-core).
func collectNetwork(s *system, collected *value.Dict) *value.Dict {
	f := value.NewDict(16)
	ip := s.binPath("ip")
	if ip == "" {
		return f
	}
	v4, v6 := defaultInterfaces(s, ip, collected)
	n := &netScan{s: s, ip: ip, interfaces: value.NewDict(8), v4: v4, v6: v6, allV4: []any{}, allV6: []any{}}
	n.scan()
	var names []any
	n.interfaces.Each(func(k string, v any) bool {
		names = append(names, k)
		f.Set(k, v)
		return true
	})
	f.Set("interfaces", names)
	f.Set("default_ipv4", v4)
	f.Set("default_ipv6", v6)
	f.Set("all_ipv4_addresses", n.allV4)
	f.Set("all_ipv6_addresses", n.allV6)
	f.Set("locally_reachable_ips", locallyReachable(s, ip))
	return f
}

// defaultInterfaces asks the routing table how 8.8.8.8 and a public
// IPv6 address are reached.
func defaultInterfaces(s *system, ip string, collected *value.Dict) (v4, v6 *value.Dict) {
	v4, v6 = value.NewDict(4), value.NewDict(4)
	for _, q := range []struct {
		flag, dest string
		out        *value.Dict
	}{{"-4", "8.8.8.8", v4}, {"-6", "2404:6800:400a:800::1012", v6}} {
		if q.flag == "-6" && value.Str(collected.Default("ansible_os_family", "")) == "RedHat" &&
			strings.HasPrefix(value.Str(collected.Default("ansible_distribution_version", "")), "4.") {
			continue
		}
		_, out, _ := s.run(ip, q.flag, "route", "get", q.dest)
		lines := py.Splitlines(out, false)
		if len(lines) == 0 {
			continue
		}
		words := strings.Fields(lines[0])
		if len(words) == 0 || words[0] != q.dest {
			continue
		}
		for i := 0; i < len(words)-1; i++ {
			switch words[i] {
			case "dev":
				q.out.Set("interface", words[i+1])
			case "src":
				q.out.Set("address", words[i+1])
			case "via":
				if words[i+1] != q.dest {
					q.out.Set("gateway", words[i+1])
				}
			}
		}
	}
	return v4, v6
}

// locallyReachable lists the local routing table's addresses.
func locallyReachable(s *system, ip string) *value.Dict {
	v4, v6 := []any{}, []any{}
	for _, flag := range []string{"-4", "-6"} {
		rc, out, _ := s.run(ip, flag, "route", "show", "table", "local")
		if rc != 0 {
			continue
		}
		for _, line := range py.Splitlines(out, false) {
			w := strings.Fields(line)
			if len(w) < 2 || w[0] != "local" {
				continue
			}
			if strings.Contains(w[1], ":") {
				v6 = appendUniqueAny(v6, w[1])
			} else {
				v4 = appendUniqueAny(v4, w[1])
			}
		}
	}
	return value.DictOf("ipv4", v4, "ipv6", v6)
}

func appendUniqueAny(l []any, s string) []any {
	for _, x := range l {
		if x == s {
			return l
		}
	}
	return append(l, s)
}

// netScan collects the interfaces and their addresses.
type netScan struct {
	s            *system
	ip           string
	interfaces   *value.Dict
	v4, v6       *value.Dict
	allV4, allV6 []any
}

func (n *netScan) scan() {
	paths, _ := filepath.Glob("/sys/class/net/*")
	names, err := readDirNames("/sys/class/net")
	if err == nil {
		// os.listdir order, which glob keeps.
		paths = paths[:0]
		for _, nm := range names {
			paths = append(paths, "/sys/class/net/"+nm)
		}
	}
	for _, path := range paths {
		if !isDir(path) {
			continue
		}
		device := filepath.Base(path)
		iface := sysInterface(path, device)
		n.interfaces.Set(device, iface)
		// ansible-core reports the address file as read, zeros included.
		mac := contentOr(filepath.Join(path, "address"), "")
		if rc, out, _ := n.s.run(n.ip, "addr", "show", "primary", "dev", device); rc == 0 {
			n.parse(out, device, mac, false)
		} else if rc, out, _ := n.s.run(n.ip, "addr", "show", "dev", device); rc == 0 {
			n.parse(out, device, mac, false)
		}
		if rc, out, _ := n.s.run(n.ip, "addr", "show", "secondary", "dev", device); rc == 0 {
			n.parse(out, device, mac, true)
		}
		iface.Update(ethtoolData(n.s, device))
	}
	renamed := value.NewDict(n.interfaces.Len())
	n.interfaces.Each(func(k string, v any) bool {
		renamed.Set(strings.ReplaceAll(k, ":", "_"), v)
		return true
	})
	n.interfaces = renamed
}

// sysInterface reads an interface's attributes from sysfs.
func sysInterface(path, device string) *value.Dict {
	d := value.DictOf("device", device)
	at := func(p ...string) string { return filepath.Join(append([]string{path}, p...)...) }
	if exists(at("address")) {
		if mac := contentOr(at("address"), ""); mac != "" && mac != "00:00:00:00:00:00" {
			d.Set("macaddress", mac)
		}
	}
	if exists(at("mtu")) {
		d.Set("mtu", atoiOr(contentOr(at("mtu"), ""), 0))
	}
	if exists(at("operstate")) {
		d.Set("active", contentOr(at("operstate"), "") != "down")
	}
	if exists(at("device", "driver", "module")) {
		if real, err := filepath.EvalSymlinks(at("device", "driver", "module")); err == nil {
			d.Set("module", filepath.Base(real))
		}
	}
	if exists(at("type")) {
		t, ok := interfaceTypes[contentOr(at("type"), "")]
		if !ok {
			t = "unknown"
		}
		d.Set("type", t)
	}
	if exists(at("bridge")) {
		d.Set("type", "bridge")
		ports, _ := filepath.Glob(at("brif", "*"))
		var names []string
		for _, p := range ports {
			names = append(names, filepath.Base(p))
		}
		d.Set("interfaces", strList(names))
		if exists(at("bridge", "bridge_id")) {
			d.Set("id", contentOr(at("bridge", "bridge_id"), ""))
		}
		if exists(at("bridge", "stp_state")) {
			d.Set("stp", contentOr(at("bridge", "stp_state"), "") == "1")
		}
	}
	if exists(at("bonding")) {
		bondingFacts(d, at)
	}
	if exists(at("bonding_slave")) {
		d.Set("perm_macaddress", contentOr(at("bonding_slave", "perm_hwaddr"), ""))
	}
	if exists(at("device")) {
		if t, ok := readLinkBase(at("device")); ok {
			d.Set("pciid", t)
		}
	}
	if exists(at("speed")) {
		if sp, ok := content(at("speed")); ok {
			if v, err := strconv.Atoi(sp); err == nil {
				d.Set("speed", v)
			}
		}
	}
	if exists(at("flags")) {
		if fl, err := strconv.ParseInt(strings.TrimPrefix(contentOr(at("flags"), "0"), "0x"), 16, 64); err == nil {
			d.Set("promisc", fl&0x100 > 0)
		}
	}
	return d
}

func bondingFacts(d *value.Dict, at func(...string) string) {
	first := func(p string) string {
		if w := strings.Fields(contentOr(at("bonding", p), "")); len(w) > 0 {
			return w[0]
		}
		return ""
	}
	d.Set("type", "bonding")
	d.Set("slaves", strList(strings.Fields(contentOr(at("bonding", "slaves"), ""))))
	d.Set("mode", first("mode"))
	d.Set("miimon", first("miimon"))
	d.Set("lacp_rate", first("lacp_rate"))
	if primary, ok := content(at("bonding", "primary")); ok {
		d.Set("primary", primary)
		if p := at("bonding", "all_slaves_active"); exists(p) {
			d.Set("all_slaves_active", contentOr(p, "") == "1")
		}
	}
}

// parse reads `ip addr show` output for device.
func (n *netScan) parse(out, device, mac string, secondary bool) {
	for _, line := range py.Splitlines(out, false) {
		words := strings.Fields(line)
		if len(words) < 2 {
			continue
		}
		switch words[0] {
		case "inet":
			n.inet(words, device, mac, secondary)
		case "inet6":
			n.inet6(words, device, mac)
		}
	}
}

func (n *netScan) inet(words []string, device, mac string, secondary bool) {
	address, prefix, broadcast := words[1], "32", ""
	if a, p, ok := strings.Cut(words[1], "/"); ok {
		address, prefix = a, p
		if len(words) > 3 && words[2] == "brd" {
			broadcast = words[3]
		}
	}
	plen, _ := strconv.Atoi(prefix)
	addr := net.ParseIP(address).To4()
	if addr == nil {
		return
	}
	mask := net.CIDRMask(plen, 32)
	netmask := net.IP(mask).String()
	network := net.IP(addr.Mask(mask)).String()
	entry := func() *value.Dict {
		return value.DictOf("address", address, "broadcast", broadcast, "netmask", netmask, "network", network, "prefix", prefix)
	}
	ifname := words[len(words)-1]
	if ifname != device {
		n.interfaces.Set(ifname, value.NewDict(2))
	}
	target := n.iface(ifname)
	if !secondary && !target.Has("ipv4") {
		target.Set("ipv4", entry())
	} else {
		l, _ := target.Default("ipv4_secondaries", []any{}).([]any)
		target.Set("ipv4_secondaries", append(l, entry()))
	}
	if secondary {
		dev := n.iface(device)
		l, _ := dev.Default("ipv4_secondaries", []any{}).([]any)
		if device != ifname {
			l = append(l, entry())
		}
		dev.Set("ipv4_secondaries", l)
	}
	if a, ok := n.v4.Get("address"); ok && a == address {
		dev := n.iface(device)
		setAll(n.v4, "broadcast", broadcast, "netmask", netmask, "network", network, "prefix", prefix, "macaddress", mac,
			"mtu", dev.Default("mtu", nil), "type", dev.Default("type", "unknown"), "alias", ifname)
	}
	if !strings.HasPrefix(address, "127.") {
		n.allV4 = append(n.allV4, address)
	}
}

func (n *netScan) inet6(words []string, device, mac string) {
	var address, prefix, scope string
	if len(words) > 5 && words[2] == "peer" {
		address = words[1]
		_, prefix, _ = strings.Cut(words[3], "/")
		scope = words[5]
	} else if len(words) > 3 {
		address, prefix, _ = strings.Cut(words[1], "/")
		scope = words[3]
	} else {
		return
	}
	dev := n.iface(device)
	l, _ := dev.Default("ipv6", []any{}).([]any)
	dev.Set("ipv6", append(l, value.DictOf("address", address, "prefix", prefix, "scope", scope)))
	if a, ok := n.v6.Get("address"); ok && a == address {
		setAll(n.v6, "prefix", prefix, "scope", scope, "macaddress", mac, "mtu", dev.Default("mtu", nil),
			"type", dev.Default("type", "unknown"))
	}
	if address != "::1" {
		n.allV6 = append(n.allV6, address)
	}
}

func (n *netScan) iface(name string) *value.Dict {
	d, ok := n.interfaces.Default(name, nil).(*value.Dict)
	if !ok {
		d = value.NewDict(4)
		n.interfaces.Set(name, d)
	}
	return d
}

var (
	tsFlag   = regexp.MustCompile(`SOF_TIMESTAMPING_(\w+)`)
	tsFilter = regexp.MustCompile(`HWTSTAMP_FILTER_(\w+)`)
	phcIndex = regexp.MustCompile(`PTP Hardware Clock: (\d+)`)
)

// ethtoolData is an interface's offload features and time stamping
// capabilities, when ethtool is installed.
func ethtoolData(s *system, device string) *value.Dict {
	d := value.NewDict(4)
	bin := s.binPath("ethtool")
	if bin == "" {
		return d
	}
	if rc, out, _ := s.run(bin, "-k", device); rc == 0 {
		features := value.NewDict(32)
		for _, line := range py.Splitlines(strings.TrimSpace(out), false) {
			if line == "" || strings.HasSuffix(line, ":") {
				continue
			}
			k, v, ok := strings.Cut(line, ": ")
			if !ok || v == "" {
				continue
			}
			features.Set(strings.ReplaceAll(strings.TrimSpace(k), "-", "_"), strings.TrimSpace(v))
		}
		d.Set("features", features)
	}
	if rc, out, _ := s.run(bin, "-T", device); rc == 0 {
		lower := func(ms [][]string) []any {
			l := []any{}
			for _, m := range ms {
				l = append(l, strings.ToLower(m[1]))
			}
			return l
		}
		d.Set("timestamping", lower(tsFlag.FindAllStringSubmatch(out, -1)))
		d.Set("hw_timestamp_filters", lower(tsFilter.FindAllStringSubmatch(out, -1)))
		if m := phcIndex.FindStringSubmatch(out); m != nil {
			d.Set("phc_index", atoiOr(m[1], 0))
		}
	}
	return d
}
