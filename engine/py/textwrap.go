package py

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Wrap is Python's textwrap.wrap with expand_tabs and
// replace_whitespace off, as Jinja2's wordwrap calls it.
func Wrap(text string, width int, breakLong, breakHyphens bool) []string {
	chunks := wrapChunks(text, breakHyphens)
	// chunks are consumed from the front.
	var lines []string
	rlen := func(s string) int { return utf8.RuneCountInString(s) }
	isWS := func(s string) bool { return strings.TrimFunc(s, IsSpace) == "" }
	for len(chunks) > 0 {
		var cur []string
		curLen := 0
		if isWS(chunks[0]) && len(lines) > 0 {
			chunks = chunks[1:]
		}
		for len(chunks) > 0 {
			l := rlen(chunks[0])
			if curLen+l > width {
				break
			}
			cur = append(cur, chunks[0])
			curLen += l
			chunks = chunks[1:]
		}
		if len(chunks) > 0 && rlen(chunks[0]) > width {
			spaceLeft := width - curLen
			if width < 1 {
				spaceLeft = 1
			}
			if breakLong {
				chunk := []rune(chunks[0])
				end := spaceLeft
				if breakHyphens && len(chunk) > spaceLeft {
					hy := -1
					for i := min(spaceLeft, len(chunk)) - 1; i >= 0; i-- {
						if chunk[i] == '-' {
							hy = i
							break
						}
					}
					if hy > 0 && strings.Trim(string(chunk[:hy]), "-") != "" {
						end = hy + 1
					}
				}
				cur = append(cur, string(chunk[:end]))
				chunks[0] = string(chunk[end:])
			} else if len(cur) == 0 {
				cur = append(cur, chunks[0])
				chunks = chunks[1:]
			}
		}
		if len(cur) > 0 && isWS(cur[len(cur)-1]) {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			lines = append(lines, strings.Join(cur, ""))
		}
	}
	return lines
}

func wrapIsWS(r rune) bool { return strings.ContainsRune("\t\n\v\f\r ", r) }

func wrapIsWordChar(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func wrapIsLetter(r rune) bool { return wrapIsWordChar(r) && !unicode.IsDigit(r) }

func wrapIsPunct(r rune) bool { return wrapIsWordChar(r) || strings.ContainsRune("!\"'&.,?", r) }

// wrapChunks splits text the way textwrap's wordsep_re does.
func wrapChunks(text string, hyphens bool) []string {
	rs := []rune(text)
	n := len(rs)
	var out []string
	at := func(i int) rune {
		if i < 0 || i >= n {
			return -1
		}
		return rs[i]
	}
	i := 0
	for i < n {
		if wrapIsWS(rs[i]) {
			j := i
			for j < n && wrapIsWS(rs[j]) {
				j++
			}
			out = append(out, string(rs[i:j]))
			i = j
			continue
		}
		if !hyphens {
			j := i
			for j < n && !wrapIsWS(rs[j]) {
				j++
			}
			out = append(out, string(rs[i:j]))
			i = j
			continue
		}
		// em-dash between words
		if rs[i] == '-' && i > 0 && wrapIsPunct(rs[i-1]) {
			j := i
			for j < n && rs[j] == '-' {
				j++
			}
			if j-i >= 2 && j < n && wrapIsWordChar(rs[j]) {
				out = append(out, string(rs[i:j]))
				i = j
				continue
			}
		}
		j := i + 1
		for {
			// hyphenated word: text[i:j] followed by '-'
			if at(j) == '-' && j+1 <= n {
				k := j + 1 // position after the hyphen
				behind := (wrapIsLetter(at(k-3)) && wrapIsLetter(at(k-2))) ||
					(wrapIsLetter(at(k-4)) && at(k-3) == '-' && wrapIsLetter(at(k-2)))
				ahead := wrapIsLetter(at(k)) && (wrapIsLetter(at(k+1)) || (at(k+1) == '-' && wrapIsLetter(at(k+2))))
				if behind && ahead && (j-i) >= 1 {
					j = k
					break
				}
			}
			if j >= n || wrapIsWS(rs[j]) {
				break
			}
			if wrapIsPunct(at(j-1)) && at(j) == '-' && at(j+1) == '-' {
				k := j
				for k < n && rs[k] == '-' {
					k++
				}
				if k < n && wrapIsWordChar(rs[k]) {
					break
				}
			}
			j++
		}
		out = append(out, string(rs[i:j]))
		i = j
	}
	return out
}
