package run

import (
	"fmt"
	"regexp"
	"strconv"
)

// subscriptRe is a host pattern ending in a subscript: [i], [i:j] or
// [i:] (and the removed [i-j] form).
var subscriptRe = regexp.MustCompile(`^(.+)\[(?:(-?[0-9]+)|([0-9]+)([:-])([0-9]*))\]$`)

// subscript selects hosts by position from what a pattern matches: one
// index (negative ones count from the end), or an inclusive range whose
// open end is the last host.
type subscript struct {
	start int
	end   int
	// single is an [i] subscript.
	single bool
}

// splitSubscript is _split_subscript: the pattern without its subscript,
// and the subscript (nil without one). A regex pattern (~...) has none;
// dashed reports the removed [x-y] form, which ansible-core warns about.
func splitSubscript(p string) (expr string, sub *subscript, dashed bool) {
	if p == "" || p[0] == '~' {
		return p, nil, false
	}
	m := subscriptRe.FindStringSubmatch(p)
	if m == nil {
		return p, nil, false
	}
	if m[2] != "" {
		i, _ := strconv.Atoi(m[2])
		return m[1], &subscript{start: i, single: true}, false
	}
	start, _ := strconv.Atoi(m[3])
	end := -1
	if m[5] != "" {
		end, _ = strconv.Atoi(m[5])
	}
	return m[1], &subscript{start: start, end: end}, m[4] == "-"
}

// apply is _apply_subscript with Python's indexing: an index out of range
// is an error, a slice out of range is cut short.
func (s *subscript) apply(hosts []string, pattern string) ([]string, error) {
	if s == nil || len(hosts) == 0 {
		return hosts, nil
	}
	n := len(hosts)
	if s.single || s.end == 0 {
		i := s.start
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return nil, fmt.Errorf("No hosts matched the subscripted pattern '%s'", pattern)
		}
		return []string{hosts[i]}, nil
	}
	end := s.end
	if end == -1 {
		end = n - 1
	}
	lo, hi := min(s.start, n), min(end+1, n)
	if lo >= hi {
		return []string{}, nil
	}
	return hosts[lo:hi], nil
}
