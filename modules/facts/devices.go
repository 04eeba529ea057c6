package facts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// deviceFacts describes the block devices of /sys/block, as
// get_device_facts does.
func deviceFacts(s *system) *value.Dict {
	f := value.NewDict(2)
	devices := value.NewDict(8)
	f.Set("devices", devices)
	blocks, err := readDirNames("/sys/block")
	if err != nil {
		return f
	}
	var pci string
	if rc, out, found := s.runBin("lspci", "-D"); found && rc == 0 {
		pci = out
	}
	wwns := map[string]string{}
	if ids, err := readDirNames("/dev/disk/by-id"); err == nil {
		for _, id := range ids {
			if w, ok := strings.CutPrefix(id, "wwn-"); ok {
				if target, ok := readLinkBase(filepath.Join("/dev/disk/by-id", id)); ok {
					wwns[target] = w
				}
			}
		}
	}
	links := deviceLinks()
	f.Set("device_links", links.dict())
	for _, block := range blocks {
		if name, d := blockDevice(s, block, links, wwns, pci); d != nil {
			devices.Set(name, d)
		}
	}
	return f
}

// readDirNames lists a directory in the order the kernel returns it, as
// os.listdir does.
func readDirNames(dir string) ([]string, error) {
	fh, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return fh.Readdirnames(-1)
}

// linkSets are the /dev/disk/by-* names of each device, and the devices
// each device is a slave of.
type linkSets struct {
	kinds []string
	sets  map[string]map[string][]string
}

func deviceLinks() linkSets {
	ls := linkSets{kinds: []string{"ids", "uuids", "labels", "masters"}, sets: map[string]map[string][]string{}}
	for kind, dir := range map[string]string{"ids": "/dev/disk/by-id", "uuids": "/dev/disk/by-uuid", "labels": "/dev/disk/by-label"} {
		ls.sets[kind] = linksIn(dir)
	}
	masters := map[string][]string{}
	slaves, _ := filepath.Glob("/sys/block/*/slaves/*")
	for _, p := range slaves {
		parts := strings.Split(p, "/")
		masters[parts[5]] = appendSortedUnique(masters[parts[5]], parts[3])
	}
	ls.sets["masters"] = masters
	return ls
}

func linksIn(dir string) map[string][]string {
	out := map[string][]string{}
	names, err := readDirNames(dir)
	if err != nil {
		return out
	}
	for _, n := range names {
		if target, ok := readLinkBase(filepath.Join(dir, n)); ok {
			out[target] = appendSortedUnique(out[target], n)
		}
	}
	return out
}

func appendSortedUnique(l []string, s string) []string {
	if containsString(l, s) {
		return l
	}
	l = append(l, s)
	sort.Strings(l)
	return l
}

// dict is the device_links fact.
func (ls linkSets) dict() *value.Dict {
	d := value.NewDict(4)
	for _, k := range ls.kinds {
		m := value.NewDict(len(ls.sets[k]))
		for dev, names := range ls.sets[k] {
			m.Set(dev, strList(names))
		}
		d.Set(k, m)
	}
	return d
}

// of returns a device's links of every kind.
func (ls linkSets) of(dev string) *value.Dict {
	d := value.NewDict(4)
	for _, k := range ls.kinds {
		d.Set(k, strList(ls.sets[k][dev]))
	}
	return d
}

// optContent is get_file_content with None for a missing file.
func optContent(path string) any {
	if s, ok := content(path); ok {
		return s
	}
	return nil
}

var pciAddress = regexp.MustCompile(`.+/([a-f0-9]{4}:[a-f0-9]{2}:[01][a-f0-9]\.[0-7])/`)

// blockDevice describes one /sys/block entry under its disk name (nil
// to skip it).
func blockDevice(s *system, block string, links linkSets, wwns map[string]string, pci string) (string, *value.Dict) {
	virtual, noLinks := 1, false
	target, err := os.Readlink(filepath.Join("/sys/block", block))
	if err != nil {
		if !errors.Is(err, syscall.EINVAL) {
			return "", nil
		}
		target, noLinks = block, true
	}
	sysdir := filepath.Join("/sys/block", target)
	if noLinks {
		names, _ := readDirNames(sysdir)
		for _, n := range names {
			if strings.Contains(n, "device") {
				virtual = 0
				break
			}
		}
	}
	diskname := filepath.Base(sysdir)
	d := value.NewDict(20)
	d.Set("virtual", virtual)
	d.Set("links", links.of(block))
	for _, k := range []string{"vendor", "model", "sas_address", "sas_device_handle"} {
		d.Set(k, optContent(sysdir+"/device/"+k))
	}
	if serial, ok := content("/sys/block/" + block + "/device/serial"); ok && s.binPath("sg_inq") == "" {
		d.Set("serial", serial)
	} else if serial := sgInqSerial(s, block); serial != "" {
		d.Set("serial", serial)
	}
	d.Set("removable", optContent(sysdir+"/removable"))
	if contentOr(sysdir+"/queue/discard_max_hw_bytes", "") == "0" {
		d.Set("support_discard", "0")
	} else {
		d.Set("support_discard", optContent(sysdir+"/queue/discard_granularity"))
	}
	if w, ok := wwns[diskname]; ok {
		d.Set("wwn", w)
	}
	d.Set("partitions", partitions(sysdir, diskname, links))
	d.Set("rotational", optContent(sysdir+"/queue/rotational"))
	d.Set("scheduler_mode", "")
	if sched, ok := content(sysdir + "/queue/scheduler"); ok {
		if m := regexp.MustCompile(`.*?(\[(.*)\])`).FindStringSubmatch(sched); m != nil {
			d.Set("scheduler_mode", m[2])
		}
	}
	sectorsize, sectors := sectorFacts(sysdir)
	d.Set("sectorsize", sectorsize)
	d.Set("sectors", sectors)
	d.Set("size", bytesToHuman(float64(sectors)*float64(atoiOr(value.Str(sectorsize), 512))))
	d.Set("host", "")
	if m := pciAddress.FindStringSubmatch(sysdir); m != nil && pci != "" {
		if hm := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(m[1]) + `\s(.*)$`).FindStringSubmatch(pci); hm != nil {
			d.Set("host", hm[1])
		}
	}
	d.Set("holders", holders(sysdir))
	return diskname, d
}

// sgInqSerial asks sg_inq for a disk's serial number.
func sgInqSerial(s *system, block string) string {
	rc, out, found := s.runBin("sg_inq", "/dev/"+block)
	if !found || rc != 0 {
		return ""
	}
	if m := regexp.MustCompile(`(?:Unit serial|Serial) number:\s+(\w+)`).FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return ""
}

// sectorFacts are a device's logical sector size (as read) and its size
// in such sectors.
func sectorFacts(dir string) (sectorsize any, sectors int) {
	sectorsize = optContent(dir + "/queue/logical_block_size")
	if sectorsize == nil {
		if hw, ok := content(dir + "/queue/hw_sector_size"); ok {
			sectorsize = hw
		} else {
			sectorsize = 512
		}
	}
	size := atoiOr(contentOr(dir+"/size", "0"), 0)
	if ss := atoiOr(value.Str(sectorsize), 512); ss != 0 {
		sectors = size * 512 / ss
	}
	return sectorsize, sectors
}

func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		return n
	}
	return def
}

// partitions describes the partitions of a disk.
func partitions(sysdir, diskname string, links linkSets) *value.Dict {
	out := value.NewDict(0)
	names, _ := readDirNames(sysdir)
	re := regexp.MustCompile("(" + regexp.QuoteMeta(diskname) + `[p]?\d+)`)
	for _, n := range names {
		m := re.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		part := m[1]
		dir := sysdir + "/" + part
		p := value.NewDict(8)
		p.Set("links", links.of(part))
		if start, ok := content(dir + "/start"); ok {
			p.Set("start", start)
		} else {
			p.Set("start", 0)
		}
		sectorsize, sectors := sectorFacts(dir)
		p.Set("sectorsize", sectorsize)
		p.Set("sectors", sectors)
		p.Set("size", bytesToHuman(float64(sectors)*float64(atoiOr(value.Str(sectorsize), 512))))
		p.Set("uuid", partitionUUID(part))
		p.Set("holders", holders(dir))
		out.Set(part, p)
	}
	return out
}

// partitionUUID finds the /dev/disk/by-uuid entry of a partition.
func partitionUUID(part string) any {
	names, err := readDirNames("/dev/disk/by-uuid")
	if err != nil {
		return nil
	}
	for _, u := range names {
		if real, err := filepath.EvalSymlinks("/dev/disk/by-uuid/" + u); err == nil && real == "/dev/"+part {
			return u
		}
	}
	return nil
}

// holders are the device-mapper devices built on a device.
func holders(sysdir string) []any {
	out := []any{}
	names, err := readDirNames(sysdir + "/holders")
	if err != nil {
		return out
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "dm-") {
			continue
		}
		if name, ok := content(sysdir + "/holders/" + n + "/dm/name"); ok {
			out = append(out, name)
		} else {
			out = append(out, n)
		}
	}
	return out
}

// sizeUnits are bytes_to_human's units, largest first.
var sizeUnits = []struct {
	suffix string
	limit  float64
}{{"Y", 1 << 80}, {"Z", 1 << 70}, {"E", 1 << 60}, {"P", 1 << 50}, {"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}

// bytesToHuman formats a byte count as ansible-core's bytes_to_human.
func bytesToHuman(size float64) string {
	for _, u := range sizeUnits {
		if size >= u.limit || u.limit == 1 {
			if u.limit == 1 {
				return fmt.Sprintf("%.2f Bytes", size)
			}
			return fmt.Sprintf("%.2f %sB", size/u.limit, u.suffix)
		}
	}
	return ""
}
