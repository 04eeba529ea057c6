package waitfor

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"os/user"
	"slices"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// procNetTCP are the kernel's TCP connection tables, with the wildcard
// address of each family as they write it.
var procNetTCP = []struct {
	file, anyAddr string
	v6            bool
}{
	{"/proc/net/tcp", "00000000", false},
	{"/proc/net/tcp6", "00000000000000000000000000000000", true},
}

// v4MappedPrefix and v4MappedAny are ::ffff:0:0/96 and ::ffff:0.0.0.0 as
// /proc/net/tcp6 writes them.
const (
	v4MappedPrefix = "0000000000000000FFFF0000"
	v4MappedAny    = "0000000000000000FFFF000000000000"
)

// procAddr is an address as /proc/net/tcp* writes it, with its family.
type procAddr struct {
	v6  bool
	hex string
}

// drained waits until no connection in one of active_connection_states
// remains on the port of host (every local address when host is 0.0.0.0
// or ::), leaving out those from exclude_hosts.
func (w *wait) drained() (*value.Dict, error) {
	if !w.p.IsSet("port") {
		return nil, fmt.Errorf("Module failed: int() argument must be a string, a bytes-like object or a real number, not 'NoneType'")
	}
	local, err := procAddrs(w.p.Str("host"))
	if err != nil {
		return nil, err
	}
	var exclude []procAddr
	for _, h := range w.p.Strs("exclude_hosts") {
		addrs, err := procAddrs(h)
		if err != nil {
			return nil, err
		}
		exclude = append(exclude, addrs...)
	}
	states := map[string]bool{}
	for _, s := range w.p.Strs("active_connection_states") {
		states[connectionStates[s]] = true
	}
	port := fmt.Sprintf("%04X", w.p.Int("port"))
	idle := func() (bool, *value.Dict, error) {
		return activeConnections(local, exclude, states, port) == 0, nil, nil
	}
	return w.until(idle, func() *value.Dict {
		return w.failure(fmt.Sprintf("Timeout when waiting for %s:%d to drain", w.p.Str("host"), w.p.Int("port")))
	})
}

// activeConnections counts the matching lines of the kernel's tables.
func activeConnections(local, exclude []procAddr, states map[string]bool, port string) int {
	count := 0
	for _, table := range procNetTCP {
		f, err := os.Open(table.file)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 4 || fields[1] == "local_address" || !states[fields[3]] {
				continue
			}
			localIP, localPort, _ := strings.Cut(fields[1], ":")
			remoteIP, _, _ := strings.Cut(fields[2], ":")
			if localPort != port || slices.Contains(exclude, procAddr{table.v6, remoteIP}) {
				continue
			}
			if slices.Contains(local, procAddr{table.v6, localIP}) || slices.Contains(local, procAddr{table.v6, table.anyAddr}) ||
				(strings.HasPrefix(localIP, v4MappedPrefix) && slices.Contains(local, procAddr{table.v6, v4MappedAny})) {
				count++
			}
		}
		f.Close()
	}
	return count
}

// procAddrs resolves host to its addresses in /proc/net/tcp* notation,
// each IPv4 address also as its IPv4-mapped IPv6 form.
func procAddrs(host string) ([]procAddr, error) {
	ips, err := net.LookupIP(host)
	if err != nil {
		return nil, err
	}
	var out []procAddr
	for _, ip := range ips {
		if v4 := ip.To4(); v4 != nil {
			out = append(out, procAddr{false, procHex(v4)}, procAddr{true, procHex(v4.To16())})
			continue
		}
		out = append(out, procAddr{true, procHex(ip.To16())})
	}
	return out, nil
}

// procHex writes an address as the kernel does: each 32-bit word in host
// (little-endian) byte order, in upper-case hex.
func procHex(ip net.IP) string {
	var b strings.Builder
	for i := 0; i+4 <= len(ip); i += 4 {
		fmt.Fprintf(&b, "%08X", binary.LittleEndian.Uint32(ip[i:i+4]))
	}
	return b.String()
}

// userName is the name of a user id, or the id when it has none.
func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username
	}
	return strconv.Itoa(uid)
}

// groupName is the name of a group id, or the id when it has none.
func groupName(gid int) string {
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil {
		return g.Name
	}
	return strconv.Itoa(gid)
}
