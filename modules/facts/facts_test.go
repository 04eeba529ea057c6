package facts

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(body), mode))
}

func TestSetupLocalFacts(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.fact"), `{"x": [1, 2]}`, 0o644)
	writeFile(t, filepath.Join(dir, "b.fact"), "[sec]\nKey = v\n", 0o644)
	writeFile(t, filepath.Join(dir, "run.fact"), "#!/bin/sh\necho '{\"ran\": true}'\n", 0o755)
	writeFile(t, filepath.Join(dir, "fail.fact"), "#!/bin/sh\necho oops >&2\nexit 2\n", 0o755)
	writeFile(t, filepath.Join(dir, "junk.fact"), "just words", 0o644)
	writeFile(t, filepath.Join(dir, "other.txt"), `{"not": "read"}`, 0o644)
	h := moduletest.NewHost(nil)
	res, err := Setup(h.Request("setup", "gather_subset", []any{"!all", "!min", "local"}, "fact_path", dir))
	require.NoError(t, err)
	require.Equal(t, true, res.Default("_ansible_verbose_override", nil))
	facts := res.Default("ansible_facts", nil).(*value.Dict)
	require.Equal(t, []string{"ansible_local", "gather_subset", "module_setup"}, facts.Keys())
	local := facts.Default("ansible_local", nil).(*value.Dict)
	require.Equal(t, []string{"a", "b", "fail", "junk", "run"}, local.Keys())
	require.Equal(t, `{"x": [1, 2]}`, value.JSON(local.Default("a", nil), value.JSONOptions{}))
	require.Equal(t, `{"sec": {"key": "v"}}`, value.JSON(local.Default("b", nil), value.JSONOptions{}))
	require.Equal(t, `{"ran": true}`, value.JSON(local.Default("run", nil), value.JSONOptions{}))
	failMsg := "Failure executing fact script (" + filepath.Join(dir, "fail.fact") + "), rc: 2, err: oops\n"
	require.Equal(t, failMsg, local.Default("fail", nil))
	junkMsg := "error loading facts as JSON or ini - please check content: " + filepath.Join(dir, "junk.fact")
	require.Equal(t, junkMsg, local.Default("junk", nil))
	require.Equal(t, []any{failMsg, junkMsg}, res.Default("warnings", nil))
}

func TestSetupFailures(t *testing.T) {
	h := moduletest.NewHost(nil)
	req := h.Request("setup", "gather_subset", []any{"bogus"})
	res, err := Setup(req)
	require.NoError(t, err)
	require.Equal(t, true, res.Default("failed", nil))
	require.Contains(t, res.Default("msg", ""), "Bad subset 'bogus' given to Ansible. gather_subset options allowed: all, ")

	req = h.Request("setup", "colour", "red")
	req.Action = "ansible.builtin.setup"
	res, err = Setup(req)
	require.NoError(t, err)
	require.Equal(t, "Unsupported parameters for (ansible.builtin.setup) module: colour. Supported parameters include: fact_path, filter, gather_subset, gather_timeout.",
		res.Default("msg", nil), "setup names itself as the task wrote it")
}

func TestGatherFacts(t *testing.T) {
	h := moduletest.NewHost(nil)
	res, err := GatherFacts(h.Request("gather_facts", "gather_subset", []any{"!all", "!min"}, "parallel", true, "fact_path", nil))
	require.NoError(t, err)
	require.Equal(t, true, res.Default("_ansible_verbose_override", nil))
	facts := res.Default("ansible_facts", nil).(*value.Dict)
	require.Equal(t, []string{"gather_subset", "module_setup", "_ansible_facts_gathered"}, facts.Keys())
	require.False(t, res.Has("warnings"), "empty warnings are left out")

	res, err = GatherFacts(h.Request("gather_facts", "gather_subset", "nonsense"))
	require.NoError(t, err)
	require.Equal(t, true, res.Default("failed", nil))
	require.Equal(t, "The following modules failed to execute: ansible.legacy.setup.", res.Default("msg", nil))
	captured, ok := res.Default("exception", nil).(*diag.Diagnostic)
	require.True(t, ok)
	require.Len(t, captured.Events, 1)
	require.Contains(t, captured.Events[0], "Bad subset 'nonsense'")
	failed := res.Default("failed_modules", nil).(*value.Dict).Default(setupModule, nil).(*value.Dict)
	require.False(t, failed.Has("changed"))
	args := failed.Default("invocation", nil).(*value.Dict).Default("module_args", nil).(*value.Dict)
	require.Equal(t, []any{"nonsense"}, args.Default("gather_subset", nil))
	require.Equal(t, 10, args.Default("gather_timeout", nil))
}

func TestSetupFilterAndMeta(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the collectors read Linux's /proc")
	}
	h := moduletest.NewHost(nil)
	res, err := Setup(h.Request("setup", "gather_subset", []any{"!all", "user"}, "filter", []any{"user_id", "module_*"}))
	require.NoError(t, err)
	facts := res.Default("ansible_facts", nil).(*value.Dict)
	require.Equal(t, []string{"ansible_user_id", "module_setup"}, facts.Keys())
	uid := os.Getuid()
	res, err = Setup(h.Request("setup", "gather_subset", []any{}, "filter", "*_uid"))
	require.NoError(t, err)
	require.Equal(t, uid, res.Default("ansible_facts", nil).(*value.Dict).Default("ansible_user_uid", nil))
}

func TestSplitNonPOSIX(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"a b=c  d", []string{"a", "b=c", "d"}, false},
		{`x="a b" y`, []string{`x="a`, `b"`, "y"}, false},
		{`"a b"c d`, []string{`"a b"`, "c", "d"}, false},
		{`'q`, nil, true},
	} {
		got, err := splitNonPOSIX(tc.in)
		if tc.err {
			require.Error(t, err)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, got, tc.in)
	}
}

func TestParseOSRelease(t *testing.T) {
	props := parseOSRelease(`# comment
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
ID=debian
PRETTY_NAME='Debian GNU/Linux 12 (bookworm)'
ESCAPED="a \"quoted\" word"
`)
	require.Equal(t, "Debian GNU/Linux", props["name"])
	require.Equal(t, "12", props["version_id"])
	require.Equal(t, "bookworm", props["codename"])
	require.Equal(t, "debian", props["id"])
	require.Equal(t, `a "quoted" word`, props["escaped"])
	require.Equal(t, "Debian GNU/Linux 12 (bookworm)", props["pretty_name"])
}

func TestParseReleaseLine(t *testing.T) {
	require.Equal(t, map[string]string{"name": "CentOS Linux", "version_id": "7.9.2009", "codename": "Core"},
		parseReleaseLine("CentOS Linux release 7.9.2009 (Core)"))
	require.Equal(t, map[string]string{"name": "Fedora", "version_id": "39", "codename": "Thirty Nine"},
		parseReleaseLine("Fedora release 39 (Thirty Nine)"))
	require.Equal(t, map[string]string{"name": "just a name"}, parseReleaseLine("just a name"))
}

func TestDistributionFileParsers(t *testing.T) {
	guess := map[string]string{"distribution": "Ubuntu", "distribution_version": "22.04", "distribution_release": "jammy"}
	for _, tc := range []struct {
		name, file, path, data string
		parsed                 bool
		want                   map[string]string
	}{
		{"debian", "Debian", "/etc/os-release", `PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"` + "\nNAME=\"Debian GNU/Linux\"", true,
			map[string]string{"distribution": "Debian", "distribution_release": "bookworm"}},
		{"ubuntu", "Debian", "/etc/os-release", `NAME="Ubuntu"`, true, map[string]string{"distribution": "Ubuntu"}},
		{"not debian", "Debian", "/etc/os-release", `NAME="Fedora Linux"`, false, map[string]string{}},
		{"amazon", "Amazon", "/etc/os-release", `NAME="Amazon Linux"` + "\n" + `VERSION_ID="2023"`, true,
			map[string]string{"distribution": "Amazon", "distribution_version": "2023", "distribution_major_version": "2023", "distribution_minor_version": "NA"}},
		{"alpine", "Alpine", "/etc/alpine-release", "3.19.1", true, map[string]string{"distribution": "Alpine", "distribution_version": "3.19.1"}},
		{"red hat by search string", "RedHat", "/etc/redhat-release", "Red Hat Enterprise Linux release 9.3 (Plow)", true,
			map[string]string{"distribution": "RedHat", "distribution_file_search_string": "Red Hat"}},
		{"centos by first word", "RedHat", "/etc/redhat-release", "Rocky Linux release 9.3", true, map[string]string{"distribution": "Rocky"}},
		{"arch alias", "Archlinux", "/etc/os-release", `NAME="Arch Linux"`, true, map[string]string{"distribution": "Archlinux"}},
		{"gentoo has no parser", "Gentoo", "/etc/gentoo-release", "Gentoo", false, map[string]string{}},
		{"NA takes NAME", "NA", "/etc/os-release", "NAME=\"Some OS\"\nVERSION=\"1\"", true, map[string]string{"distribution": "Some OS"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parsed, got := parseDistFile(tc.file, tc.data, tc.path, guess)
			require.Equal(t, tc.parsed, parsed)
			if tc.file == "Debian" {
				// Debian's minor version comes from this machine's
				// /etc/debian_version, when it has one.
				delete(got, "distribution_minor_version")
			}
			if parsed {
				require.Equal(t, tc.want, got)
			}
		})
	}
	require.Equal(t, "Debian", osFamily("Ubuntu"))
	require.Equal(t, "RedHat", osFamily("Rocky"))
	require.Equal(t, "Unknown OS", osFamily("Unknown OS"))
}

func TestParseINI(t *testing.T) {
	d, err := parseINI("[DEFAULT]\nbase = /b\n\n[one]\nA: 1\npath = %(base)s/x\npct = 100%%\nlong = first\n  second\n# comment\n; other\n")
	require.NoError(t, err)
	require.Equal(t, `{"one": {"a": "1", "path": "/b/x", "pct": "100%", "long": "first\nsecond", "base": "/b"}}`, value.JSON(d, value.JSONOptions{}))
	for _, bad := range []string{"key = before any section", "[a]\nnovalue", "[a]\n[a]\n", "[a]\nk=1\nk=2"} {
		_, err := parseINI(bad)
		var ie *py.ConfigError
		require.ErrorAs(t, err, &ie, bad)
	}
	_, err = parseINI("[a]\nk = 5%\n")
	var interp *py.InterpolationError
	require.ErrorAs(t, err, &interp)
	require.Equal(t, "'%' must be followed by '%' or '(', found: '%'", interp.Msg)
}

func TestBytesToHuman(t *testing.T) {
	require.Equal(t, "0.00 Bytes", bytesToHuman(0))
	require.Equal(t, "512.00 Bytes", bytesToHuman(512))
	require.Equal(t, "1.00 KB", bytesToHuman(1024))
	require.Equal(t, "20.00 GB", bytesToHuman(20*(1<<30)))
}

func TestDateTime(t *testing.T) {
	h := moduletest.NewHost(nil)
	req := h.Request("setup", "gather_subset", []any{"!all", "!min", "date_time"})
	req.Env = map[string]string{"TZ": "Europe/Paris"}
	res, err := Setup(req)
	require.NoError(t, err)
	dt := res.Default("ansible_facts", nil).(*value.Dict).Default("ansible_date_time", nil).(*value.Dict)
	require.Equal(t, "CEST", dt.Default("tz_dst", nil), "the task environment's TZ applies")
	require.Len(t, dt.Default("iso8601_basic", ""), len("20060102T150405000000"))
	require.Equal(t, dt.Default("epoch", nil), dt.Default("epoch_int", nil))
}

// TestGatherAllOnThisMachine runs every collector on the machine the test
// runs on and checks that each contributes its facts.
func TestGatherAllOnThisMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the collectors read Linux's /proc")
	}
	h := moduletest.NewHost(nil)
	res, err := Setup(h.Request("setup", "fact_path", t.TempDir()))
	require.NoError(t, err)
	facts := res.Default("ansible_facts", nil).(*value.Dict)
	for _, k := range []string{"ansible_system", "ansible_kernel", "ansible_distribution", "ansible_os_family", "ansible_lsb",
		"ansible_selinux", "ansible_apparmor", "ansible_is_chroot", "ansible_fips", "ansible_system_capabilities",
		"ansible_pkg_mgr", "ansible_service_mgr", "ansible_cmdline", "ansible_date_time", "ansible_env", "ansible_loadavg",
		"ansible_user_id", "ansible_virtualization_tech_guest", "ansible_virtualization_type", "ansible_memtotal_mb",
		"ansible_memory_mb", "ansible_processor", "ansible_processor_nproc", "ansible_mounts", "ansible_devices",
		"ansible_device_links", "ansible_uptime_seconds", "ansible_lvm", "ansible_bios_vendor", "ansible_dns",
		"ansible_fibre_channel_wwn", "ansible_iscsi_iqn", "ansible_hostnqn", "ansible_local", "gather_subset", "module_setup"} {
		require.True(t, facts.Has(k), "missing %s", k)
	}
	require.Equal(t, runtime.NumCPU(), facts.Default("ansible_processor_nproc", nil))
	env := facts.Default("ansible_env", nil).(*value.Dict)
	require.Equal(t, os.Getenv("PATH"), env.Default("PATH", nil))
	if (&system{environ: os.Environ()}).binPath("ip") != "" {
		require.True(t, facts.Has("ansible_interfaces"))
		require.True(t, facts.Has("ansible_lo"), "the loopback interface has its own fact")
	}
	for _, k := range facts.Keys() {
		require.NotContains(t, k, "-", "fact names have underscores, not dashes")
	}
}
