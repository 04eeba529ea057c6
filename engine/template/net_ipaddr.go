package template

import (
	"fmt"
	"strconv"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ipaddrPlugins returns ansible.utils' ipaddr filters and tests.
func ipaddrPlugins() Library {
	return Library{
		Collection: "ansible.utils",
		Filters: map[string]FilterFunc{
			"ipaddr": filterIPAddr("ipaddr", 0),
			"ipv4":   filterIPAddr("ipv4", 4),
			"ipv6":   filterIPAddr("ipv6", 6),
			"ipwrap": filterIPWrap,
		},
		Tests: map[string]TestFunc{
			"ip":         testIPAddr,
			"ip_address": testIPAddress,
			"ipaddr":     testIPAddr,
			"ipv4":       testIPVersion(4),
			"ipv6":       testIPVersion(6),
		},
	}
}

func filterIPAddr(alias string, version int) FilterFunc {
	return func(c *Ctx, in any, a *Args) (any, error) {
		var params []py.Param
		if alias == "ipaddr" {
			params = []py.Param{py.Opt("query", ""), py.Opt("version", false), py.Opt("alias", "ipaddr")}
		} else {
			params = []py.Param{py.Opt("query", "")}
		}
		v, err := py.Sig(alias, params...).Bind(a)
		if err != nil {
			if a.Kw != nil {
				for _, k := range a.Kw.Keys() {
					found := false
					for _, p := range params {
						found = found || p.Name == k
					}
					if !found {
						names := "query, value"
						if alias == "ipaddr" {
							names = "alias, query, value, version"
						}
						return nil, Errorf("['%s. Supported parameters include: %s.']", k, names)
					}
				}
			}
			return nil, err
		}
		switch in.(type) {
		case string, []any, int, bool:
		default:
			if alias != "ipaddr" {
				return nil, Errorf("Unrecognized type <%s> for %s filter <value>", argClassRepr(in), alias)
			}
		}
		ver := version
		if alias == "ipaddr" {
			if n, ok := value.AsInt(v[1]); ok && n != 0 {
				if _, isB := v[1].(bool); !isB {
					ver = n
				}
			}
		}
		name := alias
		if alias == "ipaddr" {
			// ansible.utils' ipaddr filter passes alias=None unless given.
			name = ""
			if x, ok := a.Get(2, "alias"); ok {
				name = value.Str(x)
			}
		}
		warnInvalidIPs(c, in)
		return ipaddrQuery(in, value.Str(v[0]), ver, name)
	}
}

// warnInvalidIPs gives ansible.utils' warning for each empty (or True)
// value passed to an ipaddr filter.
func warnInvalidIPs(c *Ctx, in any) {
	items := []any{in}
	if l, ok := in.([]any); ok {
		items = l
	}
	for _, it := range items {
		if !value.Truthy(it) || it == true {
			c.warn(diag.Warn(fmt.Sprintf("The value '%s' is not a valid IP address or network, passing this value to ipaddr filter might result in breaking change in future.", value.Str(it)), nil))
		}
	}
}

func filterIPWrap(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := py.Sig("ipwrap", py.Opt("query", "")).Bind(a); err != nil {
		return nil, err
	}
	wrap := func(x any) any {
		r, err := ipaddrQuery(x, "", 0, "ipwrap")
		if err != nil || r == false || r == nil {
			return x
		}
		w, _ := ipaddrQuery(x, "wrap", 0, "ipwrap")
		return w
	}
	if l, ok := in.([]any); ok {
		out := []any{}
		for _, x := range l {
			if r := wrap(x); value.Truthy(r) {
				out = append(out, r)
			}
		}
		return out, nil
	}
	return wrap(in), nil
}

func testIPAddr(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("_ipaddr").Bind(a); err != nil {
		return false, err
	}
	_, ok := parseIPNet(value.Str(in))
	return ok, nil
}

func testIPAddress(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := py.Sig("_ip_address").Bind(a); err != nil {
		return false, err
	}
	n, ok := parseIPNet(value.Str(in))
	return ok && !n.hasPrefix, nil
}

func testIPVersion(ver int) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		if _, err := py.Sig("_ipv" + strconv.Itoa(ver)).Bind(a); err != nil {
			return false, err
		}
		n, ok := parseIPNet(value.Str(in))
		return ok && n.version == ver, nil
	}
}
