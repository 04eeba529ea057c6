package facts

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// collectCmdline is the cmdline collector: the kernel command line, once
// with the last value of each key (cmdline) and once with repeated keys
// as lists (proc_cmdline).
func collectCmdline(_ *system, _ *value.Dict) *value.Dict {
	data, ok := content("/proc/cmdline")
	if !ok {
		return value.NewDict(0)
	}
	pieces, err := splitNonPOSIX(data)
	if err != nil {
		pieces = nil
	}
	last, all := value.NewDict(len(pieces)), value.NewDict(len(pieces))
	for _, p := range pieces {
		k, v, hasValue := strings.Cut(p, "=")
		if !hasValue {
			last.Set(k, true)
			all.Set(k, true)
			continue
		}
		last.Set(k, v)
		switch prev, _ := all.Get(k); x := prev.(type) {
		case nil:
			all.Set(k, v)
		case []any:
			all.Set(k, append(x, v))
		default:
			all.Set(k, []any{x, v})
		}
	}
	return facts("cmdline", last, "proc_cmdline", all)
}

// errNoClosingQuote is shlex's "No closing quotation".
var errNoClosingQuote = errors.New("No closing quotation")

// splitNonPOSIX splits like shlex.split(s, posix=False): on whitespace,
// where a token that starts with a quote runs to the matching quote,
// quotes included.
func splitNonPOSIX(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	var quote rune
	inToken := false
	for _, c := range s {
		switch {
		case quote != 0:
			cur.WriteRune(c)
			if c == quote {
				out = append(out, cur.String())
				cur.Reset()
				quote, inToken = 0, false
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inToken {
				out = append(out, cur.String())
				cur.Reset()
				inToken = false
			}
		case (c == '"' || c == '\'') && !inToken:
			cur.WriteRune(c)
			quote = c
		default:
			cur.WriteRune(c)
			inToken = true
		}
	}
	if quote != 0 {
		return nil, errNoClosingQuote
	}
	if inToken {
		out = append(out, cur.String())
	}
	return out, nil
}

// collectCaps is the caps collector: the process capabilities capsh
// reports.
func collectCaps(s *system, _ *value.Dict) *value.Dict {
	f := facts("system_capabilities_enforced", "N/A", "system_capabilities", "N/A")
	rc, out, found := s.runBin("capsh", "--print")
	if !found || rc != 0 {
		return f
	}
	enforced, caps := "NA", []any{}
	for _, line := range py.Splitlines(out, false) {
		rest, ok := strings.CutPrefix(line, "Current:")
		if !ok {
			continue
		}
		if strings.TrimSpace(strings.Split(rest, ":")[0]) == "=ep" {
			enforced = "False"
			continue
		}
		parts := strings.Split(line, "=")
		if len(parts) < 2 {
			// ansible-core's collector fails on such a line and
			// reports no capability facts at all.
			return value.NewDict(0)
		}
		enforced = "True"
		caps = []any{}
		for _, c := range strings.Split(parts[1], ",") {
			caps = append(caps, strings.TrimSpace(c))
		}
	}
	f.Set("system_capabilities_enforced", enforced)
	f.Set("system_capabilities", caps)
	return f
}

// collectFips is the fips collector.
func collectFips(_ *system, _ *value.Dict) *value.Dict {
	return facts("fips", contentOr("/proc/sys/crypto/fips_enabled", "") == "1")
}

// collectApparmor is the apparmor collector.
func collectApparmor(_ *system, _ *value.Dict) *value.Dict {
	status := "disabled"
	if exists("/sys/kernel/security/apparmor") {
		status = "enabled"
	}
	return facts("apparmor", facts("status", status))
}

// selinuxModes names the enforcing modes as libselinux numbers them.
var selinuxModes = map[string]string{"1": "enforcing", "0": "permissive", "-1": "disabled"}

// collectSelinux is the selinux collector, read from selinuxfs and
// /etc/selinux/config rather than through the Python bindings.
func collectSelinux(_ *system, _ *value.Dict) *value.Dict {
	const fs = "/sys/fs/selinux"
	if !exists(fs+"/enforce") || !exists(fs+"/policyvers") {
		return facts("selinux", facts("status", "disabled"))
	}
	f := facts("status", "enabled")
	if n, err := strconv.Atoi(contentOr(fs+"/policyvers", "")); err == nil {
		f.Set("policyvers", n)
	} else {
		f.Set("policyvers", "unknown")
	}
	config := map[string]string{}
	for _, line := range fileLines("/etc/selinux/config") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && !strings.HasPrefix(k, "#") {
			config[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	mode := map[string]string{"enforcing": "1", "permissive": "0", "disabled": "-1"}[strings.ToLower(config["SELINUX"])]
	f.Set("config_mode", modeName(mode))
	f.Set("mode", modeName(contentOr(fs+"/enforce", "")))
	if t := config["SELINUXTYPE"]; t != "" {
		f.Set("type", t)
	} else {
		f.Set("type", "unknown")
	}
	return facts("selinux", f)
}

func modeName(n string) string {
	if m, ok := selinuxModes[n]; ok {
		return m
	}
	return "unknown"
}

// collectChroot is the chroot collector.
func collectChroot(s *system, _ *value.Dict) *value.Dict {
	if v, ok := s.getenv("debian_chroot"); ok && v != "" {
		return facts("is_chroot", true)
	}
	if same, ok := sameRoot(); ok {
		return facts("is_chroot", !same)
	}
	rootIno := uint64(2)
	if _, out, found := s.runBin("stat", "-f", "--format=%T", "/"); found {
		switch {
		case strings.Contains(out, "btrfs"):
			rootIno = 256
		case strings.Contains(out, "xfs"):
			rootIno = 128
		}
	}
	return facts("is_chroot", rootInode() != rootIno)
}

// collectLoadavg is the loadavg collector (os.getloadavg reads
// /proc/loadavg on Linux).
func collectLoadavg(_ *system, _ *value.Dict) *value.Dict {
	f := strings.Fields(contentOr("/proc/loadavg", ""))
	if len(f) < 3 {
		return value.NewDict(0)
	}
	load := value.NewDict(3)
	for i, k := range []string{"1m", "5m", "15m"} {
		n, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return value.NewDict(0)
		}
		load.Set(k, n)
	}
	return facts("loadavg", load)
}

// collectSystemd is the systemd collector: systemd's version and
// features when it is the init system.
func collectSystemd(s *system, _ *value.Dict) *value.Dict {
	if s.binPath("systemctl") == "" || !systemdBooted(s) {
		return value.NewDict(0)
	}
	rc, out, _ := s.runBin("systemctl", "--version")
	if rc != 0 {
		return value.NewDict(0)
	}
	lines := strings.Split(out, "\n")
	words := strings.Split(out, " ")
	if len(lines) < 2 || len(words) < 2 {
		return value.NewDict(0)
	}
	version, err := strconv.Atoi(words[1])
	if err != nil {
		return value.NewDict(0)
	}
	return facts("systemd", facts("features", lines[1], "version", version))
}

// systemdBooted mirrors sd_booted(): systemd is PID 1.
func systemdBooted(s *system) bool {
	if s.binPath("systemctl") == "" {
		return false
	}
	for _, canary := range []string{"/run/systemd/system/", "/dev/.run/systemd/", "/dev/.systemd/"} {
		if exists(canary) {
			return true
		}
	}
	return false
}

// collectDNS is the dns collector: /etc/resolv.conf.
func collectDNS(_ *system, _ *value.Dict) *value.Dict {
	dns := value.NewDict(4)
	for _, line := range py.Splitlines(contentOr("/etc/resolv.conf", ""), false) {
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") || strings.TrimSpace(line) == "" {
			continue
		}
		tokens := strings.Fields(line)
		switch tokens[0] {
		case "nameserver":
			l, _ := dns.Default("nameservers", []any{}).([]any)
			dns.Set("nameservers", append(l, strList(tokens[1:])...))
		case "domain":
			if len(tokens) > 1 {
				dns.Set("domain", tokens[1])
			}
		case "search":
			dns.Set("search", append([]any{}, strList(tokens[1:])...))
		case "sortlist":
			dns.Set("sortlist", append([]any{}, strList(tokens[1:])...))
		case "options":
			opts := value.NewDict(len(tokens))
			for _, o := range tokens[1:] {
				if k, v, ok := strings.Cut(o, ":"); ok && v != "" {
					opts.Set(k, v)
				} else {
					opts.Set(k, true)
				}
			}
			dns.Set("options", opts)
		}
	}
	return facts("dns", dns)
}

// collectSSHPubKeys is the ssh_pub_keys collector: the host keys of the
// first directory that has any.
func collectSSHPubKeys(_ *system, _ *value.Dict) *value.Dict {
	f := value.NewDict(8)
	for _, dir := range []string{"/etc/ssh", "/etc/openssh", "/etc"} {
		for _, algo := range []string{"dsa", "rsa", "ecdsa", "ed25519"} {
			name := "ssh_host_key_" + algo + "_public"
			if f.Has(name) {
				return f
			}
			data, ok := content(filepath.Join(dir, "ssh_host_"+algo+"_key.pub"))
			if !ok {
				continue
			}
			if words := strings.Fields(data); len(words) >= 2 {
				f.Set(name, words[1])
				f.Set(name+"_keytype", words[0])
			}
		}
	}
	return f
}

// collectISCSI is the iscsi collector on Linux.
func collectISCSI(_ *system, _ *value.Dict) *value.Dict {
	iqn := ""
	for _, line := range py.Splitlines(contentOr("/etc/iscsi/initiatorname.iscsi", ""), false) {
		if v, ok := strings.CutPrefix(line, "InitiatorName="); ok {
			iqn = v
			break
		}
	}
	return facts("iscsi_iqn", iqn)
}

// collectNVMe is the nvme collector on Linux.
func collectNVMe(_ *system, _ *value.Dict) *value.Dict {
	nqn := ""
	for _, line := range py.Splitlines(contentOr("/etc/nvme/hostnqn", ""), false) {
		if strings.HasPrefix(line, "nqn.") {
			nqn = line
			break
		}
	}
	return facts("hostnqn", nqn)
}

// collectFibreChannel is the fibre_channel_wwn collector on Linux.
func collectFibreChannel(_ *system, _ *value.Dict) *value.Dict {
	wwns := []any{}
	ports, _ := filepath.Glob("/sys/class/fc_host/*/port_name")
	for _, p := range ports {
		for _, line := range fileLines(p) {
			line = strings.TrimRight(line, " \t")
			if len(line) > 2 {
				wwns = append(wwns, line[2:])
			} else {
				wwns = append(wwns, "")
			}
		}
	}
	return facts("fibre_channel_wwn", wwns)
}

// collectPython stands for the python collector: cfzt-runner runs no
// Python, so there is nothing to report (a deliberate difference).
func collectPython(_ *system, _ *value.Dict) *value.Dict { return value.NewDict(0) }

// externalFacts runs facter or ohai, when installed, and returns the
// JSON object it prints.
func externalFacts(s *system, run func() (string, bool), failure string) *value.Dict {
	out, ok := run()
	if !ok {
		return value.NewDict(0)
	}
	v, err := value.DecodeJSON([]byte(out))
	d, isDict := v.(*value.Dict)
	if err != nil || !isDict {
		s.warn(failure)
		return value.NewDict(0)
	}
	return d
}

// collectFacter is the facter collector (facts prefixed facter_).
func collectFacter(s *system, _ *value.Dict) *value.Dict {
	return externalFacts(s, func() (string, bool) {
		p := s.binPath("cfacter", "/opt/puppetlabs/bin")
		if p == "" {
			p = s.binPath("facter", "/opt/puppetlabs/bin")
		}
		if p == "" {
			return "", false
		}
		rc, out, _ := s.run(p, "--puppet", "--json")
		if rc != 0 {
			rc, out, _ = s.run(p, "--json")
		}
		return out, rc == 0
	}, "Failed to parse facter facts")
}

// collectOhai is the ohai collector (facts prefixed ohai_).
func collectOhai(s *system, _ *value.Dict) *value.Dict {
	return externalFacts(s, func() (string, bool) {
		rc, out, found := s.runBin("ohai")
		return out, found && rc == 0
	}, "Failed to gather ohai facts")
}
