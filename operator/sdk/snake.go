package sdk

import (
	"regexp"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// The snake_case conversion below reproduces ansible-operator's, quirks
// included, because roles read spec fields under the names it produces:
//   - a letter, digits, then a letter followed by digits gets spaces
//     around the first digit run ("size8sk8s" -> "size 8 sk8s"), which
//     become underscores;
//   - the acronyms HTTP, URL and IP (and their plurals with a trailing
//     "s") are isolated with underscores before splitting;
//   - a split happens wherever the case changes between two letters, and
//     at spaces, underscores and dashes;
//   - a name starting with an upper-case letter gets a leading underscore,
//     unless its first word is one of the acronyms' lower-case forms.
// ansible-operator applies the acronyms in Go map order, which only
// matters for names holding two different acronyms; here the order is
// fixed (HTTP, URL, IP).

var digitRun = regexp.MustCompile(`([a-zA-Z])(\d+)([a-zA-Z](\d+))`)

// acronyms are the words ToSnake keeps whole, in the order it applies them.
var acronyms = []string{"HTTP", "URL", "IP"}

// acronymWords are the acronyms' lower-case forms, which suppress the
// leading underscore of a capitalised name.
var acronymWords = map[string]bool{"http": true, "url": true, "ip": true}

// isolateAcronyms puts underscores around the first occurrence of each
// acronym, taking a following "s" as its plural.
func isolateAcronyms(s string) string {
	for _, word := range acronyms {
		i := strings.Index(s, word)
		if i < 0 {
			continue
		}
		end := i + len(word)
		switch {
		case end == len(s):
			s = s[:i] + "_" + s[i:]
		case s[end] == 's' && end == len(s)-1:
			s = s[:i] + "_" + s[i:end] + "S"
		case s[end] == 's' && i == 0:
			s = s[:end] + "S_" + s[end+1:]
		case s[end] == 's':
			s = s[:i] + "_" + s[i:end] + "S_" + s[end+1:]
		case i == 0:
			s = s[:end] + "_" + s[end:]
		default:
			s = s[:i] + "_" + s[i:end] + "_" + s[end:]
		}
	}
	return s
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// ToSnake converts a spec field name to the variable name ansible-operator
// gives it ("sizeK8sBuckets" -> "size_k8s_buckets", "egressIPs" ->
// "egress_ips", "ThisOne" -> "_this_one").
func ToSnake(s string) string {
	s = strings.Trim(digitRun.ReplaceAllString(s, "$1 $2 $3"), " ")
	if s == "" {
		return s
	}
	prefix := ""
	if isUpper(s[0]) {
		prefix = "_"
	}
	s = isolateAcronyms(s)
	var words []string
	cur := ""
	run := -1 // letters since the last split, minus one
	for i := 0; i < len(s); i++ {
		c := s[i]
		run++
		caseFlips := i+1 < len(s) && ((isUpper(c) && isLower(s[i+1])) || (isLower(c) && isUpper(s[i+1])))
		switch {
		case run > 0 && cur != "" && cur[len(cur)-1] != '_' && caseFlips && isUpper(c):
			words = append(words, strings.ToLower(cur))
			cur, run = string(c), 0
		case run > 0 && cur != "" && cur[len(cur)-1] != '_' && caseFlips && isLower(c):
			words = append(words, strings.ToLower(cur+string(c)))
			cur, run = "", -1
		case c == ' ' || c == '_' || c == '-':
			words = append(words, strings.ToLower(cur))
			cur, run = "", -1
		default:
			cur += string(c)
		}
	}
	words = append(words, strings.ToLower(cur))
	joined := strings.Join(words, "_")
	if acronymWords[words[0]] {
		return joined
	}
	return prefix + joined
}

// snakeKeys converts the keys of every dict in v, recursively (lists
// included), as ansible-operator's MapToSnake does. Keys come out sorted,
// the order its JSON encoding of the variables gives them.
func snakeKeys(v any) any {
	switch x := v.(type) {
	case *value.Dict:
		conv := make(map[string]any, x.Len())
		keys := make([]string, 0, x.Len())
		x.Each(func(k string, e any) bool {
			sk := ToSnake(k)
			if _, dup := conv[sk]; !dup {
				keys = append(keys, sk)
			}
			conv[sk] = snakeKeys(e)
			return true
		})
		sort.Strings(keys)
		out := value.NewDict(len(keys))
		for _, k := range keys {
			out.Set(k, conv[k])
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = snakeKeys(e)
		}
		return out
	}
	return v
}
