package py

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// yamlEmitter follows PyYAML's (and libyaml's) emitter closely so that
// line folding, quoting and indentation match to_yaml's output.
type yamlEmitter struct {
	b          strings.Builder
	events     []yamlEvent
	pos        int
	indents    []int
	indent     int // -1 is None
	flowLevel  int
	bestIndent int
	bestWidth  int
	column     int
	whitespace bool
	indention  bool

	rootCtx, seqCtx, mapCtx, simpleKeyCtx bool
}

func (e *yamlEmitter) cur() yamlEvent { return e.events[e.pos] }

func (e *yamlEmitter) peek() (yamlEvent, bool) {
	if e.pos+1 < len(e.events) {
		return e.events[e.pos+1], true
	}
	return yamlEvent{}, false
}

func (e *yamlEmitter) write(s string) {
	e.b.WriteString(s)
	e.column += utf8.RuneCountInString(s)
}

func (e *yamlEmitter) increaseIndent(flow, indentless bool) {
	e.indents = append(e.indents, e.indent)
	if e.indent < 0 {
		if flow {
			e.indent = e.bestIndent
		} else {
			e.indent = 0
		}
	} else if !indentless {
		e.indent += e.bestIndent
	}
}

func (e *yamlEmitter) popIndent() {
	e.indent = e.indents[len(e.indents)-1]
	e.indents = e.indents[:len(e.indents)-1]
}

func (e *yamlEmitter) writeIndicator(ind string, needWS, ws, indention bool) {
	if e.whitespace || !needWS {
		e.write(ind)
	} else {
		e.write(" " + ind)
	}
	e.whitespace = ws
	e.indention = e.indention && indention
}

func (e *yamlEmitter) writeIndent() {
	indent := max(e.indent, 0)
	if !e.indention || e.column > indent || (e.column == indent && !e.whitespace) {
		e.writeLineBreak("")
	}
	if e.column < indent {
		e.whitespace = true
		e.b.WriteString(strings.Repeat(" ", indent-e.column))
		e.column = indent
	}
}

func (e *yamlEmitter) writeLineBreak(br string) {
	if br == "" {
		br = "\n"
	}
	e.whitespace = true
	e.indention = true
	e.b.WriteString(br)
	e.column = 0
}

func (e *yamlEmitter) checkEmpty() bool {
	n, ok := e.peek()
	c := e.cur()
	return ok && ((c.kind == '[' && n.kind == ']') || (c.kind == '{' && n.kind == '}'))
}

func (e *yamlEmitter) checkSimpleKey() bool {
	c := e.cur()
	if c.kind == 's' {
		a := analyzeYAMLScalar(c.val)
		return utf8.RuneCountInString(c.val) < 128 && !a.empty && !a.multiline
	}
	return e.checkEmpty()
}

// node emits the node starting at the current event.
func (e *yamlEmitter) node(root, seq, mapping, simpleKey bool) {
	e.rootCtx, e.seqCtx, e.mapCtx, e.simpleKeyCtx = root, seq, mapping, simpleKey
	c := e.cur()
	switch c.kind {
	case 's':
		e.increaseIndent(true, false)
		e.scalar(c)
		e.popIndent()
		e.pos++
	case '[':
		if e.flowLevel > 0 || c.flow || e.checkEmpty() {
			e.flowSequence()
		} else {
			e.blockSequence()
		}
	case '{':
		if e.flowLevel > 0 || c.flow || e.checkEmpty() {
			e.flowMapping()
		} else {
			e.blockMapping()
		}
	}
}

// flowCollection emits a flow sequence or mapping: open, the items that
// item emits until the end event, separated by commas, and close.
func (e *yamlEmitter) flowCollection(open, close string, end byte, item func()) {
	e.writeIndicator(open, true, true, false)
	e.flowLevel++
	e.increaseIndent(true, false)
	e.pos++
	for first := true; e.cur().kind != end; first = false {
		if !first {
			e.writeIndicator(",", false, false, false)
		}
		if e.column > e.bestWidth {
			e.writeIndent()
		}
		item()
	}
	e.popIndent()
	e.flowLevel--
	e.writeIndicator(close, false, false, false)
	e.pos++
}

func (e *yamlEmitter) flowSequence() {
	e.flowCollection("[", "]", ']', func() { e.node(false, true, false, false) })
}

func (e *yamlEmitter) flowMapping() {
	e.flowCollection("{", "}", '}', func() {
		if e.checkSimpleKey() {
			e.node(false, false, true, true)
			e.writeIndicator(":", false, false, false)
		} else {
			e.writeIndicator("?", true, false, false)
			e.node(false, false, true, false)
			if e.column > e.bestWidth {
				e.writeIndent()
			}
			e.writeIndicator(":", true, false, false)
		}
		e.node(false, false, true, false)
	})
}

func (e *yamlEmitter) blockSequence() {
	indentless := e.mapCtx && !e.indention
	e.increaseIndent(false, indentless)
	e.pos++
	for e.cur().kind != ']' {
		e.writeIndent()
		e.writeIndicator("-", true, false, true)
		e.node(false, true, false, false)
	}
	e.popIndent()
	e.pos++
}

func (e *yamlEmitter) blockMapping() {
	e.increaseIndent(false, false)
	e.pos++
	for e.cur().kind != '}' {
		e.writeIndent()
		if e.checkSimpleKey() {
			e.node(false, false, true, true)
			e.writeIndicator(":", false, false, false)
		} else {
			e.writeIndicator("?", true, false, true)
			e.node(false, false, true, false)
			e.writeIndent()
			e.writeIndicator(":", true, false, true)
		}
		e.node(false, false, true, false)
	}
	e.popIndent()
	e.pos++
}

type yamlScalarAnalysis struct {
	empty, multiline                                                      bool
	allowFlowPlain, allowBlockPlain, allowSingle, allowDouble, allowBlock bool
}

func yamlIsBreak(r rune) bool { return r == '\n' || r == 0x85 || r == 0x2028 || r == 0x2029 }

func yamlIsWS(r rune) bool { return r == 0 || r == ' ' || r == '\t' || r == '\r' || yamlIsBreak(r) }

func analyzeYAMLScalar(s string) yamlScalarAnalysis {
	if s == "" {
		return yamlScalarAnalysis{empty: true, allowBlockPlain: true, allowSingle: true, allowDouble: true}
	}
	rs := []rune(s)
	var blockInd, flowInd, lineBreaks, special bool
	var leadSpace, leadBreak, trailSpace, trailBreak, breakSpace, spaceBreak bool
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		blockInd, flowInd = true, true
	}
	preceded := true
	followed := len(rs) == 1 || yamlIsWS(rs[1])
	prevSpace, prevBreak := false, false
	for i, ch := range rs {
		if i == 0 {
			if strings.ContainsRune("#,[]{}&*!|>'\"%@`", ch) {
				flowInd, blockInd = true, true
			}
			if ch == '?' || ch == ':' {
				flowInd = true
				if followed {
					blockInd = true
				}
			}
			if ch == '-' && followed {
				flowInd, blockInd = true, true
			}
		} else {
			if strings.ContainsRune(",?[]{}", ch) {
				flowInd = true
			}
			if ch == ':' {
				flowInd = true
				if followed {
					blockInd = true
				}
			}
			if ch == '#' && preceded {
				flowInd, blockInd = true, true
			}
		}
		if yamlIsBreak(ch) {
			lineBreaks = true
		}
		if !(ch == '\n' || (ch >= 0x20 && ch <= 0x7e)) {
			if !((ch == 0x85 || (ch >= 0xa0 && ch <= 0xd7ff) || (ch >= 0xe000 && ch <= 0xfffd) || (ch >= 0x10000 && ch < 0x10ffff)) && ch != 0xfeff) {
				special = true
			}
		}
		switch {
		case ch == ' ':
			if i == 0 {
				leadSpace = true
			}
			if i == len(rs)-1 {
				trailSpace = true
			}
			if prevBreak {
				breakSpace = true
			}
			prevSpace, prevBreak = true, false
		case yamlIsBreak(ch):
			if i == 0 {
				leadBreak = true
			}
			if i == len(rs)-1 {
				trailBreak = true
			}
			if prevSpace {
				spaceBreak = true
			}
			prevSpace, prevBreak = false, true
		default:
			prevSpace, prevBreak = false, false
		}
		preceded = yamlIsWS(ch)
		followed = i+2 >= len(rs) || yamlIsWS(rs[i+2])
	}
	a := yamlScalarAnalysis{multiline: lineBreaks, allowFlowPlain: true, allowBlockPlain: true, allowSingle: true, allowDouble: true, allowBlock: true}
	if leadSpace || leadBreak || trailSpace || trailBreak {
		a.allowFlowPlain, a.allowBlockPlain = false, false
	}
	if trailSpace {
		a.allowBlock = false
	}
	if breakSpace {
		a.allowFlowPlain, a.allowBlockPlain, a.allowSingle = false, false, false
	}
	if spaceBreak || special {
		a.allowFlowPlain, a.allowBlockPlain, a.allowSingle, a.allowBlock = false, false, false, false
	}
	if lineBreaks {
		a.allowFlowPlain, a.allowBlockPlain = false, false
	}
	if flowInd {
		a.allowFlowPlain = false
	}
	if blockInd {
		a.allowBlockPlain = false
	}
	return a
}

func (e *yamlEmitter) scalar(ev yamlEvent) {
	a := analyzeYAMLScalar(ev.val)
	style := byte('"')
	switch {
	case ev.implicit && !(e.simpleKeyCtx && (a.empty || a.multiline)) &&
		((e.flowLevel > 0 && a.allowFlowPlain) || (e.flowLevel == 0 && a.allowBlockPlain)):
		style = 0
	case a.allowSingle && !(e.simpleKeyCtx && a.multiline):
		style = '\''
	}
	if ev.literal && e.flowLevel == 0 && !e.simpleKeyCtx && a.allowBlock {
		e.writeLiteral(ev.val)
		return
	}
	split := !e.simpleKeyCtx
	switch style {
	case 0:
		e.writePlain(ev.val, split)
	case '\'':
		e.writeSingleQuoted(ev.val, split)
	default:
		e.writeDoubleQuoted(ev.val, split)
	}
}

func (e *yamlEmitter) writePlain(text string, split bool) {
	if text == "" {
		return
	}
	if !e.whitespace {
		e.write(" ")
	}
	e.whitespace, e.indention = false, false
	rs := []rune(text)
	spaces, breaks := false, false
	start := 0
	for end := 0; end <= len(rs); end++ {
		var ch rune = -1
		if end < len(rs) {
			ch = rs[end]
		}
		switch {
		case spaces:
			if ch != ' ' {
				if start+1 == end && e.column > e.bestWidth && split {
					e.writeIndent()
					e.whitespace, e.indention = false, false
				} else {
					e.write(string(rs[start:end]))
				}
				start = end
			}
		case breaks:
			if !yamlIsBreak(ch) {
				if rs[start] == '\n' {
					e.writeLineBreak("")
				}
				for _, br := range rs[start:end] {
					e.writeLineBreak(string(br))
				}
				e.writeIndent()
				e.whitespace, e.indention = false, false
				start = end
			}
		default:
			if ch == -1 || ch == ' ' || yamlIsBreak(ch) {
				e.write(string(rs[start:end]))
				start = end
			}
		}
		if ch != -1 {
			spaces = ch == ' '
			breaks = yamlIsBreak(ch)
		}
	}
}

func (e *yamlEmitter) writeSingleQuoted(text string, split bool) {
	e.writeIndicator("'", true, false, false)
	rs := []rune(text)
	spaces, breaks := false, false
	start := 0
	for end := 0; end <= len(rs); end++ {
		var ch rune = -1
		if end < len(rs) {
			ch = rs[end]
		}
		switch {
		case spaces:
			if ch != ' ' {
				if start+1 == end && e.column > e.bestWidth && split && start != 0 && end != len(rs) {
					e.writeIndent()
				} else {
					e.write(string(rs[start:end]))
				}
				start = end
			}
		case breaks:
			if ch == -1 || !yamlIsBreak(ch) {
				if rs[start] == '\n' {
					e.writeLineBreak("")
				}
				for _, br := range rs[start:end] {
					e.writeLineBreak(string(br))
				}
				e.writeIndent()
				start = end
			}
		default:
			if ch == -1 || ch == ' ' || yamlIsBreak(ch) || ch == '\'' {
				if start < end {
					e.write(string(rs[start:end]))
					start = end
				}
			}
		}
		if ch == '\'' {
			e.write("''")
			start = end + 1
		}
		if ch != -1 {
			spaces = ch == ' '
			breaks = yamlIsBreak(ch)
		}
	}
	e.writeIndicator("'", false, false, false)
}

var yamlEscapes = map[rune]string{
	0: "0", 0x07: "a", 0x08: "b", 0x09: "t", 0x0a: "n", 0x0b: "v", 0x0c: "f", 0x0d: "r", 0x1b: "e",
	'"': "\"", '\\': "\\", 0x85: "N", 0xa0: "_", 0x2028: "L", 0x2029: "P",
}

func (e *yamlEmitter) writeDoubleQuoted(text string, split bool) {
	e.writeIndicator("\"", true, false, false)
	rs := []rune(text)
	start := 0
	for end := 0; end <= len(rs); end++ {
		var ch rune = -1
		if end < len(rs) {
			ch = rs[end]
		}
		if ch == -1 || strings.ContainsRune("\"\\\u0085\u2028\u2029\ufeff", ch) ||
			!((ch >= 0x20 && ch <= 0x7e) || (ch >= 0xa0 && ch <= 0xd7ff) || (ch >= 0xe000 && ch <= 0xfffd) || ch >= 0x10000) {
			if start < end {
				e.write(string(rs[start:end]))
				start = end
			}
			if ch != -1 {
				var data string
				if esc, ok := yamlEscapes[ch]; ok {
					data = "\\" + esc
				} else if ch <= 0xff {
					data = fmt.Sprintf("\\x%02X", ch)
				} else if ch <= 0xffff {
					data = fmt.Sprintf("\\u%04X", ch)
				} else {
					data = fmt.Sprintf("\\U%08X", ch)
				}
				e.write(data)
				start = end + 1
			}
		}
		if end > 0 && end < len(rs)-1 && (ch == ' ' || start >= end) && e.column+(end-start) > e.bestWidth && split {
			data := string(rs[start:end]) + "\\"
			if start < end {
				start = end
			}
			e.write(data)
			e.writeIndent()
			e.whitespace, e.indention = false, false
			if rs[start] == ' ' {
				e.write("\\")
			}
		}
	}
	e.writeIndicator("\"", false, false, false)
}
