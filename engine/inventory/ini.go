package inventory

import (
	"bufio"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

var hostRange = regexp.MustCompile(`^(.*)\[([0-9a-zA-Z]+):([0-9a-zA-Z]+)(?::([0-9]+))?\](.*)$`)

// expandHost expands one host range such as web[01:03].
func expandHost(name string) []string {
	m := hostRange.FindStringSubmatch(name)
	if m == nil {
		return []string{name}
	}
	step := 1
	if m[4] != "" {
		step, _ = strconv.Atoi(m[4])
		if step < 1 {
			step = 1
		}
	}
	var out []string
	if a, err := strconv.Atoi(m[2]); err == nil {
		b, err := strconv.Atoi(m[3])
		if err != nil {
			return []string{name}
		}
		width := 0
		if strings.HasPrefix(m[2], "0") && len(m[2]) > 1 {
			width = len(m[2])
		}
		for i := a; i <= b; i += step {
			for _, rest := range expandHost(m[5]) {
				out = append(out, fmt.Sprintf("%s%0*d%s", m[1], width, i, rest))
			}
		}
		return out
	}
	if len(m[2]) == 1 && len(m[3]) == 1 {
		for c := m[2][0]; c <= m[3][0]; c += byte(step) {
			for _, rest := range expandHost(m[5]) {
				out = append(out, m[1]+string(c)+rest)
			}
		}
		return out
	}
	return []string{name}
}

func (inv *Inventory) parseINI(file, data string) error {
	section, kind := "ungrouped", "hosts"
	sc := bufio.NewScanner(strings.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			name := line[1 : len(line)-1]
			section, kind = name, "hosts"
			if g, k, ok := strings.Cut(name, ":"); ok {
				section, kind = g, k
			}
			inv.group(section)
			continue
		}
		switch kind {
		case "vars":
			k, v, _ := strings.Cut(line, "=")
			inv.setGroupVar(inv.group(section), strings.TrimSpace(k), py.LiteralEval(strings.TrimSpace(v)))
		case "children":
			inv.link(section, strings.Fields(line)[0])
		default:
			fields := playbook.ParseKV(line)
			name, _ := fields.Get("_raw_params")
			for _, host := range expandHost(strings.Fields(value.Str(name))[0]) {
				inv.addHost(host, section, file)
				fields.Each(func(k string, v any) bool {
					if k != "_raw_params" {
						inv.setVar(inv.hostVars[host], k, py.LiteralEval(value.Str(v)))
					}
					return true
				})
			}
		}
	}
	return sc.Err()
}

// setVar sets an inventory variable of a host or group as Host and
// Group.set_variable do: under hash_behaviour=merge a dict merges into
// the dict an earlier source gave the same name.
func (inv *Inventory) setVar(vars *value.Dict, k string, v any) {
	if old, ok := vars.Get(k); ok && inv.MergeHashes {
		od, oldIsDict := old.(*value.Dict)
		nd, newIsDict := v.(*value.Dict)
		if oldIsDict && newIsDict {
			v = value.MergeHash(od, nd, true, "replace")
		}
	}
	vars.Set(k, v)
}

func (inv *Inventory) setGroupVar(g *group, k string, v any) {
	inv.setVar(g.vars, k, v)
	if k == "ansible_group_priority" {
		if n, ok := value.AsInt(v); ok {
			g.priority = n
		}
	}
}
