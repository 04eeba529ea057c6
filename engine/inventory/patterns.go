package inventory

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// groupHosts lists a group's hosts: its own and its descendants', in
// ansible-core's order (the group, its children, then deeper levels).
func (inv *Inventory) groupHosts(g *group) []string {
	ordered := []*group{g}
	ordered = append(ordered, g.children...)
	seen := map[*group]bool{g: true}
	level := append([]*group{}, g.children...)
	for _, c := range level {
		seen[c] = true
	}
	for len(level) > 0 {
		var next []*group
		for _, x := range level {
			for _, c := range x.children {
				ordered = append(ordered, c)
				if !seen[c] {
					seen[c] = true
					next = append(next, c)
				}
			}
		}
		level = next
	}
	var out []string
	have := map[string]bool{}
	for _, x := range ordered {
		for _, h := range x.hosts {
			if !have[h] {
				have[h] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// splitPattern splits a host pattern on commas and colons (not inside
// ranges or IPv6 addresses).
func splitPattern(p string) []string {
	var out []string
	depth := 0
	cur := strings.Builder{}
	for _, r := range p {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		}
		if (r == ',' || r == ':') && depth == 0 {
			if s := strings.TrimSpace(cur.String()); s != "" {
				out = append(out, s)
			}
			cur.Reset()
			continue
		}
		cur.WriteRune(r)
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}

// matchOne returns the hosts one pattern (without its ! or & prefix)
// selects.
func (inv *Inventory) matchOne(p string) []string {
	if p == "all" || p == "*" {
		return inv.groupHosts(inv.groups["all"])
	}
	if g, ok := inv.groups[p]; ok {
		return inv.groupHosts(g)
	}
	if _, ok := inv.hostVars[p]; ok {
		return []string{p}
	}
	var out []string
	if strings.HasPrefix(p, "~") {
		// A Python regex, applied with re.match: anchored at the start
		// of the name.
		re, err := py.CompilePattern(p[1:], py.RegexText)
		if err != nil {
			return nil
		}
		matches := func(name string) bool {
			loc, err := re.FindStringIndex(name)
			return err == nil && loc != nil && loc[0] == 0
		}
		for _, g := range inv.order {
			if matches(g.name) {
				out = append(out, inv.groupHosts(g)...)
			}
		}
		for _, h := range inv.hosts {
			if matches(h) {
				out = append(out, h)
			}
		}
		return out
	}
	if strings.ContainsAny(p, "*?[") {
		for _, g := range inv.order {
			if ok, _ := filepath.Match(p, g.name); ok {
				out = append(out, inv.groupHosts(g)...)
			}
		}
		for _, h := range inv.hosts {
			if ok, _ := filepath.Match(p, h); ok {
				out = append(out, h)
			}
		}
		return out
	}
	if IsLocalhost(p) {
		inv.implicit = true
		if _, ok := inv.hostVars[p]; !ok {
			inv.hosts = append(inv.hosts, p)
			inv.hostVars[p] = value.DictOf("ansible_connection", "local", "ansible_python_interpreter", LocalPython())
		}
		return []string{p}
	}
	return nil
}

// matchChecked matches one pattern, warning about (or, as configured,
// failing on or ignoring) a pattern that matches nothing.
func (inv *Inventory) matchChecked(pattern string) ([]string, error) {
	p, sub, dashed := splitSubscript(pattern)
	if dashed {
		inv.warning("Use [x:y] inclusive subscripts instead of [x-y] which has been removed")
	}
	hosts := inv.matchOne(p)
	if _, isGroup := inv.groups[p]; len(hosts) > 0 || isGroup || p == "all" || p == "*" {
		return sub.apply(hosts, pattern)
	}
	msg := "Could not match supplied host pattern, ignoring: " + p
	switch inv.PatternMismatch {
	case "error":
		return nil, errors.New(msg)
	case "ignore":
	default:
		inv.warning(msg)
	}
	return hosts, nil
}

// Match returns the hosts a play's `hosts:` pattern selects, warning
// about patterns that match nothing.
func (inv *Inventory) Match(pattern any) ([]string, error) {
	var pats []string
	switch p := pattern.(type) {
	case []any:
		for _, e := range p {
			pats = append(pats, splitPattern(value.Str(e))...)
		}
	default:
		pats = splitPattern(value.Str(p))
	}
	// Plain patterns first, then intersections, then exclusions.
	var out []string
	seen := map[string]bool{}
	for _, p := range pats {
		if strings.HasPrefix(p, "!") || strings.HasPrefix(p, "&") {
			continue
		}
		hosts, err := inv.matchChecked(p)
		if err != nil {
			return nil, err
		}
		for _, h := range hosts {
			if !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	for _, p := range pats {
		if !strings.HasPrefix(p, "&") {
			continue
		}
		keep := map[string]bool{}
		hosts, err := inv.matchChecked(p[1:])
		if err != nil {
			return nil, err
		}
		for _, h := range hosts {
			keep[h] = true
		}
		var next []string
		for _, h := range out {
			if keep[h] {
				next = append(next, h)
			}
		}
		out = next
	}
	for _, p := range pats {
		if !strings.HasPrefix(p, "!") {
			continue
		}
		drop := map[string]bool{}
		hosts, err := inv.matchChecked(p[1:])
		if err != nil {
			return nil, err
		}
		for _, h := range hosts {
			drop[h] = true
		}
		var next []string
		for _, h := range out {
			if !drop[h] {
				next = append(next, h)
			}
		}
		out = next
	}
	return out, nil
}

// LocalPython is the ansible_python_interpreter of the implicit localhost.
// ansible-core gives it the Python running ansible-playbook
// (sys.executable), so that its modules never go through interpreter
// discovery; cfzt-runner has no Python of its own and gives it the
// python3 on its PATH when it starts, else /usr/bin/python3, the same
// interpreter its discovery would choose.
func LocalPython() string {
	if p, err := exec.LookPath("python3"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return "/usr/bin/python3"
}
