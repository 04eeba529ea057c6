package facts

import (
	"math"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// collectHardware is the hardware collector on Linux: processors,
// memory, DMI, block devices, uptime, LVM and mounts.
func collectHardware(s *system, collected *value.Dict) *value.Dict {
	f := value.NewDict(48)
	for _, part := range []*value.Dict{cpuFacts(collected), memoryFacts(), dmiFacts(s), sysinfoFacts(), deviceFacts(s),
		uptimeFacts(), lvmFacts(s), mountFacts(s)} {
		f.Update(part)
	}
	return f
}

// cpuInfo is what /proc/cpuinfo tells about the processors.
type cpuInfo struct {
	processor                    []any
	flags                        []any
	count, vendorIDs, modelNames int
	processorLines               int
	sockets, cores               map[string]int
	socketOrder, coreOrder       []string
	zProcessors, zThreads        int
	xenParavirt                  bool
}

func readCPUInfo(xen bool) *cpuInfo {
	ci := &cpuInfo{processor: []any{}, sockets: map[string]int{}, cores: map[string]int{}}
	physid, coreid := "0", "0"
	for _, line := range fileLines("/proc/cpuinfo") {
		k, v, _ := strings.Cut(line, ":")
		key, val := strings.TrimSpace(k), strings.TrimSpace(v)
		if xen && key == "flags" && !strings.Contains(val, "vme") {
			ci.xenParavirt = true
		}
		if key == "flags" {
			ci.flags = strList(strings.Fields(val))
		}
		switch key {
		case "model name", "Processor", "vendor_id", "cpu", "Vendor", "processor":
			ci.processor = append(ci.processor, val)
			switch key {
			case "vendor_id":
				ci.vendorIDs++
			case "model name":
				ci.modelNames++
			case "processor":
				ci.processorLines++
			}
			ci.count++
		case "physical id":
			physid = val
			if _, ok := ci.sockets[physid]; !ok {
				ci.setSocket(physid, 1)
			}
		case "core id":
			coreid = val
			if _, ok := ci.sockets[coreid]; !ok {
				ci.setCore(coreid, 1)
			}
		case "cpu cores":
			n, _ := strconv.Atoi(val)
			ci.setSocket(physid, n)
		case "siblings":
			n, _ := strconv.Atoi(val)
			ci.setCore(coreid, n)
		case "# processors":
			ci.zProcessors, _ = strconv.Atoi(val)
		case "max thread id":
			n, _ := strconv.Atoi(val)
			ci.zThreads = n + 1
		case "ncpus active":
			ci.count, _ = strconv.Atoi(val)
		}
	}
	return ci
}

// setSocket and setCore keep first-insertion order, as Python dicts do.
func (ci *cpuInfo) setSocket(k string, n int) {
	if _, ok := ci.sockets[k]; !ok {
		ci.socketOrder = append(ci.socketOrder, k)
	}
	ci.sockets[k] = n
}

func (ci *cpuInfo) setCore(k string, n int) {
	if _, ok := ci.cores[k]; !ok {
		ci.coreOrder = append(ci.coreOrder, k)
	}
	ci.cores[k] = n
}

// cpuFacts reads /proc/cpuinfo as LinuxHardware.get_cpu_facts does.
func cpuFacts(collected *value.Dict) *value.Dict {
	f := value.NewDict(8)
	xen := exists("/proc/xen")
	if !xen {
		if l := fileLines("/sys/hypervisor/type"); len(l) > 0 && strings.TrimSpace(l[0]) == "xen" {
			xen = true
		}
	}
	if _, err := os.ReadFile("/proc/cpuinfo"); err != nil {
		return f
	}
	ci := readCPUInfo(xen)
	f.Set("processor", ci.processor)
	if ci.flags != nil {
		f.Set("flags", ci.flags)
	}
	i := ci.count
	if ci.vendorIDs > 0 && ci.vendorIDs == ci.modelNames {
		i = ci.vendorIDs
	}
	arch := value.Str(collected.Default("ansible_architecture", ""))
	if strings.HasPrefix(arch, "armv") || strings.HasPrefix(arch, "aarch") || strings.HasPrefix(arch, "ppc") {
		i = ci.processorLines
	}
	switch {
	case arch == "s390x":
		threads := ci.zThreads
		cores := 0
		if threads != 0 {
			cores = int(math.RoundToEven(float64(ci.zProcessors) / float64(threads)))
		}
		setAll(f, "processor_count", 1, "processor_cores", cores, "processor_threads_per_core", threads,
			"processor_vcpus", ci.zProcessors, "processor_nproc", ci.zProcessors)
	case ci.xenParavirt:
		setAll(f, "processor_count", i, "processor_cores", i, "processor_threads_per_core", 1, "processor_vcpus", i, "processor_nproc", i)
	default:
		count := i
		if len(ci.sockets) > 0 {
			count = len(ci.sockets)
		}
		cores := 1
		if len(ci.socketOrder) > 0 && ci.sockets[ci.socketOrder[0]] != 0 {
			cores = ci.sockets[ci.socketOrder[0]]
		}
		threads := int(math.RoundToEven(1 / float64(cores)))
		if len(ci.coreOrder) > 0 {
			threads = int(math.RoundToEven(float64(ci.cores[ci.coreOrder[0]]) / float64(cores)))
		}
		setAll(f, "processor_count", count, "processor_cores", cores, "processor_threads_per_core", threads,
			"processor_vcpus", threads*count*cores, "processor_nproc", ci.processorLines)
	}
	// The processors this process may run on (sched_getaffinity), which
	// the Go runtime reads at start.
	f.Set("processor_nproc", runtime.NumCPU())
	return f
}

func setAll(d *value.Dict, kv ...any) {
	for i := 0; i+1 < len(kv); i += 2 {
		d.Set(kv[i].(string), kv[i+1])
	}
}

// memoryFacts reads /proc/meminfo as get_memory_facts does.
func memoryFacts() *value.Dict {
	f := value.NewDict(6)
	lines := fileLines("/proc/meminfo")
	if lines == nil {
		return f
	}
	stats := map[string]int{}
	for _, line := range lines {
		key, rest, _ := strings.Cut(line, ":")
		switch key {
		case "MemTotal", "SwapTotal", "MemFree", "SwapFree", "Buffers", "Cached", "SwapCached":
		default:
			continue
		}
		n, err := strconv.Atoi(strings.Split(strings.TrimSpace(rest), " ")[0])
		if err != nil {
			continue
		}
		stats[strings.ToLower(key)] = n / 1024
		switch key {
		case "MemTotal", "SwapTotal", "MemFree", "SwapFree":
			f.Set(strings.ToLower(key)+"_mb", n/1024)
		}
	}
	get := func(k string) any {
		if n, ok := stats[k]; ok {
			return n
		}
		return nil
	}
	diff := func(a, b string) any {
		x, okA := stats[a]
		y, okB := stats[b]
		if !okA || !okB {
			return nil
		}
		return x - y
	}
	var nocacheFree, nocacheUsed any
	c, ok1 := stats["cached"]
	m, ok2 := stats["memfree"]
	b, ok3 := stats["buffers"]
	if ok1 && ok2 && ok3 {
		nocacheFree = c + m + b
		if t, ok := stats["memtotal"]; ok {
			nocacheUsed = t - (c + m + b)
		}
	}
	f.Set("memory_mb", value.DictOf(
		"real", value.DictOf("total", get("memtotal"), "used", diff("memtotal", "memfree"), "free", get("memfree")),
		"nocache", value.DictOf("free", nocacheFree, "used", nocacheUsed),
		"swap", value.DictOf("total", get("swaptotal"), "free", get("swapfree"), "used", diff("swaptotal", "swapfree"), "cached", get("swapcached")),
	))
	return f
}

// dmiFiles are the DMI facts and the sysfs files they come from, with
// the dmidecode keyword to ask for each when sysfs has no DMI data.
var dmiFiles = []struct{ fact, file, keyword string }{
	{"bios_date", "bios_date", "bios-release-date"}, {"bios_vendor", "bios_vendor", "bios-vendor"},
	{"bios_version", "bios_version", "bios-version"}, {"board_asset_tag", "board_asset_tag", "baseboard-asset-tag"},
	{"board_name", "board_name", "baseboard-product-name"}, {"board_serial", "board_serial", "baseboard-serial-number"},
	{"board_vendor", "board_vendor", "baseboard-manufacturer"}, {"board_version", "board_version", "baseboard-version"},
	{"chassis_asset_tag", "chassis_asset_tag", "chassis-asset-tag"}, {"chassis_serial", "chassis_serial", "chassis-serial-number"},
	{"chassis_vendor", "chassis_vendor", "chassis-manufacturer"}, {"chassis_version", "chassis_version", "chassis-version"},
	{"form_factor", "chassis_type", "chassis-type"}, {"product_name", "product_name", "system-product-name"},
	{"product_serial", "product_serial", "system-serial-number"}, {"product_uuid", "product_uuid", "system-uuid"},
	{"product_version", "product_version", "system-version"}, {"system_vendor", "sys_vendor", "system-manufacturer"},
}

// formFactors are the SMBIOS chassis types.
var formFactors = []string{"Unknown", "Other", "Unknown", "Desktop", "Low Profile Desktop", "Pizza Box", "Mini Tower", "Tower",
	"Portable", "Laptop", "Notebook", "Hand Held", "Docking Station", "All In One", "Sub Notebook", "Space-saving", "Lunch Box",
	"Main Server Chassis", "Expansion Chassis", "Sub Chassis", "Bus Expansion Chassis", "Peripheral Chassis", "RAID Chassis",
	"Rack Mount Chassis", "Sealed-case PC", "Multi-system", "CompactPCI", "AdvancedTCA", "Blade", "Blade Enclosure",
	"Tablet", "Convertible", "Detachable", "IoT Gateway", "Embedded PC", "Mini PC", "Stick PC"}

// dmiFacts reads DMI data from sysfs, else from dmidecode, else NA.
func dmiFacts(s *system) *value.Dict {
	const dir = "/sys/devices/virtual/dmi/id/"
	f := value.NewDict(len(dmiFiles))
	if exists(dir + "product_name") {
		for _, d := range dmiFiles {
			data, ok := content(dir + d.file)
			switch {
			case !ok:
				f.Set(d.fact, "NA")
			case d.fact == "form_factor":
				f.Set(d.fact, formFactor(data))
			default:
				f.Set(d.fact, data)
			}
		}
		return f
	}
	bin := s.binPath("dmidecode")
	for _, d := range dmiFiles {
		f.Set(d.fact, "NA")
		if bin == "" {
			continue
		}
		if rc, out, _ := s.run(bin, "-s", d.keyword); rc == 0 {
			var kept []string
			for _, line := range py.Splitlines(out, false) {
				if !strings.HasPrefix(line, "#") {
					kept = append(kept, line)
				}
			}
			f.Set(d.fact, strings.Join(kept, ""))
		}
	}
	return f
}

func formFactor(data string) string {
	n, err := strconv.Atoi(data)
	if err != nil {
		return "unknown (" + data + ")"
	}
	if n < 0 {
		n += len(formFactors)
	}
	if n < 0 || n >= len(formFactors) {
		return "unknown (" + data + ")"
	}
	return formFactors[n]
}

var sysinfoLine = regexp.MustCompile(`(?m)^(?:Manufacturer:\s+(.+))|(?:Type:\s+(.+))|(?:Sequence Code:\s+0+(.+))$`)

// sysinfoFacts reads /proc/sysinfo on IBM Z.
func sysinfoFacts() *value.Dict {
	data, err := os.ReadFile("/proc/sysinfo")
	if err != nil {
		return value.NewDict(0)
	}
	f := value.DictOf("system_vendor", "NA", "product_version", "NA", "product_serial", "NA", "product_name", "NA", "product_uuid", "NA")
	for _, m := range sysinfoLine.FindAllStringSubmatch(strings.TrimSpace(string(data)), -1) {
		for i, k := range []string{"system_vendor", "product_name", "product_serial"} {
			if m[i+1] != "" {
				f.Set(k, m[i+1])
			}
		}
	}
	return f
}

// uptimeFacts reads /proc/uptime.
func uptimeFacts() *value.Dict {
	data, ok := content("/proc/uptime")
	if !ok {
		return value.NewDict(0)
	}
	n, err := strconv.ParseFloat(strings.Split(data, " ")[0], 64)
	if err != nil {
		return value.NewDict(0)
	}
	return facts("uptime_seconds", int(n))
}

// lvmFacts lists volume groups, logical and physical volumes when the
// LVM tools are installed and the module runs as root.
func lvmFacts(s *system) *value.Dict {
	f := facts("lvm", "N/A")
	vgsBin := s.binPath("vgs")
	if vgsBin == "" || os.Getuid() != 0 {
		return f
	}
	opts := []string{"--noheadings", "--nosuffix", "--units", "g", "--separator", ","}
	rows := func(bin string) [][]string {
		_, out, _ := s.run(append([]string{bin}, opts...)...)
		var l [][]string
		for _, line := range py.Splitlines(out, false) {
			l = append(l, strings.Split(strings.TrimSpace(line), ","))
		}
		return l
	}
	vgs, lvs, pvs := value.NewDict(0), value.NewDict(0), value.NewDict(0)
	for _, it := range rows(vgsBin) {
		if len(it) >= 4 {
			vgs.Set(it[0], value.DictOf("size_g", it[len(it)-2], "free_g", it[len(it)-1], "num_lvs", it[2], "num_pvs", it[1]))
		}
	}
	if bin := s.binPath("lvs"); bin != "" {
		for _, it := range rows(bin) {
			if len(it) >= 4 {
				lvs.Set(it[0], value.DictOf("size_g", it[3], "vg", it[1]))
			}
		}
	}
	if bin := s.binPath("pvs"); bin != "" {
		for _, it := range rows(bin) {
			if len(it) >= 6 {
				pvs.Set(mapperName(s, it[0]), value.DictOf("size_g", it[4], "free_g", it[5], "vg", it[1]))
			}
		}
	}
	f.Set("lvm", value.DictOf("lvs", lvs, "vgs", vgs, "pvs", pvs))
	return f
}

// mapperName turns /dev/dm-N into its /dev/mapper/ name.
func mapperName(s *system, dev string) string {
	if !strings.HasPrefix(dev, "/dev/dm-") {
		return dev
	}
	if bin := s.binPath("dmsetup"); bin != "" {
		if rc, out, _ := s.run(bin, "info", "-C", "--noheadings", "-o", "name", dev); rc == 0 {
			return "/dev/mapper/" + strings.TrimRight(out, " \t\r\n")
		}
	}
	return dev
}
