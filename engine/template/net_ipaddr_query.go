package template

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ipValue is one value given to ipaddr, parsed, with what its queries
// (ipQueries) ask of it.
type ipValue struct {
	ipNet
	// given is the value as ipaddr prints it back: as written, or
	// normalized when it was an integer or an integer/prefix.
	given string
	// isAddress reports a value without a prefix (ipaddr's vtype
	// "address"); otherwise it is a network.
	isAddress bool
	// lookup is the network a cidr_lookup query tests against.
	lookup *ipNet
	// size is the number of addresses of the network.
	size *big.Int
	// addr is the address without its prefix.
	addr string
	// notNetwork reports that the address is not the network's own.
	notNetwork bool
}

var (
	bigOne = big.NewInt(1)
	bigTwo = big.NewInt(2)
)

// withPrefix is the address with the network's prefix length.
func (v *ipValue) withPrefix() string { return v.addr + "/" + strconv.Itoa(v.prefix) }

// networkWithPrefix is the network address with its prefix length.
func (v *ipValue) networkWithPrefix() string {
	return v.addrStr(v.network()) + "/" + strconv.Itoa(v.prefix)
}

// firstLast returns the first and last usable addresses of the network.
func (v *ipValue) firstLast() (*big.Int, *big.Int) {
	last := new(big.Int).Or(v.network(), v.hostmask())
	if v.size.Cmp(bigTwo) == 0 {
		return v.network(), last
	}
	return new(big.Int).Add(v.network(), bigOne), last.Sub(last, bigOne)
}

// needNetwork fails for an address, as the queries about a network's
// usable range do.
func (v *ipValue) needNetwork() error {
	if v.isAddress {
		return Errorf("Not a network address")
	}
	return nil
}

// givenIf returns the value as given when ok, else None.
func (v *ipValue) givenIf(ok bool) any {
	if ok {
		return v.given
	}
	return nil
}

// ipaddrQuery is ansible.utils' ipaddr(value, query, version, alias): a
// list is filtered item by item; a value that is no address or network,
// or not of the version asked for, is False; otherwise the query (one of
// ipQueries, a network for cidr_lookup, or an index into the network)
// gives the result.
func ipaddrQuery(in any, query string, version int, alias string) (any, error) {
	switch x := in.(type) {
	case []any:
		out := []any{}
		for _, e := range x {
			r, err := ipaddrQuery(e, query, version, "ipaddr")
			if err != nil {
				return nil, err
			}
			if value.Truthy(r) {
				out = append(out, r)
			}
		}
		return out, nil
	case bool:
		return false, nil
	}
	if !value.Truthy(in) {
		return false, nil
	}
	v, ok := parseIPValue(value.Str(in), version)
	if !ok {
		return false, nil
	}
	query, v.lookup = cidrLookup(query, alias)
	if version != 0 && v.version != version {
		return false, nil
	}
	v.size = v.ipNet.size()
	v.addr = v.addrStr(v.ip)
	v.notNetwork = v.ip.Cmp(v.network()) != 0
	if q, known := ipQueries[query]; known {
		return q(v)
	}
	if _, ok := py.ParseFloat(query); ok {
		return v.indexQuery(query), nil
	}
	if alias == "" {
		return nil, TypeErrorf("unsupported operand type(s) for +: 'NoneType' and 'str'")
	}
	return nil, Errorf("%s: unknown filter type: %s", alias, query)
}

// parseIPValue reads a value given to ipaddr: an integer (an IPv4 address
// when it fits and version allows, else IPv6), an address or network, or
// an integer/prefix network.
func parseIPValue(s string, version int) (*ipValue, bool) {
	if py.IsDigits(s) {
		n, _ := new(big.Int).SetString(s, 10)
		var v *ipValue
		switch {
		case version != 6 && n.BitLen() <= 32:
			v = &ipValue{ipNet: ipNet{ip: n, version: 4, prefix: 32}}
		case n.BitLen() <= 128:
			v = &ipValue{ipNet: ipNet{ip: n, version: 6, prefix: 128}}
		default:
			return nil, false
		}
		v.given, v.isAddress = v.String(), true
		return v, true
	}
	if n, ok := parseIPNet(s); ok {
		return &ipValue{ipNet: n, given: s, isAddress: strings.Count(s, "/") != 1}, true
	}
	addr, pfx, ok := strings.Cut(s, "/")
	a, ok1 := py.ParseInt(addr, 10)
	b, ok2 := py.ParseInt(pfx, 10)
	if !ok || !ok1 || !ok2 || strings.Contains(pfx, "/") {
		return nil, false
	}
	av := big.NewInt(int64(a))
	var v *ipValue
	switch {
	case a >= 0 && av.BitLen() <= 32 && b >= 0 && b <= 32:
		v = &ipValue{ipNet: ipNet{ip: av, version: 4, prefix: b}}
	case a >= 0 && b >= 0 && b <= 128:
		v = &ipValue{ipNet: ipNet{ip: av, version: 6, prefix: b}}
	default:
		return nil, false
	}
	v.given = v.String()
	return v, true
}

// cidrLookup turns a query that names a network into a cidr_lookup of that
// network, as ipaddr does for a query it does not know.
func cidrLookup(query, alias string) (string, *ipNet) {
	_, known := ipQueries[query]
	if query == "" || (known && query != "cidr_lookup") || py.IsDigits(query) {
		return query, nil
	}
	q, ok := parseIPNet(query)
	if !ok {
		return query, nil
	}
	if strings.Contains(query, "/") {
		return "cidr_lookup", &q
	}
	if r, _ := ipaddrQuery(query, "network", 0, alias); value.Truthy(r) {
		return "cidr_lookup", &q
	}
	return query, nil
}

// indexQuery is a numeric query: the address at that index of the network
// (from its end when negative), with the prefix, or False when out of
// range; a single address is itself.
func (v *ipValue) indexQuery(query string) any {
	if v.size.Cmp(bigOne) == 0 {
		if v.isAddress {
			return v.addr
		}
		return v.String()
	}
	idx, ok := py.ParseInt(query, 10)
	if !ok {
		return false
	}
	bi := big.NewInt(int64(idx))
	if idx < 0 {
		bi.Add(bi, v.size)
	}
	if bi.Sign() < 0 || bi.Cmp(v.size) >= 0 {
		return false
	}
	return v.addrStr(new(big.Int).Add(v.network(), bi)) + "/" + strconv.Itoa(v.prefix)
}
