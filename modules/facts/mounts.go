package facts

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

var (
	octalEscape = regexp.MustCompile(`\\[0-7]{3}`)
	bindInMtab  = regexp.MustCompile(`.*bind.*"`)
)

// mountFacts lists the mounted file systems with their sizes and UUIDs,
// as get_mount_facts does; statvfs of each mount runs with
// gather_timeout as its limit.
func mountFacts(s *system) *value.Dict {
	binds := bindMounts(s)
	uuids := lsblkUUIDs(s)
	type pending struct {
		info *value.Dict
		done chan mountExtra
	}
	var all []pending
	for _, fields := range mtabEntries() {
		for i, f := range fields {
			fields[i] = octalEscape.ReplaceAllStringFunc(f, func(m string) string {
				n, _ := strconv.ParseUint(m[1:], 8, 8)
				return string(rune(n))
			})
		}
		if len(fields) < 6 {
			continue
		}
		device, mount, fstype, options := fields[0], fields[1], fields[2], fields[3]
		dump, err1 := strconv.Atoi(fields[4])
		passno, err2 := strconv.Atoi(fields[5])
		if err1 != nil || err2 != nil {
			continue
		}
		if (!strings.HasPrefix(device, "/") && !strings.HasPrefix(device, `\`) && !strings.Contains(device, ":/")) || fstype == "none" {
			continue
		}
		if binds[mount] && !bindInMtab.MatchString(options) {
			options += ",bind"
		}
		info := value.DictOf("mount", mount, "device", device, "fstype", fstype, "options", options, "dump", dump, "passno", passno)
		p := pending{info: info, done: make(chan mountExtra, 1)}
		go func(mount, device string) {
			p.done <- mountExtra{size: mountSize(mount), uuid: deviceUUID(s, uuids, device)}
		}(mount, device)
		all = append(all, p)
	}
	mounts := make([]any, 0, len(all))
	deadline := time.After(s.timeout)
	for _, p := range all {
		select {
		case x := <-p.done:
			for _, k := range sortedKeys(x.size) {
				p.info.Set(k, x.size[k])
			}
			if x.uuid == "" {
				x.uuid = "N/A"
			}
			p.info.Set("uuid", x.uuid)
		case <-deadline:
			s.warn(fmt.Sprintf("Timeout exceeded when getting mount info for %s", p.info.Default("mount", "")))
			p.info.Set("note", "Could not get extra information due to timeout")
		}
		mounts = append(mounts, p.info)
	}
	return facts("mounts", mounts)
}

type mountExtra struct {
	size map[string]int64
	uuid string
}

func sortedKeys(m map[string]int64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// mtabEntries reads /etc/mtab (or /proc/mounts) as lists of fields.
func mtabEntries() [][]string {
	file := "/etc/mtab"
	if !exists(file) {
		file = "/proc/mounts"
	}
	var out [][]string
	for _, line := range py.Splitlines(contentOr(file, ""), false) {
		if f := strings.Fields(line); len(f) >= 4 {
			out = append(out, f)
		}
	}
	return out
}

// bindMounts are the targets findmnt shows as bind mounts.
func bindMounts(s *system) map[string]bool {
	out := map[string]bool{}
	rc, stdout, found := s.runBin("findmnt", "--list", "--noheadings", "--notruncate")
	if !found || rc != 0 {
		return out
	}
	for _, line := range py.Splitlines(stdout, false) {
		if f := strings.Fields(line); len(f) >= 2 && strings.HasSuffix(f[1], "]") {
			out[f[0]] = true
		}
	}
	return out
}

// lsblkUUIDs maps block devices to their file system UUIDs.
func lsblkUUIDs(s *system) map[string]string {
	out := map[string]string{}
	rc, stdout, found := s.runBin("lsblk", "--list", "--noheadings", "--paths", "--output", "NAME,UUID", "--exclude", "2")
	if !found || rc != 0 {
		return out
	}
	for _, line := range py.Splitlines(stdout, false) {
		f := strings.Fields(strings.TrimSpace(line))
		if len(f) < 2 {
			continue
		}
		dev := strings.Join(f[:len(f)-1], " ")
		if _, dup := out[dev]; !dup {
			out[dev] = f[len(f)-1]
		}
	}
	return out
}

// deviceUUID is the UUID of a mounted device: lsblk's, else udevadm's,
// else N/A. As in ansible-core, udevadm is asked even when lsblk knew.
func deviceUUID(s *system, uuids map[string]string, device string) string {
	fallback := "N/A"
	if bin := s.binPath("udevadm"); bin != "" {
		if rc, out, _ := s.run(bin, "info", "--query", "property", "--name", device); rc == 0 {
			if m := regexp.MustCompile(`ID_FS_UUID=(.*)\n`).FindStringSubmatch(out); m != nil {
				fallback = m[1]
			}
		}
	}
	if u, ok := uuids[device]; ok {
		return u
	}
	return fallback
}

// readLinkBase is the base name of a symlink's target.
func readLinkBase(p string) (string, bool) {
	t, err := os.Readlink(p)
	if err != nil {
		return "", false
	}
	return filepath.Base(t), true
}
