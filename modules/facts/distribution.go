package facts

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// distFile is one candidate distribution file, tried in order.
type distFile struct {
	path, name string
	allowEmpty bool
}

// distFiles are DistributionFiles.OSDIST_LIST.
var distFiles = []distFile{
	{path: "/etc/altlinux-release", name: "Altlinux"},
	{path: "/etc/oracle-release", name: "OracleLinux"},
	{path: "/etc/slackware-version", name: "Slackware"},
	{path: "/etc/centos-release", name: "CentOS"},
	{path: "/etc/redhat-release", name: "RedHat"},
	{path: "/etc/vmware-release", name: "VMwareESX", allowEmpty: true},
	{path: "/etc/openwrt_release", name: "OpenWrt"},
	{path: "/etc/os-release", name: "Amazon"},
	{path: "/etc/system-release", name: "Amazon"},
	{path: "/etc/alpine-release", name: "Alpine"},
	{path: "/etc/arch-release", name: "Archlinux", allowEmpty: true},
	{path: "/etc/os-release", name: "Archlinux"},
	{path: "/etc/os-release", name: "SUSE"},
	{path: "/etc/SuSE-release", name: "SUSE"},
	{path: "/etc/gentoo-release", name: "Gentoo"},
	{path: "/etc/os-release", name: "Debian"},
	{path: "/etc/lsb-release", name: "Debian"},
	{path: "/etc/lsb-release", name: "Mandriva"},
	{path: "/etc/sourcemage-release", name: "SMGL"},
	{path: "/usr/lib/os-release", name: "ClearLinux"},
	{path: "/etc/coreos/update.conf", name: "Coreos"},
	{path: "/etc/os-release", name: "Flatcar"},
	{path: "/etc/os-release", name: "NA"},
}

// distSearchStrings name distributions recognised by a string in their
// file; osReleaseAliases those recognised by their os-release NAME.
var (
	distSearchStrings = map[string]string{"OracleLinux": "Oracle Linux", "RedHat": "Red Hat", "Altlinux": "ALT", "SMGL": "Source Mage GNU/Linux"}
	osReleaseAliases  = map[string]string{"Archlinux": "Arch Linux"}
)

// osFamilies maps distributions to ansible_os_family.
var osFamilies = map[string][]string{
	"RedHat": {"RedHat", "RHEL", "Fedora", "CentOS", "Scientific", "SLC", "Ascendos", "CloudLinux", "PSBM", "OracleLinux", "OVS",
		"OEL", "Amazon", "Amzn", "Virtuozzo", "XenServer", "Alibaba", "EulerOS", "openEuler", "AlmaLinux", "Rocky", "TencentOS",
		"EuroLinux", "Kylin Linux Advanced Server", "MIRACLE"},
	"Debian": {"Debian", "Ubuntu", "Raspbian", "Neon", "KDE neon", "Linux Mint", "SteamOS", "Devuan", "Kali", "Cumulus Linux",
		"Pop!_OS", "Parrot", "Pardus GNU/Linux", "Uos", "Deepin", "OSMC", "Linux Mint Debian Edition"},
	"Suse": {"SuSE", "SLES", "SLED", "openSUSE", "openSUSE Tumbleweed", "SLES_SAP", "SUSE_LINUX", "openSUSE Leap", "ALP-Dolomite",
		"SL-Micro", "openSUSE MicroOS"},
	"Archlinux":  {"Archlinux", "Antergos", "Manjaro"},
	"Mandrake":   {"Mandrake", "Mandriva"},
	"Solaris":    {"Solaris", "Nexenta", "OmniOS", "OpenIndiana", "SmartOS"},
	"Slackware":  {"Slackware"},
	"Altlinux":   {"Altlinux"},
	"SMGL":       {"SMGL"},
	"Gentoo":     {"Gentoo", "Funtoo"},
	"Alpine":     {"Alpine"},
	"AIX":        {"AIX"},
	"HP-UX":      {"HPUX"},
	"Darwin":     {"MacOSX"},
	"FreeBSD":    {"FreeBSD", "TrueOS"},
	"ClearLinux": {"Clear Linux OS", "Clear Linux Mix"},
	"DragonFly":  {"DragonflyBSD", "DragonFlyBSD", "Gentoo/DragonflyBSD", "Gentoo/DragonFlyBSD"},
	"NetBSD":     {"NetBSD"},
}

func osFamily(dist string) string {
	for family, names := range osFamilies {
		if containsString(names, dist) {
			return family
		}
	}
	return dist
}

// collectDistribution is the distribution collector.
func collectDistribution(s *system, _ *value.Dict) *value.Dict {
	u := unameInfo()
	f := map[string]any{"distribution": u.sysname, "distribution_release": u.release, "distribution_version": u.version}
	if u.sysname == "Linux" {
		for k, v := range processDistFiles(s, newDistro(s)) {
			f[k] = v
		}
	}
	out := value.NewDict(len(f) + 1)
	for _, k := range []string{"distribution", "distribution_release", "distribution_version", "distribution_major_version",
		"distribution_minor_version", "distribution_file_path", "distribution_file_variety", "distribution_file_parsed",
		"distribution_file_search_string"} {
		if v, ok := f[k]; ok {
			out.Set(k, v)
		}
	}
	out.Set("os_family", osFamily(value.Str(f["distribution"])))
	return out
}

// processDistFiles is DistributionFiles.process_dist_files: the guess
// from distro, refined by the first distribution file that parses.
func processDistFiles(s *system, d *distro) map[string]any {
	facts := map[string]any{}
	guess := d.guess()
	for k, v := range guess {
		facts[k] = v
	}
	for _, df := range distFiles {
		st, err := os.Stat(df.path)
		if err != nil || !st.Mode().IsRegular() || (!df.allowEmpty && st.Size() == 0) {
			continue
		}
		if df.allowEmpty {
			facts["distribution"], facts["distribution_file_path"], facts["distribution_file_variety"] = df.name, df.path, df.name
			break
		}
		data, _ := content(df.path)
		parsed, found := parseDistFile(df.name, strings.Trim(data, `'"\`), df.path, guess)
		if !parsed {
			continue
		}
		facts["distribution"], facts["distribution_file_path"], facts["distribution_file_variety"] = df.name, df.path, df.name
		facts["distribution_file_parsed"] = true
		for k, v := range found {
			facts[k] = v
		}
		break
	}
	return facts
}

// parseDistFile reads one distribution file; parsed is false when the
// file does not describe this distribution.
func parseDistFile(name, data, path string, guess map[string]string) (parsed bool, found map[string]string) {
	found = map[string]string{}
	if search, ok := distSearchStrings[name]; ok {
		if strings.Contains(data, search) {
			found["distribution"] = name
			found["distribution_file_search_string"] = search
		} else if w := strings.Fields(data); len(w) > 0 {
			found["distribution"] = w[0]
		}
		return true, found
	}
	if alias, ok := osReleaseAliases[name]; ok {
		if strings.Contains(data, alias) {
			found["distribution"] = name
			return true, found
		}
		return false, found
	}
	parse, ok := distParsers[name]
	if !ok {
		return false, found
	}
	return parse(data, path, guess, found)
}

type distParser func(data, path string, guess, found map[string]string) (bool, map[string]string)

// distParsers are the parse_distribution_file_* functions.
var distParsers = map[string]distParser{
	"Slackware": parseSlackware,
	"Amazon":    parseAmazon,
	"OpenWrt":   parseOpenWrt,
	"Alpine": func(data, _ string, _, f map[string]string) (bool, map[string]string) {
		return true, set(f, "distribution", "Alpine", "distribution_version", data)
	},
	"SUSE":       parseSUSE,
	"Debian":     parseDebian,
	"Mandriva":   parseMandriva,
	"NA":         parseNA,
	"Coreos":     parseCoreos,
	"Flatcar":    parseFlatcar,
	"ClearLinux": parseClearLinux,
	"CentOS":     parseCentOS,
}

func set(m map[string]string, kv ...string) map[string]string {
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// group returns the first group of re in data ("" and false when it does
// not match).
func group(re, data string) (string, bool) {
	m := regexp.MustCompile(re).FindStringSubmatch(data)
	if m == nil {
		return "", false
	}
	return m[1], true
}

func parseSlackware(data, _ string, _, f map[string]string) (bool, map[string]string) {
	if !strings.Contains(data, "Slackware") {
		return false, f
	}
	f["distribution"] = "Slackware"
	if v := regexp.MustCompile(`\w+[.]\w+\+?`).FindString(data); v != "" {
		f["distribution_version"] = v
	}
	return true, f
}

func parseAmazon(data, path string, _, f map[string]string) (bool, map[string]string) {
	if !strings.Contains(data, "Amazon") {
		return false, f
	}
	f["distribution"] = "Amazon"
	if path == "/etc/os-release" {
		if v, ok := group(`VERSION_ID="(.*)"`, data); ok {
			f["distribution_version"] = v
			major, minor, hasMinor := strings.Cut(v, ".")
			if !hasMinor {
				minor = "NA"
			}
			f["distribution_major_version"], f["distribution_minor_version"] = major, minor
		}
		return true, f
	}
	f["distribution_version"] = "NA"
	for _, w := range strings.Fields(data) {
		if isDigits(w) {
			f["distribution_version"] = w
			break
		}
	}
	return true, f
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func parseOpenWrt(data, _ string, _, f map[string]string) (bool, map[string]string) {
	if !strings.Contains(data, "OpenWrt") {
		return false, f
	}
	f["distribution"] = "OpenWrt"
	if v, ok := group(`DISTRIB_RELEASE="(.*)"`, data); ok {
		f["distribution_version"] = v
	}
	if v, ok := group(`DISTRIB_CODENAME="(.*)"`, data); ok {
		f["distribution_release"] = v
	}
	return true, f
}

func parseSUSE(data, path string, guess, f map[string]string) (bool, map[string]string) {
	lower := strings.ToLower(data)
	if !strings.Contains(lower, "suse") {
		return false, f
	}
	switch path {
	case "/etc/os-release":
		for _, line := range py.Splitlines(data, false) {
			if v, ok := group(`^NAME=(.*)`, line); ok {
				f["distribution"] = strings.Trim(v, `"`)
			}
			if v, ok := group(`^VERSION_ID="?([0-9]+\.?[0-9]*)"?`, line); ok {
				f["distribution_version"] = v
				f["distribution_major_version"], _, _ = strings.Cut(v, ".")
			}
			if strings.Contains(lower, "open") {
				if v, ok := group(`^VERSION_ID="?[0-9]+\.?([0-9]*)"?`, line); ok {
					f["distribution_release"] = v
				}
			} else if strings.Contains(lower, "enterprise") && strings.Contains(line, "VERSION_ID") {
				v, _ := group(`^VERSION_ID="?[0-9]+\.?([0-9]*)"?`, line)
				if v == "" {
					v = "0"
				}
				f["distribution_release"] = v
			}
		}
	case "/etc/SuSE-release":
		lines := py.Splitlines(data, false)
		switch {
		case strings.Contains(lower, "open"):
			if len(lines) > 0 {
				f["distribution"] = strings.Fields(lines[0])[0]
			}
			for _, line := range lines {
				if v, ok := group(`CODENAME *= *([^\n]+)`, line); ok {
					f["distribution_release"] = strings.TrimSpace(v)
				}
			}
		case strings.Contains(lower, "enterprise"):
			if strings.Contains(data, "Server") {
				f["distribution"] = "SLES"
			} else if strings.Contains(data, "Desktop") {
				f["distribution"] = "SLED"
			}
			for _, line := range lines {
				if v, ok := group(`PATCHLEVEL = ([0-9]+)`, line); ok {
					f["distribution_release"] = v
					f["distribution_version"] = guess["distribution_version"] + "." + v
				}
			}
		}
	}
	if v, ok := group(`(?m)^VARIANT_ID="?([^"\n]*)"?`, data); ok {
		switch v {
		case "server-sap", "sles-sap":
			f["distribution"] = "SLES_SAP"
		case "transactional":
			f["distribution"] = "SL-Micro"
		}
	} else if target, err := filepath.EvalSymlinks("/etc/products.d/baseproduct"); err == nil {
		switch {
		case strings.HasSuffix(target, "SLES_SAP.prod"):
			f["distribution"] = "SLES_SAP"
		case strings.HasSuffix(target, "SL-Micro.prod"):
			f["distribution"] = "SL-Micro"
		}
	}
	return true, f
}

// debianLike are the Debian derivatives parse_distribution_file_Debian
// recognises by a string and reads VERSION_CODENAME/VERSION_ID for.
var debianLike = []struct {
	needles          []string
	name             string
	codename, majors bool
}{
	{needles: []string{"UOS", "Uos", "uos"}, name: "Uos", codename: true, majors: true},
	{needles: []string{"Deepin", "deepin"}, name: "Deepin", codename: true, majors: true},
}

func parseDebian(data, path string, _, f map[string]string) (bool, map[string]string) {
	switch {
	case strings.Contains(data, "Debian") || strings.Contains(data, "Raspbian"):
		f["distribution"] = "Debian"
		if v, ok := group(`PRETTY_NAME=[^(]+ \(?([^)]+?)\)`, data); ok {
			f["distribution_release"] = v
		}
		// ansible-core's dpkg fallback for a missing codename passes
		// a shell pipeline as plain arguments, so it never succeeds.
		for _, line := range fileLines("/etc/debian_version") {
			if m := regexp.MustCompile(`(\d+)\.(\d+)`).FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				f["distribution_minor_version"] = m[2]
			}
		}
	case strings.Contains(data, "Ubuntu"):
		f["distribution"] = "Ubuntu"
	case strings.Contains(data, "SteamOS"):
		f["distribution"] = "SteamOS"
	case (path == "/etc/lsb-release" || path == "/etc/os-release") && (strings.Contains(data, "Kali") || strings.Contains(data, "Parrot")):
		f["distribution"] = "Parrot"
		if strings.Contains(data, "Kali") {
			f["distribution"] = "Kali"
		}
		if v, ok := group(`DISTRIB_RELEASE=(.*)`, data); ok {
			f["distribution_release"] = v
		}
	case strings.Contains(data, "Devuan"):
		f["distribution"] = "Devuan"
		if v, ok := group(`PRETTY_NAME="?[^("]+ \(?([^) "]+)\)?`, data); ok {
			f["distribution_release"] = v
		}
		if v, ok := group(`VERSION_ID="(.*)"`, data); ok {
			f["distribution_version"], f["distribution_major_version"] = v, v
		}
	case strings.Contains(data, "Cumulus"):
		f["distribution"] = "Cumulus Linux"
		if v, ok := group(`VERSION_ID=(.*)`, data); ok {
			f["distribution_version"] = v
			f["distribution_major_version"] = strings.Split(v, ".")[0]
		}
		if v, ok := group(`VERSION="(.*)"`, data); ok {
			f["distribution_release"] = v
		}
	case strings.Contains(data, "Mint"):
		f["distribution"] = "Linux Mint"
		versionMajor(data, f)
	default:
		for _, dl := range debianLike {
			for _, n := range dl.needles {
				if strings.Contains(data, n) {
					f["distribution"] = dl.name
					if v, ok := group(`VERSION_CODENAME="?([^"]+)"?`, data); ok {
						f["distribution_release"] = v
					}
					versionMajor(data, f)
					return true, f
				}
			}
		}
		if !strings.Contains(data, "LMDE") {
			return false, f
		}
		f["distribution"] = "Linux Mint Debian Edition"
	}
	return true, f
}

// versionMajor sets the version and major version from VERSION_ID="x.y".
func versionMajor(data string, f map[string]string) {
	if v, ok := group(`VERSION_ID="(.*)"`, data); ok {
		f["distribution_version"] = v
		f["distribution_major_version"] = strings.Split(v, ".")[0]
	}
}

func parseMandriva(data, _ string, _, f map[string]string) (bool, map[string]string) {
	if !strings.Contains(data, "Mandriva") {
		return false, f
	}
	if v, ok := group(`DISTRIB_RELEASE="(.*)"`, data); ok {
		f["distribution_version"] = v
	}
	if v, ok := group(`DISTRIB_CODENAME="(.*)"`, data); ok {
		f["distribution_release"] = v
	}
	f["distribution"] = "Mandriva"
	return true, f
}

func parseNA(data, _ string, guess, f map[string]string) (bool, map[string]string) {
	for _, line := range py.Splitlines(data, false) {
		if v, ok := group(`^NAME=(.*)`, line); ok {
			f["distribution"] = strings.Trim(v, `"`)
		}
		if v, ok := group(`^VERSION=(.*)`, line); ok && guess["distribution_version"] == "NA" {
			f["distribution_version"] = strings.Trim(v, `"`)
		}
	}
	return true, f
}

func parseCoreos(data, _ string, guess, f map[string]string) (bool, map[string]string) {
	if strings.ToLower(guess["distribution"]) != "coreos" || data == "" {
		return false, f
	}
	if v, ok := group(`^GROUP=(.*)`, data); ok {
		f["distribution_release"] = strings.Trim(v, `"`)
	}
	return true, f
}

func parseFlatcar(data, _ string, guess, f map[string]string) (bool, map[string]string) {
	if strings.ToLower(guess["distribution"]) != "flatcar" || data == "" {
		return false, f
	}
	if v, ok := group(`VERSION=(.*)`, data); ok {
		v = strings.Trim(v, `"`)
		f["distribution_major_version"] = strings.Split(v, ".")[0]
		f["distribution_version"] = v
	}
	return true, f
}

func parseClearLinux(data, _ string, _, f map[string]string) (bool, map[string]string) {
	if v, ok := group(`NAME="(.*)"`, data); ok {
		if !strings.Contains(v, "Clear Linux") {
			return false, f
		}
		f["distribution"] = v
	}
	if v, ok := group(`VERSION_ID=(.*)`, data); ok {
		f["distribution_major_version"], f["distribution_version"] = v, v
	}
	if v, ok := group(`ID=(.*)`, data); ok {
		f["distribution_release"] = v
	}
	return true, f
}

func parseCentOS(data, _ string, _, f map[string]string) (bool, map[string]string) {
	switch {
	case strings.Contains(data, "CentOS Stream"):
		f["distribution_release"] = "Stream"
		return true, f
	case strings.Contains(data, "TencentOS Server"):
		f["distribution"] = "TencentOS"
		return true, f
	}
	return false, f
}

// lsbCommandFields and lsbFileFields name the lsb facts after the labels
// of `lsb_release -a` and the keys of /etc/lsb-release, in the order
// ansible-core tests them.
var (
	lsbCommandFields = [][2]string{{"LSB Version:", "release"}, {"Distributor ID:", "id"}, {"Description:", "description"},
		{"Release:", "release"}, {"Codename:", "codename"}}
	lsbFileFields = [][2]string{{"DISTRIB_ID", "id"}, {"DISTRIB_RELEASE", "release"}, {"DISTRIB_DESCRIPTION", "description"},
		{"DISTRIB_CODENAME", "codename"}}
)

// readLSB reads "label<sep>value" lines into lsb facts: the first field
// whose label a line contains names the fact.
func readLSB(lines []string, sep string, fields [][2]string, lsb map[string]string) {
	for _, line := range lines {
		_, v, ok := strings.Cut(line, sep)
		if !ok {
			continue
		}
		for _, f := range fields {
			if strings.Contains(line, f[0]) {
				lsb[f[1]] = strings.TrimSpace(v)
				break
			}
		}
	}
}

// collectLSB is the lsb collector: lsb_release -a, or /etc/lsb-release.
func collectLSB(s *system, _ *value.Dict) *value.Dict {
	lsb := map[string]string{}
	if rc, out, found := s.runBin("lsb_release", "-a"); found && rc == 0 {
		readLSB(py.Splitlines(out, false), ":", lsbCommandFields, lsb)
	}
	if len(lsb) == 0 && exists("/etc/lsb-release") {
		readLSB(fileLines("/etc/lsb-release"), "=", lsbFileFields, lsb)
	}
	if r, ok := lsb["release"]; ok {
		lsb["major_release"] = strings.Split(r, ".")[0]
	}
	out := value.NewDict(len(lsb))
	for _, k := range []string{"release", "id", "description", "codename", "major_release"} {
		if v, ok := lsb[k]; ok {
			out.Set(k, strings.Trim(v, `'"\`))
		}
	}
	return facts("lsb", out)
}
