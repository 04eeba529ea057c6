package facts

import (
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// distro answers what the `distro` library answers for ansible-core:
// the distribution's id, version and codename from os-release, the
// lsb_release command and the distro release files of /etc.
type distro struct {
	s           *system
	osRelease   map[string]string
	lsbLoaded   bool
	lsb         map[string]string
	releaseFile map[string]string
	debian      string
}

func newDistro(s *system) *distro {
	d := &distro{s: s, osRelease: map[string]string{}}
	for _, p := range []string{"/etc/os-release", "/usr/lib/os-release"} {
		if data, err := os.ReadFile(p); err == nil {
			d.osRelease = parseOSRelease(string(data))
			break
		}
	}
	d.releaseFile = distroReleaseFile("/etc")
	if data, err := os.ReadFile("/etc/debian_version"); err == nil {
		d.debian = strings.TrimRight(strings.SplitN(string(data), "\n", 2)[0], " \t\r\n")
	}
	return d
}

// lsbInfo is `lsb_release -a` as key/value pairs (keys lowercased with
// blanks as underscores), run once on first use.
func (d *distro) lsbInfo() map[string]string {
	if d.lsbLoaded {
		return d.lsb
	}
	d.lsbLoaded = true
	d.lsb = map[string]string{}
	rc, out, found := d.s.runBin("lsb_release", "-a")
	if !found || rc != 0 {
		return d.lsb
	}
	for _, line := range py.Splitlines(out, false) {
		k, v, ok := strings.Cut(line, ":")
		if ok {
			d.lsb[strings.ToLower(strings.ReplaceAll(k, " ", "_"))] = strings.TrimSpace(v)
		}
	}
	return d.lsb
}

var (
	normalizedOSID     = map[string]string{"ol": "oracle", "opensuse-leap": "opensuse"}
	normalizedLSBID    = map[string]string{"enterpriseenterpriseas": "oracle", "enterpriseenterpriseserver": "oracle", "redhatenterpriseworkstation": "rhel", "redhatenterpriseserver": "rhel", "redhatenterprisecomputenode": "rhel"}
	normalizedDistroID = map[string]string{"redhat": "rhel"}
)

func normalizeID(id string, table map[string]string) string {
	id = strings.ToLower(strings.ReplaceAll(id, " ", "_"))
	if n, ok := table[id]; ok {
		return n
	}
	return id
}

// id is distro.id().
func (d *distro) id() string {
	if v := d.osRelease["id"]; v != "" {
		return normalizeID(v, normalizedOSID)
	}
	if v := d.lsbInfo()["distributor_id"]; v != "" {
		return normalizeID(v, normalizedLSBID)
	}
	if v := d.releaseFile["id"]; v != "" {
		return normalizeID(v, normalizedDistroID)
	}
	return ""
}

// version is distro.version(best=best): the first known version, or with
// best the most precise one (the last of equal precision).
func (d *distro) version(best bool) string {
	versions := []string{d.osRelease["version_id"], d.lsbInfo()["release"], d.releaseFile["version_id"],
		parseReleaseLine(d.osRelease["pretty_name"])["version_id"], parseReleaseLine(d.lsbInfo()["description"])["version_id"]}
	if d.id() == "debian" || containsString(strings.Fields(d.osRelease["id_like"]), "debian") {
		versions = append(versions, d.debian)
	}
	version := ""
	for _, v := range versions {
		if best {
			if strings.Count(v, ".") > strings.Count(version, ".") || version == "" {
				version = v
			}
		} else if v != "" {
			return v
		}
	}
	return version
}

// codename is distro.codename().
func (d *distro) codename() string {
	if c, ok := d.osRelease["codename"]; ok {
		return c
	}
	if c := d.lsbInfo()["codename"]; c != "" {
		return c
	}
	return d.releaseFile["codename"]
}

// guess is DistributionFiles._guess_distribution: ansible-core's
// get_distribution, get_distribution_version and
// get_distribution_codename, with NA for what is unknown.
func (d *distro) guess() map[string]string {
	id := d.id()
	name := pyCapitalize(id)
	switch name {
	case "Amzn":
		name = "Amazon"
	case "Rhel":
		name = "Redhat"
	case "":
		name = "OtherLinux"
	}
	version := d.version(false)
	switch id {
	case "centos":
		parts := strings.Split(d.version(true), ".")
		if len(parts) > 2 {
			parts = parts[:2]
		}
		version = strings.Join(parts, ".")
	case "debian":
		version = d.version(true)
	}
	g := map[string]string{"distribution": name, "distribution_version": version, "distribution_release": "NA"}
	if version == "" {
		g["distribution_version"] = "NA"
	}
	if c, known := d.guessCodename(id); known {
		g["distribution_release"] = c
	}
	major, _, _ := strings.Cut(g["distribution_version"], ".")
	if major == "" {
		major = "NA"
	}
	g["distribution_major_version"] = major
	return g
}

// guessCodename is get_distribution_codename; known is false where it
// returns None.
func (d *distro) guessCodename(id string) (string, bool) {
	if c, ok := d.osRelease["version_codename"]; ok {
		return c, true
	}
	if c, ok := d.osRelease["ubuntu_codename"]; ok {
		return c, true
	}
	if id == "ubuntu" {
		if c, ok := d.lsbInfo()["codename"]; ok {
			return c, true
		}
	}
	if c := d.codename(); c != "" {
		return c, true
	}
	return "", false
}

// pyCapitalize is Python's str.capitalize.
func pyCapitalize(s string) string {
	if s == "" {
		return s
	}
	r := []rune(strings.ToLower(s))
	r[0] = []rune(strings.ToUpper(string(r[0])))[0]
	return string(r)
}

var (
	osReleaseCodename = regexp.MustCompile(`\((\D+)\)|,\s*(\D+)`)
	releaseBasename   = regexp.MustCompile(`^(\w+)[-_](release|version)$`)
	// releaseReversed matches a release line read backwards, as distro's
	// _DISTRO_RELEASE_CONTENT_REVERSED_PATTERN does.
	releaseReversed = regexp.MustCompile(`^(?:[^)]*\)(.*)\()? *(?:STL )?([\d.+\-a-z]*\d) *(?:esaeler *)?(.+)`)
)

// releaseIgnored are /etc files that look like release files but are not.
var releaseIgnored = map[string]bool{"debian_version": true, "lsb-release": true, "oem-release": true, "os-release": true,
	"system-release": true, "plesk-release": true, "iredmail-release": true, "board-release": true, "ec2_version": true}

// parseOSRelease reads an os-release file: shell-quoted KEY=value lines,
// keys lowercased, with the codename taken from VERSION when it names
// one.
func parseOSRelease(data string) map[string]string {
	props := map[string]string{}
	for _, tok := range shellWords(data) {
		if k, v, ok := strings.Cut(tok, "="); ok {
			props[strings.ToLower(k)] = v
		}
	}
	if v, ok := props["version"]; ok {
		if m := osReleaseCodename.FindStringSubmatch(v); m != nil {
			c := m[1]
			if c == "" {
				c = m[2]
			}
			props["codename"], props["release_codename"] = c, c
		}
	}
	if c, ok := props["version_codename"]; ok {
		props["codename"] = c
	} else if c, ok := props["ubuntu_codename"]; ok {
		props["codename"] = c
	}
	return props
}

// distroReleaseFile finds the first /etc/*-release or *_version file
// (sorted by name) whose first line parses, as distro does.
func distroReleaseFile(dir string) map[string]string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return map[string]string{}
	}
	var names []string
	for _, e := range entries {
		if !releaseIgnored[e.Name()] && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		m := releaseBasename.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		data, err := os.ReadFile(dir + "/" + n)
		if err != nil {
			continue
		}
		info := parseReleaseLine(strings.SplitN(string(data), "\n", 2)[0])
		if _, ok := info["name"]; !ok {
			continue
		}
		info["id"] = m[1]
		if strings.Contains(strings.ToLower(info["name"]), "cloudlinux") {
			info["id"] = "cloudlinux"
		}
		return info
	}
	return map[string]string{}
}

// parseReleaseLine parses "Name release 1.2 (Codename)".
func parseReleaseLine(line string) map[string]string {
	info := map[string]string{}
	m := releaseReversed.FindStringSubmatch(reverse(strings.TrimSpace(line)))
	switch {
	case m != nil:
		info["name"] = reverse(m[3])
		if m[2] != "" {
			info["version_id"] = reverse(m[2])
		}
		if m[1] != "" {
			info["codename"] = reverse(m[1])
		}
	case line != "":
		info["name"] = strings.TrimSpace(line)
	}
	return info
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// shellWords splits text into words as a POSIX shell lexer does: quotes
// group and are removed, backslashes escape, and # starts a comment.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	r := []rune(s)
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '\'':
			inWord = true
			for i++; i < len(r) && r[i] != '\''; i++ {
				cur.WriteRune(r[i])
			}
		case c == '"':
			inWord = true
			for i++; i < len(r) && r[i] != '"'; i++ {
				if r[i] == '\\' && i+1 < len(r) && strings.ContainsRune("\\\"$`\n", r[i+1]) {
					i++
				}
				cur.WriteRune(r[i])
			}
		case c == '\\' && i+1 < len(r):
			i++
			inWord = true
			cur.WriteRune(r[i])
		case c == '#' && !inWord:
			for i < len(r) && r[i] != '\n' {
				i++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			inWord = true
			cur.WriteRune(c)
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}
