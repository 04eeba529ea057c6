package template

import (
	"fmt"
	"math/big"
	"net/netip"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// ipNet is a netaddr.IPNetwork: an address with a prefix length.
type ipNet struct {
	ip        *big.Int
	prefix    int
	version   int
	hasPrefix bool
}

func (n ipNet) width() int {
	if n.version == 4 {
		return 32
	}
	return 128
}

func (n ipNet) maxInt() *big.Int {
	return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(n.width())), big.NewInt(1))
}

func (n ipNet) hostmask() *big.Int {
	return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(n.width()-n.prefix)), big.NewInt(1))
}

func (n ipNet) netmask() *big.Int { return new(big.Int).Xor(n.maxInt(), n.hostmask()) }

func (n ipNet) network() *big.Int { return new(big.Int).And(n.ip, n.netmask()) }

func (n ipNet) size() *big.Int { return new(big.Int).Lsh(big.NewInt(1), uint(n.width()-n.prefix)) }

func (n ipNet) broadcast() *big.Int {
	if n.version == 4 && n.width()-n.prefix <= 1 {
		return nil
	}
	return new(big.Int).Or(n.network(), n.hostmask())
}

func (n ipNet) addrStr(v *big.Int) string { return ipString(v, n.version) }

func (n ipNet) String() string { return n.addrStr(n.ip) + "/" + strconv.Itoa(n.prefix) }

func ipString(v *big.Int, version int) string {
	if version == 4 {
		x := v.Uint64()
		return fmt.Sprintf("%d.%d.%d.%d", x>>24&0xff, x>>16&0xff, x>>8&0xff, x&0xff)
	}
	b := v.FillBytes(make([]byte, 16))
	var words [8]int
	for i := range words {
		words[i] = int(b[2*i])<<8 | int(b[2*i+1])
	}
	base, blen := -1, 0
	for i := 0; i < 8; {
		if words[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && words[j] == 0 {
			j++
		}
		if j-i > blen {
			base, blen = i, j-i
		}
		i = j
	}
	if blen < 2 {
		base = -1
	}
	var sb strings.Builder
	for i := 0; i < 8; i++ {
		if base >= 0 && i >= base && i < base+blen {
			if i == base {
				sb.WriteByte(':')
			}
			continue
		}
		if i != 0 {
			sb.WriteByte(':')
		}
		if i == 6 && base == 0 && (blen == 6 || (blen == 5 && words[5] == 0xffff)) {
			fmt.Fprintf(&sb, "%d.%d.%d.%d", b[12], b[13], b[14], b[15])
			break
		}
		fmt.Fprintf(&sb, "%x", words[i])
	}
	if base >= 0 && base+blen == 8 {
		sb.WriteByte(':')
	}
	return sb.String()
}

func parseIPAddrStr(s string, version int) (*big.Int, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		if version == 4 {
			parts := strings.Split(s, ".")
			if len(parts) >= 1 && len(parts) < 4 {
				for _, p := range parts {
					n, err := strconv.Atoi(p)
					if err != nil || n < 0 || n > 255 || !py.IsDigits(p) {
						return nil, false
					}
				}
				for len(parts) < 4 {
					parts = append(parts, "0")
				}
				return parseIPAddrStr(strings.Join(parts, "."), 4)
			}
		}
		return nil, false
	}
	if version == 4 && !a.Is4() || version == 6 && !a.Is6() {
		return nil, false
	}
	b := a.AsSlice()
	return new(big.Int).SetBytes(b), true
}

// parseIPNet is netaddr.IPNetwork(s): IPv4 first, then IPv6.
func parseIPNet(s string) (ipNet, bool) {
	for _, ver := range []int{4, 6} {
		addr, pfx, has := strings.Cut(s, "/")
		ip, ok := parseIPAddrStr(addr, ver)
		if !ok {
			continue
		}
		n := ipNet{ip: ip, version: ver, hasPrefix: has}
		n.prefix = n.width()
		if has {
			if p, ok := py.ParseInt(pfx, 10); ok {
				n.prefix = p
			} else {
				m, ok := parseIPAddrStr(pfx, ver)
				if !ok {
					continue
				}
				full := n.maxInt()
				inv := new(big.Int).Xor(m, full)
				switch {
				case isLowMask(inv):
					n.prefix = n.width() - inv.BitLen()
				case isLowMask(m):
					n.prefix = n.width() - m.BitLen()
				default:
					continue
				}
			}
			if n.prefix < 0 || n.prefix > n.width() {
				continue
			}
		}
		return n, true
	}
	return ipNet{}, false
}

// isLowMask reports whether v is 2^k-1.
func isLowMask(v *big.Int) bool {
	x := new(big.Int).Add(v, big.NewInt(1))
	return new(big.Int).And(x, new(big.Int).Sub(x, big.NewInt(1))).Sign() == 0
}

func inNet(ip *big.Int, version int, cidr string) bool {
	n, _ := parseIPNet(cidr)
	if n.version != version {
		return false
	}
	return new(big.Int).And(ip, n.netmask()).Cmp(n.network()) == 0
}

func inRange(ip *big.Int, version int, lo, hi string) bool {
	if version != 4 {
		return false
	}
	l, _ := parseIPAddrStr(lo, 4)
	h, _ := parseIPAddrStr(hi, 4)
	return ip.Cmp(l) >= 0 && ip.Cmp(h) <= 0
}

func ipIsPrivate(ip *big.Int, ver int) bool {
	if ver == 4 {
		for _, c := range []string{"10.0.0.0/8", "100.64.0.0/10", "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15"} {
			if inNet(ip, 4, c) {
				return true
			}
		}
		if inRange(ip, 4, "239.0.0.0", "239.255.255.255") {
			return true
		}
	} else if inNet(ip, 6, "fc00::/7") || inNet(ip, 6, "fec0::/10") {
		return true
	}
	return ipIsLinkLocal(ip, ver)
}

func ipIsLinkLocal(ip *big.Int, ver int) bool {
	if ver == 4 {
		return inNet(ip, 4, "169.254.0.0/16")
	}
	return inNet(ip, 6, "fe80::/10")
}

func ipIsReserved(ip *big.Int, ver int) bool {
	if ver == 4 {
		for _, c := range []string{"0.0.0.0/8", "192.0.2.0/24", "240.0.0.0/4", "198.51.100.0/24", "203.0.113.0/24", "233.252.0.0/24", "127.0.0.0/8", "192.88.99.0/24"} {
			if inNet(ip, 4, c) {
				return true
			}
		}
		return inRange(ip, 4, "234.0.0.0", "238.255.255.255") || inRange(ip, 4, "225.0.0.0", "231.255.255.255")
	}
	for _, c := range []string{"ff00::/12", "::/8", "100::/8", "200::/7", "400::/6", "800::/5", "1000::/4", "4000::/3", "6000::/3", "8000::/3", "a000::/3", "c000::/3", "e000::/4", "f000::/5", "f800::/6", "fe00::/9"} {
		if inNet(ip, 6, c) {
			return true
		}
	}
	return false
}

func ipIsGlobal(ip *big.Int, ver int) bool {
	if !(ipIsPrivate(ip, ver) || ipIsLinkLocal(ip, ver) || ipIsReserved(ip, ver)) {
		all := true
		for _, c := range []string{"::1/128", "::/128", "::ffff:0:0/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32", "2002::/16"} {
			if inNet(ip, ver, c) {
				all = false
			}
		}
		if all {
			return true
		}
	}
	return inRange(ip, ver, "239.0.0.0", "239.255.255.255") || inNet(ip, ver, "233.252.0.0/24") ||
		inRange(ip, ver, "234.0.0.0", "238.255.255.255") || inRange(ip, ver, "225.0.0.0", "231.255.255.255") ||
		inNet(ip, ver, "192.88.99.0/24") || inNet(ip, ver, "192.0.0.9/32") || inNet(ip, ver, "192.0.0.10/32")
}

func ipIsMulticast(ip *big.Int, ver int) bool {
	if ver == 4 {
		return inNet(ip, 4, "224.0.0.0/4")
	}
	return inNet(ip, 6, "ff00::/8")
}

func ipIsLoopback(ip *big.Int, ver int) bool {
	if ver == 4 {
		return inNet(ip, 4, "127.0.0.0/8")
	}
	return ip.Cmp(big.NewInt(1)) == 0
}
