package localsys

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// packageFactsSpec is package_facts' argument_spec.
var packageFactsSpec = &argspec.Spec{Options: []argspec.Option{
	{Name: "manager", Type: argspec.List, Elements: argspec.Str, Default: []any{"auto"}},
	{Name: "strategy", Type: argspec.Str, Default: "first", Choices: []any{"first", "all"}},
}}

// packageManagers are the managers package_facts knows, sorted as it
// lists them for "auto", and how each is probed here.
var packageManagers = []struct {
	name string
	// lib is the Python library a library-based manager imports (whose
	// absence is the error), with the programs that reveal the manager.
	lib  string
	clis []string
	// cli is the program a command-line manager runs.
	cli string
}{
	{name: "apk", cli: "apk"},
	{name: "apt", lib: "apt", clis: []string{"apt", "apt-get", "aptitude"}},
	{name: "pacman", cli: "pacman"},
	{name: "pkg", cli: "pkg"},
	{name: "pkg_info", cli: "pkg_info"},
	{name: "portage", cli: "qlist"},
	{name: "rpm", lib: "rpm", clis: []string{"rpm"}},
}

// packageManagerAliases are the other names of managers.
var packageManagerAliases = []struct{ alias, manager string }{
	{"dnf", "rpm"}, {"dnf5", "rpm"}, {"yum", "rpm"}, {"zypper", "rpm"},
	{"pkg5", "pkg"}, {"pkgng", "pkg"}, {"openbsd_pkg", "pkg_info"},
}

// knownManagerNames lists every accepted manager name in package_facts'
// order: the managers, then the aliases.
func knownManagerNames() []string {
	var out []string
	for _, m := range packageManagers {
		out = append(out, m.name)
	}
	for _, a := range packageManagerAliases {
		out = append(out, a.alias)
	}
	return out
}

// PackageFacts is ansible.builtin.package_facts. The apt manager reads
// dpkg's database and apt's package lists (what python-apt's cache holds);
// the other managers are reported unusable (README: deliberate
// differences).
func PackageFacts(req *module.Request) (*value.Dict, error) {
	p, failed := validate(req, packageFactsSpec)
	if failed != nil {
		return failed, nil
	}
	requested := p.Strs("manager")
	var managers []string
	for _, m := range requested {
		managers = append(managers, strings.ToLower(m))
	}
	if i := slices.Index(managers, "auto"); i >= 0 {
		managers = append(slices.Delete(managers, i, i+1), knownManagerNames()...)
	}
	if unsupported := unsupportedManagers(managers); len(unsupported) > 0 {
		msg := "Unsupported package managers requested: " + strings.Join(unsupported, ", ")
		if slices.Contains(requested, "auto") {
			msg = "Could not auto detect a usable package manager, check warnings for details."
		}
		return module.Failed(msg), nil
	}
	packages := value.NewDict(0)
	var warnings []any
	found := 0
	seen := map[string]bool{}
	for _, name := range managers {
		if p.Str("strategy") == "first" && found > 0 {
			break
		}
		name = canonicalManager(name)
		if seen[name] {
			continue
		}
		seen[name] = true
		got, err := listPackages(req, name)
		if err != nil {
			if slices.Contains(requested, name) {
				warnings = append(warnings, fmt.Sprintf("Requested package manager %s was not usable by this module: %s", name, err))
			}
			continue
		}
		if got.Len() == 0 {
			warnings = append(warnings, fmt.Sprintf("Found \"%s\" but no associated packages", name))
			continue
		}
		found++
		mergePackages(packages, got)
	}
	if found == 0 {
		return withWarnings(module.Failed(fmt.Sprintf("Could not detect a supported package manager from the following list: %s, "+
			"or the required Python library is not installed. Check warnings for details.", value.Repr(toAnyList(managers)))), warnings), nil
	}
	return withWarnings(value.DictOf("changed", false, "ansible_facts", value.DictOf("packages", packages)), warnings), nil
}

// withWarnings adds a module's warnings to its result.
func withWarnings(res *value.Dict, warnings []any) *value.Dict {
	if len(warnings) > 0 {
		res.Set("warnings", warnings)
	}
	return res
}

func toAnyList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// unsupportedManagers lists requested names package_facts does not know,
// sorted (Python prints a set, whose order is its own).
func unsupportedManagers(managers []string) []string {
	known := knownManagerNames()
	var out []string
	for _, m := range managers {
		if !slices.Contains(known, m) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

func canonicalManager(name string) string {
	for _, a := range packageManagerAliases {
		if a.alias == name {
			return a.manager
		}
	}
	return name
}

// mergePackages adds a manager's packages to the result, extending the
// list of a name both have.
func mergePackages(into, got *value.Dict) {
	for _, k := range got.Keys() {
		v, _ := got.Get(k)
		if prev, ok := into.Get(k); ok {
			into.Set(k, append(prev.([]any), v.([]any)...))
		} else {
			into.Set(k, v)
		}
	}
}

// listPackages runs one manager; an error is why it is not usable.
func listPackages(req *module.Request, name string) (*value.Dict, error) {
	for _, m := range packageManagers {
		if m.name != name {
			continue
		}
		if m.lib == "apt" {
			if _, err := os.Stat(dpkgStatusFile); err == nil {
				return aptPackages(req)
			}
		}
		if m.lib != "" {
			return nil, missingLibrary(req, m.lib, m.clis)
		}
		if _, err := binPath(req, m.cli); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("cfzt-runner does not read the %s package database", name)
	}
	return nil, fmt.Errorf("unknown package manager %s", name)
}

// missingLibrary is the error of a library-based manager whose Python
// library is missing: it names the program found, if any.
func missingLibrary(req *module.Request, lib string, clis []string) error {
	msg := missingRequiredLib(lib)
	for _, c := range clis {
		if p, err := binPath(req, c); err == nil {
			return fmt.Errorf("Found executable at %s. %s", p, msg)
		}
	}
	return fmt.Errorf("%s", msg)
}

// missingRequiredLib is missing_required_lib's message, naming the
// interpreter ansible-core would have run the module with.
func missingRequiredLib(lib string) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("Failed to import the required Python library (%s) on %s's Python /usr/bin/python3."+
		" Please read the module documentation and install it in the appropriate location."+
		" If the required library is installed, but Ansible is using the wrong Python interpreter,"+
		" please consult the documentation on ansible_python_interpreter", lib, host)
}

// dpkgStatusFile is dpkg's database of installed packages, which
// python-apt's cache reads; the apt manager is usable when it exists.
const dpkgStatusFile = "/var/lib/dpkg/status"

// dpkgInstalled are dpkg states in which a package has an installed
// version (apt's current version).
var dpkgInstalled = []string{"installed", "half-installed", "unpacked", "half-configured", "triggers-awaited", "triggers-pending"}

// aptPackages lists the installed packages as python-apt's cache shows
// them: name, version, architecture, section and the origin of the
// first package list that has the installed version ("" when only dpkg
// knows it).
func aptPackages(req *module.Request) (*value.Dict, error) {
	data, err := os.ReadFile(dpkgStatusFile)
	if err != nil {
		return nil, err
	}
	type pkg struct{ name, version, arch, section string }
	var pkgs []pkg
	for _, stanza := range strings.Split(string(data), "\n\n") {
		f := debFields(stanza)
		status := strings.Fields(f["Status"])
		if len(status) != 3 || !slices.Contains(dpkgInstalled, status[2]) {
			continue
		}
		pkgs = append(pkgs, pkg{f["Package"], f["Version"], f["Architecture"], f["Section"]})
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].name < pkgs[j].name })
	want := make(map[aptKey]bool, len(pkgs))
	for _, p := range pkgs {
		want[aptKey{p.name, p.version, p.arch}] = true
	}
	lists := readAptLists(req, want)
	res := value.NewDict(len(pkgs))
	for _, p := range pkgs {
		origin, section := "", p.section
		if rec, ok := lists[aptKey{p.name, p.version, p.arch}]; ok {
			origin = rec.origin
			if rec.section != "" {
				section = rec.section
			}
		}
		d := value.DictOf("name", p.name, "version", p.version, "arch", p.arch,
			"category", section, "origin", origin, "source", "apt")
		if prev, ok := res.Get(p.name); ok {
			res.Set(p.name, append(prev.([]any), d))
		} else {
			res.Set(p.name, []any{d})
		}
	}
	return res, nil
}

// aptKey identifies one version of a package in apt's lists.
type aptKey struct{ name, version, arch string }

// aptRecord is what a package list says of a version.
type aptRecord struct{ origin, section string }

// readAptLists reads the Packages lists of the configured sources (what
// `apt-get indextargets` names, with the Origin of their Release file),
// decompressed by apt-helper, keeping only the versions in want (the
// installed ones: a full list is about 60,000 stanzas). A list that
// cannot be read is skipped, as apt's cache would lack it.
func readAptLists(req *module.Request, want map[aptKey]bool) map[aptKey]aptRecord {
	out := map[aptKey]aptRecord{}
	targets, err := runCmd(req, []string{"/usr/bin/apt-get", "indextargets", "Created-By: Packages"})
	if err != nil || targets.rc != 0 {
		return out
	}
	for _, target := range strings.Split(targets.stdout, "\n\n") {
		t := debFields(target)
		if t["Filename"] == "" {
			continue
		}
		origin := t["Origin"]
		found := map[aptKey]aptRecord{}
		err := eachListStanza(req, t["Filename"], func(key aptKey, section string) {
			if _, dup := found[key]; !dup && key.name != "" && want[key] {
				found[key] = aptRecord{origin: origin, section: section}
			}
		})
		if err != nil {
			continue
		}
		for key, rec := range found {
			if _, dup := out[key]; !dup {
				out[key] = rec
			}
		}
	}
	return out
}

// eachListStanza streams a list file, compressed or not, through apt's
// own helper and calls fn with the fields package_facts uses of each
// stanza; a list is about 50 MB once decompressed, so it is never held
// whole.
func eachListStanza(req *module.Request, path string, fn func(key aptKey, section string)) error {
	cmd := exec.CommandContext(req.Ctx, "/usr/lib/apt/apt-helper", "cat-file", path)
	cmd.Env = req.Environ()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var key aptKey
	var section string
	flush := func() {
		if key != (aptKey{}) {
			fn(key, section)
		}
		key, section = aptKey{}, ""
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			flush()
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		switch string(k) {
		case "Package":
			key.name = string(bytes.TrimSpace(v))
		case "Version":
			key.version = string(bytes.TrimSpace(v))
		case "Architecture":
			key.arch = string(bytes.TrimSpace(v))
		case "Section":
			section = string(bytes.TrimSpace(v))
		}
	}
	flush()
	scanErr := sc.Err()
	if scanErr != nil {
		_, _ = io.Copy(io.Discard, out)
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("cannot read %s", path)
	}
	return scanErr
}

// debFields reads the single-line fields of a deb822 stanza.
func debFields(stanza string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(stanza, "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}
