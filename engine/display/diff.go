package display

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// formatDiff renders a result's diff as ansible-core's CallbackBase._get_diff.
func formatDiff(v any) string {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	var b strings.Builder
	for _, e := range list {
		d, ok := e.(*value.Dict)
		if !ok {
			continue
		}
		if d.Has("dst_binary") {
			b.WriteString("diff skipped: destination file appears to be binary\n")
		}
		if d.Has("src_binary") {
			b.WriteString("diff skipped: source file appears to be binary\n")
		}
		if n, ok := d.Get("dst_larger"); ok {
			b.WriteString("diff skipped: destination file size is greater than " + value.Str(n) + "\n")
		}
		if n, ok := d.Get("src_larger"); ok {
			b.WriteString("diff skipped: source file size is greater than " + value.Str(n) + "\n")
		}
		before, hb := d.Get("before")
		after, ha := d.Get("after")
		if hb && ha {
			bh, ah := "before", "after"
			if h, ok := d.Get("before_header"); ok {
				bh = "before: " + value.Str(h)
			}
			if h, ok := d.Get("after_header"); ok {
				ah = "after: " + value.Str(h)
			}
			text := unifiedDiff(splitKeepEnds(diffText(before)), splitKeepEnds(diffText(after)), bh, ah, 3)
			if text != "" {
				b.WriteString(text)
				b.WriteString("\n")
			}
		}
		if p, ok := d.Get("prepared"); ok {
			b.WriteString(value.Str(p))
		}
	}
	return b.String()
}

// diffText is one side of a diff: mappings as sorted, indented JSON.
func diffText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case *value.Dict:
		return value.JSON(x, value.JSONOptions{Indent: 4, SortKeys: true}) + "\n"
	}
	return value.Str(v)
}

func splitKeepEnds(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	if n := len(out); n > 0 && !strings.HasSuffix(out[n-1], "\n") {
		out[n-1] += "\n\\ No newline at end of file\n"
	}
	return out
}

// opcode is one difflib opcode: tag and the a[i1:i2], b[j1:j2] ranges.
type opcode struct {
	tag            byte // 'e'qual, 'r'eplace, 'd'elete, 'i'nsert
	i1, i2, j1, j2 int
}

// matcher reimplements Python difflib.SequenceMatcher over lines (no junk
// function, autojunk on), so that diffs read exactly as Ansible's.
type matcher struct {
	a, b []string
	b2j  map[string][]int
}

func newMatcher(a, b []string) *matcher {
	m := &matcher{a: a, b: b, b2j: map[string][]int{}}
	for j, line := range b {
		m.b2j[line] = append(m.b2j[line], j)
	}
	if n := len(b); n >= 200 {
		limit := n/100 + 1
		for line, idx := range m.b2j {
			if len(idx) > limit {
				delete(m.b2j, line)
			}
		}
	}
	return m
}

func (m *matcher) longestMatch(alo, ahi, blo, bhi int) (int, int, int) {
	besti, bestj, best := alo, blo, 0
	j2len := map[int]int{}
	for i := alo; i < ahi; i++ {
		next := map[int]int{}
		for _, j := range m.b2j[m.a[i]] {
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := j2len[j-1] + 1
			next[j] = k
			if k > best {
				besti, bestj, best = i-k+1, j-k+1, k
			}
		}
		j2len = next
	}
	for besti > alo && bestj > blo && m.a[besti-1] == m.b[bestj-1] {
		besti, bestj, best = besti-1, bestj-1, best+1
	}
	for besti+best < ahi && bestj+best < bhi && m.a[besti+best] == m.b[bestj+best] {
		best++
	}
	return besti, bestj, best
}

func (m *matcher) matchingBlocks() [][3]int {
	type span struct{ alo, ahi, blo, bhi int }
	queue := []span{{0, len(m.a), 0, len(m.b)}}
	var blocks [][3]int
	for len(queue) > 0 {
		s := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		i, j, k := m.longestMatch(s.alo, s.ahi, s.blo, s.bhi)
		if k == 0 {
			continue
		}
		blocks = append(blocks, [3]int{i, j, k})
		if s.alo < i && s.blo < j {
			queue = append(queue, span{s.alo, i, s.blo, j})
		}
		if i+k < s.ahi && j+k < s.bhi {
			queue = append(queue, span{i + k, s.ahi, j + k, s.bhi})
		}
	}
	sortBlocks(blocks)
	var out [][3]int
	i1, j1, k1 := 0, 0, 0
	for _, b := range blocks {
		if i1+k1 == b[0] && j1+k1 == b[1] {
			k1 += b[2]
			continue
		}
		if k1 > 0 {
			out = append(out, [3]int{i1, j1, k1})
		}
		i1, j1, k1 = b[0], b[1], b[2]
	}
	if k1 > 0 {
		out = append(out, [3]int{i1, j1, k1})
	}
	return append(out, [3]int{len(m.a), len(m.b), 0})
}

func sortBlocks(b [][3]int) {
	for i := 1; i < len(b); i++ {
		for j := i; j > 0 && (b[j][0] < b[j-1][0] || b[j][0] == b[j-1][0] && b[j][1] < b[j-1][1]); j-- {
			b[j], b[j-1] = b[j-1], b[j]
		}
	}
}

func (m *matcher) opcodes() []opcode {
	var out []opcode
	i, j := 0, 0
	for _, blk := range m.matchingBlocks() {
		ai, bj, size := blk[0], blk[1], blk[2]
		var tag byte
		switch {
		case i < ai && j < bj:
			tag = 'r'
		case i < ai:
			tag = 'd'
		case j < bj:
			tag = 'i'
		}
		if tag != 0 {
			out = append(out, opcode{tag, i, ai, j, bj})
		}
		i, j = ai+size, bj+size
		if size > 0 {
			out = append(out, opcode{'e', ai, i, bj, j})
		}
	}
	return out
}

func (m *matcher) groupedOpcodes(n int) [][]opcode {
	codes := m.opcodes()
	if len(codes) == 0 {
		codes = []opcode{{'e', 0, 1, 0, 1}}
	}
	if c := &codes[0]; c.tag == 'e' {
		c.i1, c.j1 = max(c.i1, c.i2-n), max(c.j1, c.j2-n)
	}
	if c := &codes[len(codes)-1]; c.tag == 'e' {
		c.i2, c.j2 = min(c.i2, c.i1+n), min(c.j2, c.j1+n)
	}
	var groups [][]opcode
	var group []opcode
	for _, c := range codes {
		if c.tag == 'e' && c.i2-c.i1 > 2*n {
			group = append(group, opcode{'e', c.i1, min(c.i2, c.i1+n), c.j1, min(c.j2, c.j1+n)})
			groups = append(groups, group)
			group = nil
			c.i1, c.j1 = max(c.i1, c.i2-n), max(c.j1, c.j2-n)
		}
		group = append(group, c)
	}
	if len(group) > 0 && !(len(group) == 1 && group[0].tag == 'e') {
		groups = append(groups, group)
	}
	return groups
}

func unifiedRange(start, stop int) string {
	begin, length := start+1, stop-start
	if length == 1 {
		return value.Str(begin)
	}
	if length == 0 {
		begin--
	}
	return value.Str(begin) + "," + value.Str(length)
}

// unifiedDiff is difflib.unified_diff(a, b, from, to, n=n) joined.
func unifiedDiff(a, b []string, from, to string, n int) string {
	var out strings.Builder
	for gi, g := range newMatcher(a, b).groupedOpcodes(n) {
		if gi == 0 {
			out.WriteString("--- " + from + "\n+++ " + to + "\n")
		}
		first, last := g[0], g[len(g)-1]
		out.WriteString("@@ -" + unifiedRange(first.i1, last.i2) + " +" + unifiedRange(first.j1, last.j2) + " @@\n")
		for _, c := range g {
			if c.tag == 'e' {
				for _, l := range a[c.i1:c.i2] {
					out.WriteString(" " + l)
				}
				continue
			}
			if c.tag == 'r' || c.tag == 'd' {
				for _, l := range a[c.i1:c.i2] {
					out.WriteString("-" + l)
				}
			}
			if c.tag == 'r' || c.tag == 'i' {
				for _, l := range b[c.j1:c.j2] {
					out.WriteString("+" + l)
				}
			}
		}
	}
	return out.String()
}
