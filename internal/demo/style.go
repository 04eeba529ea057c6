package demo

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// ANSI SGR codes used by the demo's own output. The operator's log keeps
// the colours cfzt-runner gives it.
const (
	sgrReset   = "\x1b[0m"
	sgrBold    = "\x1b[1m"
	sgrDim     = "\x1b[2m"
	sgrRed     = "\x1b[31m"
	sgrGreen   = "\x1b[32m"
	sgrYellow  = "\x1b[33m"
	sgrBlue    = "\x1b[34m"
	sgrMagenta = "\x1b[35m"
	sgrCyan    = "\x1b[36m"
)

// style paints text when colour is on.
type style struct{ color bool }

func (s style) paint(code, text string) string {
	if !s.color || text == "" {
		return text
	}
	return code + text + sgrReset
}

func (s style) bold(t string) string  { return s.paint(sgrBold, t) }
func (s style) dim(t string) string   { return s.paint(sgrDim, t) }
func (s style) green(t string) string { return s.paint(sgrGreen, t) }
func (s style) red(t string) string   { return s.paint(sgrRed, t) }
func (s style) cyan(t string) string  { return s.paint(sgrCyan, t) }

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// stripANSI removes colour codes, e.g. from the operator's log.
func stripANSI(s string) string { return ansi.ReplaceAllString(s, "") }

// width is the number of terminal cells of s, ignoring colour codes.
func width(s string) int { return utf8.RuneCountInString(stripANSI(s)) }

// table is a titled grid of cells, printed with aligned columns.
type table struct {
	title  string
	header []string
	rows   [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write prints the table; an empty table prints "(none)".
func (t *table) write(w io.Writer, st style) {
	fmt.Fprintln(w, st.bold(t.title))
	if len(t.rows) == 0 {
		fmt.Fprintln(w, "  "+st.dim("(none)"))
		return
	}
	widths := make([]int, len(t.header))
	for i, h := range t.header {
		widths[i] = width(h)
	}
	for _, r := range t.rows {
		for i := range widths {
			if i < len(r) && width(r[i]) > widths[i] {
				widths[i] = width(r[i])
			}
		}
	}
	line := func(cells []string, paint func(string) string) {
		var b strings.Builder
		b.WriteString("  ")
		for i := range widths {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			b.WriteString(paint(c))
			if i < len(widths)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-width(c)+2))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(t.header, st.dim)
	for _, r := range t.rows {
		line(r, func(s string) string { return s })
	}
}
