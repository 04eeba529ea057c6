// Package facts gathers ansible_facts natively, as ansible-core's setup
// module and gather_facts action do: the same collectors (platform,
// distribution, hardware, network, virtual, local facts...), selected by
// gather_subset, filtered by filter, and returned under the same names,
// read from /proc, /sys, /etc and the same helper programs (ip, lsblk,
// capsh...) rather than through Python.
package facts

import (
	"runtime"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// Entries registers setup and gather_facts.
func Entries() []module.Entry {
	return []module.Entry{
		{FQCN: "ansible.builtin.setup", Module: module.Func(Setup)},
		{FQCN: "ansible.builtin.gather_facts", Flags: module.ControllerAction | module.NoAsync, Module: module.Func(GatherFacts)},
	}
}

// setupSpec is the setup module's argument_spec.
var setupSpec = &argspec.Spec{Options: []argspec.Option{
	{Name: "gather_subset", Type: argspec.List, Elements: argspec.Str, Default: []any{"all"}},
	{Name: "gather_timeout", Type: argspec.Int, Default: 10},
	{Name: "filter", Type: argspec.List, Elements: argspec.Str, Default: []any{}},
	{Name: "fact_path", Type: argspec.Path, Default: "/etc/ansible/facts.d"},
}}

// defaultTimeout is gather_timeout's value when it is 0.
const defaultTimeout = 10 * time.Second

// Setup is ansible.builtin.setup: it gathers the facts gather_subset
// selects and returns them under ansible_facts, as the module's
// exit_json does. Like the Python module it runs in check mode too.
// Setup has no action plugin of its own, so its messages name the
// module as the task wrote it.
func Setup(req *module.Request) (*value.Dict, error) {
	res, _ := runSetup(req, req.Action)
	// The normal action plugin hides setup's facts from -v output.
	res.Set("_ansible_verbose_override", true)
	return res, nil
}

// runSetup is setup's work; it also returns the validated parameters,
// which gather_facts reports for a failed run.
func runSetup(req *module.Request, loadName string) (*value.Dict, *value.Dict) {
	v := setupSpec.Validate(req.Args)
	if f := v.Failure(loadName); f != nil {
		return f, v.Params
	}
	p := v.P()
	timeout := time.Duration(p.Int("gather_timeout")) * time.Second
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	s := &system{ctx: req.Ctx, environ: req.Environ(), factPath: p.Str("fact_path"), timeout: timeout}
	filter := p.Strs("filter")
	gathered, err := gather(s, p.Strs("gather_subset"), filter)
	if err != nil {
		return module.Failed(err.Error()), v.Params
	}
	subset := p.List("gather_subset")
	if len(subset) == 0 {
		subset = []any{"all"}
	}
	gathered.Update(filterFacts(value.DictOf("gather_subset", subset, "module_setup", true), filter))
	res := value.DictOf("ansible_facts", gathered, "changed", false)
	if len(s.warnings) > 0 {
		res.Set("warnings", strList(s.warnings))
	}
	return res, v.Params
}

// gather runs the collectors gather_subset selects and returns their
// facts, namespaced (ansible_, facter_, ohai_) and filtered.
func gather(s *system, gatherSubset, filter []string) (*value.Dict, error) {
	all := platformCollectors(runtime.GOOS)
	ix := indexCollectors(all)
	names, err := ix.collectorNames(gatherSubset)
	if err != nil {
		return nil, err
	}
	selected, err := ix.selectCollectors(all, names)
	if err != nil {
		return nil, err
	}
	collected := value.NewDict(64)
	out := value.NewDict(64)
	for _, c := range selected {
		got := safeCollect(c, s, collected)
		prefix := c.prefix
		if prefix == "" {
			prefix = "ansible_"
		}
		named := value.NewDict(got.Len())
		got.Each(func(k string, v any) bool {
			named.Set(prefix+underscored(k), v)
			return true
		})
		collected.Update(named)
		out.Update(filterFacts(named, filter))
	}
	return out, nil
}

// safeCollect runs one collector; like ansible-core, which reports a
// collector's exception on stderr and goes on, a collector that breaks
// on unexpected system data contributes no facts rather than failing
// the task.
func safeCollect(c *collector, s *system, collected *value.Dict) (got *value.Dict) {
	defer func() {
		if recover() != nil {
			got = value.NewDict(0)
		}
	}()
	return c.collect(s, collected)
}

// underscored is PrefixFactNamespace's name transform: dashes become
// underscores.
func underscored(k string) string {
	b := []byte(k)
	for i, c := range b {
		if c == '-' {
			b[i] = '_'
		}
	}
	return string(b)
}

// platformCollectors lists the collectors of a platform in ansible-core's
// default order (base, restrictive, general, virtual, hardware, network,
// extra); outside Linux the hardware, network and virtual collectors are
// ansible-core's generic ones.
func platformCollectors(goos string) []*collector {
	virtual, hardware, network := collectGenericVirtual, collectNothing, collectNothing
	if goos == "linux" {
		virtual, hardware, network = collectVirtual, collectHardware, collectNetwork
	}
	return []*collector{
		{name: "platform", ids: []string{"system", "kernel", "kernel_version", "machine", "python_version", "architecture", "machine_id"}, collect: collectPlatform},
		{name: "distribution", ids: []string{"distribution_version", "distribution_release", "distribution_major_version", "os_family"}, collect: collectDistribution},
		{name: "lsb", collect: collectLSB},
		{name: "selinux", collect: collectSelinux},
		{name: "apparmor", collect: collectApparmor},
		{name: "chroot", ids: []string{"is_chroot"}, collect: collectChroot},
		{name: "fips", collect: collectFips},
		{name: "python", collect: collectPython},
		{name: "caps", ids: []string{"system_capabilities", "system_capabilities_enforced"}, collect: collectCaps},
		{name: "pkg_mgr", requires: []string{"distribution"}, collect: collectPkgMgr},
		{name: "service_mgr", requires: []string{"platform", "distribution"}, collect: collectServiceMgr},
		{name: "cmdline", collect: collectCmdline},
		{name: "date_time", collect: collectDateTime},
		{name: "env", collect: collectEnv},
		{name: "loadavg", collect: collectLoadavg},
		{name: "ssh_pub_keys", ids: []string{"ssh_host_pub_keys", "ssh_host_key_dsa_public", "ssh_host_key_rsa_public",
			"ssh_host_key_ecdsa_public", "ssh_host_key_ed25519_public"}, collect: collectSSHPubKeys},
		{name: "user", ids: []string{"user_id", "user_uid", "user_gid", "user_gecos", "user_dir", "user_shell", "real_user_id",
			"effective_user_id", "effective_group_ids"}, collect: collectUser},
		{name: "systemd", collect: collectSystemd},
		{name: "virtual", ids: []string{"virtualization_type", "virtualization_role", "virtualization_tech_guest",
			"virtualization_tech_host"}, collect: virtual},
		{name: "hardware", ids: []string{"processor", "processor_cores", "processor_count", "mounts", "devices"},
			requires: linuxOnly(goos, "platform"), collect: hardware},
		{name: "dns", collect: collectDNS},
		{name: "fibre_channel_wwn", collect: collectFibreChannel},
		{name: "network", ids: []string{"interfaces", "default_ipv4", "default_ipv6", "all_ipv4_addresses", "all_ipv6_addresses"},
			requires: linuxOnly(goos, "distribution", "platform"), collect: network},
		{name: "iscsi", collect: collectISCSI},
		{name: "nvme", collect: collectNVMe},
		{name: "local", collect: collectLocal},
		{name: "facter", ids: []string{"facter"}, prefix: "facter_", collect: collectFacter},
		{name: "ohai", prefix: "ohai_", collect: collectOhai},
	}
}

func linuxOnly(goos string, names ...string) []string {
	if goos == "linux" {
		return names
	}
	return nil
}

func collectNothing(*system, *value.Dict) *value.Dict { return value.NewDict(0) }

// collectGenericVirtual is ansible-core's base Virtual collector, which
// knows nothing.
func collectGenericVirtual(*system, *value.Dict) *value.Dict {
	return facts("virtualization_type", "", "virtualization_role", "", "virtualization_tech_guest", []any{},
		"virtualization_tech_host", []any{})
}
