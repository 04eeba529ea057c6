package template

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"math/big"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// ansibleFilters returns the filters Ansible adds to Jinja2's (and those it
// replaces: random, unique, default...).
func ansibleFilters() map[string]FilterFunc {
	builtin := map[string]FilterFunc{
		"mandatory":            filterMandatory,
		"bool":                 filterBool,
		"combine":              filterCombine,
		"ternary":              filterTernary,
		"b64encode":            filterB64encode,
		"b64decode":            filterB64decode,
		"to_json":              filterToJSON,
		"to_nice_json":         filterToNiceJSON,
		"from_json":            filterFromJSON,
		"to_yaml":              filterToYAML,
		"to_nice_yaml":         filterToNiceYAML,
		"from_yaml":            filterFromYAML,
		"from_yaml_all":        filterFromYAMLAll,
		"dict2items":           filterDict2items,
		"items2dict":           filterItems2dict,
		"regex_replace":        filterRegexReplace,
		"regex_search":         filterRegexSearch,
		"regex_findall":        filterRegexFindall,
		"regex_escape":         filterRegexEscape,
		"flatten":              filterFlatten,
		"zip":                  filterZip,
		"zip_longest":          filterZipLongest,
		"union":                setFilter("union"),
		"intersect":            setFilter("intersect"),
		"difference":           setFilter("difference"),
		"symmetric_difference": setFilter("symmetric_difference"),
		"unique":               filterUnique,
		"hash":                 filterHash,
		"checksum":             hashFilter("secure_hash_s", "sha1"),
		"sha1":                 hashFilter("secure_hash_s", "sha1"),
		"md5":                  hashFilter("md5s", "md5"),
		"quote":                filterQuote,
		"basename":             pathFilter("basename", pyBasename),
		"dirname":              pathFilter("dirname", pyDirname),
		"expanduser":           filterExpanduser,
		"expandvars":           filterExpandvars,
		"realpath":             pathFilter("realpath", pyRealpath),
		"normpath":             pathFilter("normpath", pyNormpath),
		"relpath":              filterRelpath,
		"splitext":             filterSplitext,
		"path_join":            filterPathJoin,
		"commonpath":           filterCommonpath,
		"win_basename":         pathFilter("basename", func(p string) string { _, b := winSplit(p); return b }),
		"win_dirname":          pathFilter("dirname", func(p string) string { d, _ := winSplit(p); return d }),
		"win_splitdrive":       filterWinSplitdrive,
		"fileglob":             filterFileglob,
		"extract":              filterExtract,
		"subelements":          filterSubelements,
		"type_debug":           filterTypeDebug,
		"to_datetime":          filterToDatetime,
		"strftime":             filterStrftime,
		"comment":              filterComment,
		"urlsplit":             filterURLSplit,
		"urldecode":            filterURLDecode,
		"human_readable":       filterHumanReadable,
		"human_to_bytes":       filterHumanToBytes,
		"split":                filterSplit,
		"random":               filterRandom,
		"shuffle":              filterShuffle,
		"log":                  filterLog,
		"pow":                  filterPow,
		"root":                 filterRoot,
		"product":              filterProduct,
		"permutations":         filterPermutations,
		"combinations":         filterCombinations,
		"rekey_on_member":      filterRekeyOnMember,
		"to_uuid":              filterToUUID,
		"groupby":              filterGroupby,
	}
	out := map[string]FilterFunc{}
	for k, f := range builtin {
		out[k] = wrapFilter("ansible.builtin."+k, f)
	}
	for k, f := range map[string]FilterFunc{
		"ipaddr": filterIPAddr("ipaddr", 0),
		"ipv4":   filterIPAddr("ipv4", 4),
		"ipv6":   filterIPAddr("ipv6", 6),
		"ipwrap": filterIPWrap,
	} {
		out[k] = wrapFilter("ansible.utils."+k, f)
	}
	for k, f := range map[string]FilterFunc{
		"dict":            filterDict,
		"dict_kv":         filterDictKV,
		"lists_mergeby":   filterListsMergeby,
		"json_query":      nil,
		"to_days":         nil,
		"version_sort":    filterVersionSort,
		"lists_union":     nil,
		"keep_keys":       nil,
		"remove_keys":     nil,
		"replace_keys":    nil,
		"counter":         filterCounter,
		"groupby_as_dict": filterGroupbyAsDict,
	} {
		if f != nil {
			out[k] = wrapFilter("community.general."+k, f)
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// Core Ansible filters.

func filterMandatory(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("mandatory", optNone("msg")).bind(a)
	if err != nil {
		return nil, err
	}
	u, ok := in.(value.Undefined)
	if !ok {
		return in, nil
	}
	if v[0] != nil {
		return nil, Errorf("%s", value.Str(v[0]))
	}
	name := ""
	if m := undefinedNameRe.FindStringSubmatch(u.Msg); m != nil {
		name = "'" + m[1] + m[2] + "' "
	}
	return nil, Errorf("Mandatory variable %snot defined.", name)
}

// undefinedNameRe finds the name of an undefined variable or attribute in
// its message, as Jinja2 keeps it in Undefined._undefined_name.
var undefinedNameRe = regexp.MustCompile(`^'([^']*)' is undefined|has no attribute '?(.*?)'?$`)

func filterBool(c *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("to_bool").bind(a); err != nil {
		return nil, err
	}
	var check any = in
	switch x := in.(type) {
	case string:
		check = strings.ToLower(x)
	case bool:
		if x {
			check = "true"
		} else {
			check = "false"
		}
	case int:
		check = strconv.Itoa(x)
	}
	if s, ok := check.(string); ok {
		switch s {
		case "yes", "on", "true", "1":
			return true, nil
		case "no", "off", "false", "0":
			return false, nil
		}
	}
	res := value.Equal(check, 1)
	c.warn(Warning{Msg: fmt.Sprintf("The `bool` filter coerced invalid value %s (%s) to %s.", value.Repr(in), value.TypeName(in), value.Repr(res)), Deprecated: "2.23"})
	return res, nil
}

func filterTernary(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("ternary", req("true_val"), req("false_val"), optNone("none_val")).bind(a)
	if err != nil {
		return nil, err
	}
	if in == nil && v[2] != nil {
		return v[2], nil
	}
	if u, ok := in.(value.Undefined); ok {
		return nil, undefinedErr(u)
	}
	if value.Truthy(in) {
		return v[0], nil
	}
	return v[1], nil
}

func combineDicts(terms []any, kw *value.Dict, kwErr string) (any, error) {
	recursive, listMerge := false, any("replace")
	if kw != nil {
		for _, k := range kw.Keys() {
			v, _ := kw.Get(k)
			switch k {
			case "recursive":
				recursive = value.Truthy(v)
			case "list_merge":
				listMerge = v
			default:
				return nil, Errorf("%s", kwErr)
			}
		}
	}
	dicts := flattenList(terms, 1, true)
	if len(dicts) == 0 {
		return value.NewDict(0), nil
	}
	if len(dicts) == 1 {
		return dicts[0], nil
	}
	lm, _ := listMerge.(string)
	switch lm {
	case "replace", "keep", "append", "prepend", "append_rp", "prepend_rp":
	default:
		return nil, Errorf("merge_hash: 'list_merge' argument can only be equal to 'replace', 'keep', 'append', 'prepend', 'append_rp' or 'prepend_rp'")
	}
	result := dicts[len(dicts)-1]
	for i := len(dicts) - 2; i >= 0; i-- {
		x, xok := dicts[i].(*value.Dict)
		y, yok := result.(*value.Dict)
		if !xok || !yok {
			resultName := lazyTypeName(result)
			if i < len(dicts)-2 {
				resultName = pyTypeName(result) // a merged dict, not an argument
			}
			return nil, Errorf("failed to combine variables, expected dicts but got a '%s' and a '%s'.", lazyTypeName(dicts[i]), resultName)
		}
		result = value.MergeHash(x, y, recursive, lm)
	}
	return result, nil
}

func filterCombine(_ *Ctx, in any, a *Args) (any, error) {
	terms := append([]any{in}, a.Pos...)
	return combineDicts(terms, a.Kw, "'recursive' and 'list_merge' are the only valid keyword arguments")
}

// encodeText converts text to bytes in a Python codec.
func encodeText(s, enc string) ([]byte, error) {
	switch strings.ReplaceAll(strings.ToLower(enc), "_", "-") {
	case "utf-8", "utf8", "u8":
		return []byte(s), nil
	case "ascii", "us-ascii":
		for i, r := range s {
			if r > 0x7f {
				return nil, typeErrorf("'ascii' codec can't encode character %s in position %d: ordinal not in range(128)", asciiRepr(r), utf8.RuneCountInString(s[:i]))
			}
		}
		return []byte(s), nil
	case "latin-1", "latin1", "iso-8859-1", "iso8859-1":
		out := make([]byte, 0, len(s))
		for i, r := range s {
			if r > 0xff {
				return nil, typeErrorf("'latin-1' codec can't encode character %s in position %d: ordinal not in range(256)", asciiRepr(r), utf8.RuneCountInString(s[:i]))
			}
			out = append(out, byte(r))
		}
		return out, nil
	case "utf-16", "utf-16-le", "utf-16le", "utf-16-be", "utf-16be":
		e := strings.ReplaceAll(strings.ToLower(enc), "_", "-")
		units := utf16.Encode([]rune(s))
		var out []byte
		be := strings.HasSuffix(e, "be")
		if e == "utf-16" {
			out = append(out, 0xff, 0xfe)
		}
		for _, u := range units {
			if be {
				out = binary.BigEndian.AppendUint16(out, u)
			} else {
				out = binary.LittleEndian.AppendUint16(out, u)
			}
		}
		return out, nil
	}
	return nil, typeErrorf("unknown encoding: %s", enc)
}

func asciiRepr(r rune) string {
	if r <= 0xff {
		return fmt.Sprintf("'\\x%02x'", r)
	}
	if r <= 0xffff {
		return fmt.Sprintf("'\\u%04x'", r)
	}
	return fmt.Sprintf("'\\U%08x'", r)
}

// decodeText converts bytes from a Python codec (undecodable bytes are kept,
// as surrogateescape would).
func decodeText(b []byte, enc string) (string, error) {
	switch e := strings.ReplaceAll(strings.ToLower(enc), "_", "-"); e {
	case "utf-8", "utf8", "u8", "ascii", "us-ascii":
		return string(b), nil
	case "latin-1", "latin1", "iso-8859-1", "iso8859-1":
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r), nil
	case "utf-16", "utf-16-le", "utf-16le", "utf-16-be", "utf-16be":
		be := strings.HasSuffix(e, "be")
		if e == "utf-16" && len(b) >= 2 {
			if b[0] == 0xfe && b[1] == 0xff {
				be, b = true, b[2:]
			} else if b[0] == 0xff && b[1] == 0xfe {
				b = b[2:]
			}
		}
		if len(b)%2 == 1 {
			return "", typeErrorf("'utf-16-le' codec can't decode byte 0x%02x in position %d: truncated data", b[len(b)-1], len(b)-1)
		}
		units := make([]uint16, len(b)/2)
		for i := range units {
			if be {
				units[i] = binary.BigEndian.Uint16(b[2*i:])
			} else {
				units[i] = binary.LittleEndian.Uint16(b[2*i:])
			}
		}
		return string(utf16.Decode(units)), nil
	}
	return "", typeErrorf("unknown encoding: %s", enc)
}

func filterB64encode(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("b64encode", opt("encoding", "utf-8"), opt("urlsafe", false)).bind(a)
	if err != nil {
		return nil, err
	}
	b, err := encodeText(value.Str(in), value.Str(v[0]))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[1]) {
		return base64.URLEncoding.EncodeToString(b), nil
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// pyB64decode is binascii.a2b_base64 in its lenient mode.
func pyB64decode(s string) ([]byte, error) {
	const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var out []byte
	quad, pads := 0, 0
	var left byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '=' {
			pads++
			if quad >= 2 && quad+pads >= 4 {
				return out, nil
			}
			continue
		}
		idx := strings.IndexByte(alpha, c)
		if idx < 0 {
			continue
		}
		v := byte(idx)
		pads = 0
		switch quad {
		case 0:
			quad, left = 1, v
		case 1:
			quad = 2
			out = append(out, left<<2|v>>4)
			left = v & 0x0f
		case 2:
			quad = 3
			out = append(out, left<<4|v>>2)
			left = v & 0x03
		case 3:
			quad = 0
			out = append(out, left<<6|v)
			left = 0
		}
	}
	if quad == 1 {
		return nil, typeErrorf("Invalid base64-encoded string: number of data characters (%d) cannot be 1 more than a multiple of 4", len(out)/3*4+1)
	}
	if quad != 0 {
		return nil, typeErrorf("Incorrect padding")
	}
	return out, nil
}

func filterB64decode(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("b64decode", opt("encoding", "utf-8"), opt("urlsafe", false)).bind(a)
	if err != nil {
		return nil, err
	}
	s := value.Str(in)
	if value.Truthy(v[1]) {
		s = strings.NewReplacer("-", "+", "_", "/").Replace(s)
	}
	b, err := pyB64decode(s)
	if err != nil {
		return nil, err
	}
	return decodeText(b, value.Str(v[0]))
}

// ---------------------------------------------------------------------------
// JSON.

// pyJSONOpts are the json.dumps arguments Ansible's filters pass.
type pyJSONOpts struct {
	indent      *string
	itemSep     string
	keySep      string
	sortKeys    bool
	ensureASCII bool
	allowNaN    bool
	sepsSet     bool
}

func (o *pyJSONOpts) setIndent(v any) error {
	switch x := v.(type) {
	case nil:
		o.indent = nil
	case string:
		o.indent = &x
	default:
		n, ok := value.AsInt(v)
		if !ok {
			return typeErrorf("can't multiply sequence by non-int of type '%s'", value.TypeName(v))
		}
		s := strings.Repeat(" ", max(n, 0))
		o.indent = &s
	}
	if !o.sepsSet && o.indent != nil {
		o.itemSep = ","
	}
	return nil
}

// pyJSONDumps is json.dumps with the given options, with Python's errors
// for values it cannot serialize.
func pyJSONDumps(v any, o pyJSONOpts) (string, error) {
	s, err := value.EncodeJSON(v, value.JSONOptions{IndentString: o.indent, SortKeys: o.sortKeys,
		EnsureASCII: o.ensureASCII, ItemSep: o.itemSep, KeySep: o.keySep, RejectNaN: !o.allowNaN})
	if ue, ok := err.(*value.UnsupportedJSONError); ok {
		if u, isU := ue.Value.(value.Undefined); isU {
			return "", undefinedErr(u)
		}
		return "", typeErrorf("%s", ue.Error())
	}
	return s, err
}

var jsonDumpsKw = map[string]bool{"indent": true, "sort_keys": true, "ensure_ascii": true, "separators": true,
	"allow_nan": true, "skipkeys": true, "check_circular": true, "default": true, "cls": true,
	"profile": true, "vault_to_text": true, "preprocess_unsafe": true}

func jsonOptsFromKw(kw *value.Dict, o pyJSONOpts) (pyJSONOpts, error) {
	if kw == nil {
		return o, nil
	}
	for _, k := range kw.Keys() {
		v, _ := kw.Get(k)
		if !jsonDumpsKw[k] {
			return o, typeErrorf("JSONEncoder.__init__() got an unexpected keyword argument '%s'", k)
		}
		switch k {
		case "sort_keys":
			o.sortKeys = value.Truthy(v)
		case "ensure_ascii":
			o.ensureASCII = value.Truthy(v)
		case "allow_nan":
			o.allowNaN = value.Truthy(v)
		case "separators":
			items, err := iterate(v)
			if err != nil || len(items) != 2 {
				return o, typeErrorf("not enough values to unpack (expected 2)")
			}
			o.itemSep, o.keySep, o.sepsSet = value.Str(items[0]), value.Str(items[1]), true
		}
	}
	if v, ok := kw.Get("indent"); ok {
		if err := o.setIndent(v); err != nil {
			return o, err
		}
	}
	return o, nil
}

func filterToJSON(_ *Ctx, in any, a *Args) (any, error) {
	if len(a.Pos) > 1 {
		return nil, typeErrorf("to_json() takes from 1 to 2 positional arguments but %d were given", len(a.Pos)+1)
	}
	o := pyJSONOpts{itemSep: ", ", keySep: ": ", ensureASCII: true, allowNaN: true}
	o, err := jsonOptsFromKw(a.Kw, o)
	if err != nil {
		return nil, err
	}
	return pyJSONDumps(in, o)
}

func filterToNiceJSON(_ *Ctx, in any, a *Args) (any, error) {
	if len(a.Pos) > 2 {
		return nil, typeErrorf("to_nice_json() takes from 1 to 3 positional arguments but %d were given", len(a.Pos)+1)
	}
	kw := value.NewDict(4)
	kw.Set("indent", a.Default(0, "", 4))
	kw.Set("sort_keys", a.Default(1, "", true))
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			v, _ := a.Kw.Get(k)
			if k == "separators" {
				continue
			}
			if (k == "indent" && len(a.Pos) > 0) || (k == "sort_keys" && len(a.Pos) > 1) {
				return nil, typeErrorf("to_nice_json() got multiple values for argument '%s'", k)
			}
			kw.Set(k, v)
		}
	}
	o := pyJSONOpts{itemSep: ",", keySep: ": ", ensureASCII: true, allowNaN: true, sepsSet: true}
	o, err := jsonOptsFromKw(kw, o)
	if err != nil {
		return nil, err
	}
	o.itemSep, o.keySep = ",", ": "
	return pyJSONDumps(in, o)
}

func filterFromJSON(_ *Ctx, in any, a *Args) (any, error) {
	v, extra, err := sig{fn: "from_json", params: []param{optNone("profile")}, varkw: true}.bindKw(a)
	if err != nil {
		return nil, err
	}
	_ = v
	if extra != nil && extra.Len() > 0 {
		return nil, typeErrorf("JSONDecoder.__init__() got an unexpected keyword argument '%s'", extra.Keys()[0])
	}
	s, ok := in.(string)
	if !ok {
		return nil, typeErrorf("the JSON object must be str, bytes or bytearray, not %s", value.TypeName(in))
	}
	return pyJSONLoads(s)
}

// pyJSONLoads is json.loads with Python's error messages.
func pyJSONLoads(s string) (any, error) {
	p := &jsonParser{s: []rune(s)}
	p.ws()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i < len(p.s) {
		return nil, p.errAt("Extra data", p.i)
	}
	return v, nil
}

type jsonParser struct {
	s []rune
	i int
}

func (p *jsonParser) errAt(msg string, pos int) error {
	line, col := 1, pos+1
	for j := 0; j < pos && j < len(p.s); j++ {
		if p.s[j] == '\n' {
			line++
			col = pos - j
		}
	}
	return typeErrorf("%s: line %d column %d (char %d)", msg, line, col, pos)
}

func (p *jsonParser) ws() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\n\r", p.s[p.i]) {
		p.i++
	}
}

func (p *jsonParser) has(lit string) bool {
	r := []rune(lit)
	if p.i+len(r) > len(p.s) {
		return false
	}
	return string(p.s[p.i:p.i+len(r)]) == lit
}

var jsonNumRe = regexp.MustCompile(`^(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?`)

func (p *jsonParser) value() (any, error) {
	if p.i >= len(p.s) {
		return nil, p.errAt("Expecting value", p.i)
	}
	switch c := p.s[p.i]; {
	case c == '"':
		return p.str()
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case p.has("null"):
		p.i += 4
		return nil, nil
	case p.has("true"):
		p.i += 4
		return true, nil
	case p.has("false"):
		p.i += 5
		return false, nil
	case p.has("NaN"):
		p.i += 3
		return math.NaN(), nil
	case p.has("Infinity"):
		p.i += 8
		return math.Inf(1), nil
	case p.has("-Infinity"):
		p.i += 9
		return math.Inf(-1), nil
	}
	rest := string(p.s[p.i:min(len(p.s), p.i+400)])
	m := jsonNumRe.FindStringSubmatch(rest)
	if m == nil {
		return nil, p.errAt("Expecting value", p.i)
	}
	p.i += len(m[0])
	if m[2] == "" && m[3] == "" {
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err == nil {
			return int(n), nil
		}
		f, _ := strconv.ParseFloat(m[0], 64)
		return f, nil
	}
	f, _ := strconv.ParseFloat(m[0], 64)
	return f, nil
}

func (p *jsonParser) str() (string, error) {
	start := p.i
	p.i++
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", p.errAt("Unterminated string starting at", start)
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.errAt("Unterminated string starting at", start)
			}
			e := p.s[p.i+1]
			switch e {
			case '"', '\\', '/':
				b.WriteRune(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := p.hex4(p.i + 2)
				if !ok {
					return "", p.errAt("Invalid \\uXXXX escape", p.i+1)
				}
				p.i += 4
				if r >= 0xd800 && r <= 0xdbff && p.i+2 < len(p.s) && p.s[p.i+2] == '\\' && p.i+3 < len(p.s) && p.s[p.i+3] == 'u' {
					if r2, ok := p.hex4(p.i + 4); ok && r2 >= 0xdc00 && r2 <= 0xdfff {
						r = 0x10000 + (r-0xd800)<<10 + (r2 - 0xdc00)
						p.i += 6
					}
				}
				b.WriteRune(r)
			default:
				return "", p.errAt("Invalid \\escape", p.i)
			}
			p.i += 2
		case c < 0x20:
			return "", p.errAt("Invalid control character at", p.i)
		default:
			b.WriteRune(c)
			p.i++
		}
	}
}

func (p *jsonParser) hex4(at int) (rune, bool) {
	if at+4 > len(p.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.s[at:at+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}

func (p *jsonParser) object() (any, error) {
	p.i++
	d := value.NewDict(4)
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return d, nil
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, p.errAt("Expecting property name enclosed in double quotes", p.i)
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errAt("Expecting ':' delimiter", p.i)
		}
		p.i++
		p.ws()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		d.Set(k, v)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return d, nil
		}
		if p.i >= len(p.s) || p.s[p.i] != ',' {
			return nil, p.errAt("Expecting ',' delimiter", p.i)
		}
		p.i++
		p.ws()
	}
}

func (p *jsonParser) array() (any, error) {
	p.i++
	out := []any{}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return out, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return out, nil
		}
		if p.i >= len(p.s) || p.s[p.i] != ',' {
			return nil, p.errAt("Expecting ',' delimiter", p.i)
		}
		p.i++
		p.ws()
	}
}

// ---------------------------------------------------------------------------
// YAML.

func filterFromYAML(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("from_yaml").bind(a); err != nil {
		return nil, err
	}
	s, ok := in.(string)
	if !ok {
		return in, nil
	}
	docs, _, err := value.DecodeYAML("<string>", []byte(s))
	if err != nil {
		return nil, typeErrorf("%s", err.Error())
	}
	switch len(docs) {
	case 0:
		return nil, nil
	case 1:
		return docs[0], nil
	}
	return nil, typeErrorf("expected a single document in the stream")
}

func filterFromYAMLAll(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("from_yaml_all").bind(a); err != nil {
		return nil, err
	}
	if in == nil {
		return []any{}, nil
	}
	s, ok := in.(string)
	if !ok {
		return in, nil
	}
	docs, _, err := value.DecodeYAML("<string>", []byte(s))
	if err != nil {
		return nil, typeErrorf("%s", err.Error())
	}
	if docs == nil {
		docs = []any{}
	}
	return docs, nil
}

func filterToYAML(_ *Ctx, in any, a *Args) (any, error) {
	o := yamlDumpOpts{indent: 2, width: 80, sortKeys: true, flow: -1}
	if err := o.fromKw(a.Kw, "default_flow_style"); err != nil {
		return nil, err
	}
	return yamlDump(in, o)
}

func filterToNiceYAML(_ *Ctx, in any, a *Args) (any, error) {
	o := yamlDumpOpts{indent: 4, width: 80, sortKeys: true, flow: 0}
	if v, ok := a.Get(0, ""); ok {
		o.setIndent(v)
	}
	if err := o.fromKw(a.Kw, "default_flow_style"); err != nil {
		return nil, err
	}
	return yamlDump(in, o)
}

type yamlDumpOpts struct {
	indent        int
	width         int
	sortKeys      bool
	flow          int // -1 None (leaf collections in flow), 0 block, 1 flow
	explicitStart bool
	explicitEnd   bool
}

func (o *yamlDumpOpts) setIndent(v any) {
	if n, ok := value.AsInt(v); ok && n > 1 && n < 10 {
		o.indent = n
	} else {
		o.indent = 2
	}
}

func (o *yamlDumpOpts) fromKw(kw *value.Dict, _ string) error {
	if kw == nil {
		return nil
	}
	for _, k := range kw.Keys() {
		v, _ := kw.Get(k)
		switch k {
		case "default_flow_style":
			switch {
			case v == nil:
				o.flow = -1
			case value.Truthy(v):
				o.flow = 1
			default:
				o.flow = 0
			}
		case "indent":
			o.setIndent(v)
		case "width":
			if n, ok := value.AsInt(v); ok {
				o.width = n
			} else if f, ok := v.(float64); ok && math.IsInf(f, 1) {
				o.width = math.MaxInt32
			}
		case "sort_keys":
			o.sortKeys = value.Truthy(v)
		case "explicit_start":
			o.explicitStart = value.Truthy(v)
		case "explicit_end":
			o.explicitEnd = value.Truthy(v)
		case "allow_unicode":
			return typeErrorf("yaml.dump() got multiple values for keyword argument 'allow_unicode'")
		case "canonical", "line_break", "encoding", "version", "tags", "default_style":
		default:
			return typeErrorf("dump_all() got an unexpected keyword argument '%s'", k)
		}
	}
	return nil
}

// yamlEvent is one serializer event for the emitter.
type yamlEvent struct {
	kind     byte // 's' scalar, '[' seq start, ']' seq end, '{' map start, '}' map end
	val      string
	implicit bool // plain scalar resolves back to the same type
	flow     bool
}

func yamlEvents(v any, o yamlDumpOpts, out *[]yamlEvent) error {
	switch x := v.(type) {
	case nil:
		*out = append(*out, yamlEvent{kind: 's', val: "null", implicit: true})
	case bool:
		s := "false"
		if x {
			s = "true"
		}
		*out = append(*out, yamlEvent{kind: 's', val: s, implicit: true})
	case int:
		*out = append(*out, yamlEvent{kind: 's', val: strconv.Itoa(x), implicit: true})
	case float64:
		var s string
		switch {
		case math.IsNaN(x):
			s = ".nan"
		case math.IsInf(x, 1):
			s = ".inf"
		case math.IsInf(x, -1):
			s = "-.inf"
		default:
			s = strings.ToLower(value.FormatFloat(x))
			if !strings.Contains(s, ".") && strings.Contains(s, "e") {
				s = strings.Replace(s, "e", ".0e", 1)
			}
		}
		*out = append(*out, yamlEvent{kind: 's', val: s, implicit: true})
	case string:
		*out = append(*out, yamlEvent{kind: 's', val: x, implicit: !yamlResolvesNonStr(x)})
	case value.Omit:
		*out = append(*out, yamlEvent{kind: 's', val: value.OmitPlaceholder, implicit: true})
	case *pyDatetime:
		*out = append(*out, yamlEvent{kind: 's', val: x.String(), implicit: true})
	case []any, value.Tuple, *rangeVal:
		items, _ := iterate(x)
		flow := o.flow == 1
		if o.flow == -1 {
			flow = true
			for _, it := range items {
				if !yamlIsScalar(it) {
					flow = false
				}
			}
		}
		*out = append(*out, yamlEvent{kind: '[', flow: flow})
		for _, it := range items {
			if err := yamlEvents(it, o, out); err != nil {
				return err
			}
		}
		*out = append(*out, yamlEvent{kind: ']'})
	case *value.Dict:
		keys := append([]string(nil), x.Keys()...)
		if o.sortKeys {
			sort.Strings(keys)
		}
		flow := o.flow == 1
		if o.flow == -1 {
			flow = true
			x.Each(func(_ string, e any) bool {
				if !yamlIsScalar(e) {
					flow = false
				}
				return flow
			})
		}
		*out = append(*out, yamlEvent{kind: '{', flow: flow})
		for _, k := range keys {
			e, _ := x.Get(k)
			*out = append(*out, yamlEvent{kind: 's', val: k, implicit: !yamlResolvesNonStr(k)})
			if err := yamlEvents(e, o, out); err != nil {
				return err
			}
		}
		*out = append(*out, yamlEvent{kind: '}'})
	case value.Undefined:
		return undefinedErr(x)
	default:
		return typeErrorf("cannot represent an object: %s", value.Repr(v))
	}
	return nil
}

func yamlIsScalar(v any) bool {
	switch v.(type) {
	case []any, value.Tuple, *value.Dict, *rangeVal:
		return false
	}
	return true
}

// PyYAML's implicit resolvers (YAML 1.1).
var (
	yamlResBool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yamlResFloat = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	yamlResInt   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	yamlResNull  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	yamlResTime  = regexp.MustCompile(`^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`)
)

func yamlResolvesNonStr(s string) bool {
	return yamlResBool.MatchString(s) || yamlResFloat.MatchString(s) || yamlResInt.MatchString(s) ||
		yamlResNull.MatchString(s) || yamlResTime.MatchString(s) || s == "=" || s == "<<"
}

func yamlDump(v any, o yamlDumpOpts) (string, error) {
	var evs []yamlEvent
	if err := yamlEvents(v, o, &evs); err != nil {
		return "", err
	}
	e := &yamlEmitter{events: evs, bestIndent: o.indent, bestWidth: 80, indent: -1, whitespace: true, indention: true}
	if o.width > o.indent*2 {
		e.bestWidth = o.width
	}
	if o.explicitStart {
		e.writeIndicator("---", true, false, false)
	}
	e.node(true, false, false, false)
	e.writeIndent()
	if o.explicitEnd {
		e.writeIndicator("...", true, false, false)
		e.writeIndent()
	}
	return e.b.String(), nil
}

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

func (e *yamlEmitter) flowSequence() {
	e.writeIndicator("[", true, true, false)
	e.flowLevel++
	e.increaseIndent(true, false)
	e.pos++
	first := true
	for e.cur().kind != ']' {
		if !first {
			e.writeIndicator(",", false, false, false)
		}
		if e.column > e.bestWidth {
			e.writeIndent()
		}
		e.node(false, true, false, false)
		first = false
	}
	e.popIndent()
	e.flowLevel--
	e.writeIndicator("]", false, false, false)
	e.pos++
}

func (e *yamlEmitter) flowMapping() {
	e.writeIndicator("{", true, true, false)
	e.flowLevel++
	e.increaseIndent(true, false)
	e.pos++
	first := true
	for e.cur().kind != '}' {
		if !first {
			e.writeIndicator(",", false, false, false)
		}
		if e.column > e.bestWidth {
			e.writeIndent()
		}
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
		first = false
	}
	e.popIndent()
	e.flowLevel--
	e.writeIndicator("}", false, false, false)
	e.pos++
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
func yamlIsWS(r rune) bool    { return r == 0 || r == ' ' || r == '\t' || r == '\r' || yamlIsBreak(r) }

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

// ---------------------------------------------------------------------------
// Dict and list conversions.

func filterDict2items(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("dict_to_list_of_dict_key_value_elements", opt("key_name", "key"), opt("value_name", "value")).bind(a)
	if err != nil {
		return nil, err
	}
	d, ok := in.(*value.Dict)
	if !ok {
		return nil, Errorf("dict2items requires a dictionary, got %s instead.", pyClassRepr(in))
	}
	out := make([]any, 0, d.Len())
	d.Each(func(k string, x any) bool {
		out = append(out, value.DictOf(value.Str(v[0]), k, value.Str(v[1]), x))
		return true
	})
	return out, nil
}

// pyClassRepr is repr(type(v)) for a plugin's argument. ansible-core hands
// plugins lazy containers, so dicts and lists show those classes.
func pyClassRepr(v any) string {
	switch v.(type) {
	case *value.Dict, []any:
		return "<class 'ansible._internal._templating._lazy_containers." + lazyTypeName(v) + "'>"
	}
	return "<class '" + pyTypeName(v) + "'>"
}

// lazyTypeName is type(v).__name__ for a plugin's argument: dicts and lists
// are ansible-core's lazy containers.
func lazyTypeName(v any) string {
	switch v.(type) {
	case *value.Dict:
		return "_AnsibleLazyTemplateDict"
	case []any:
		return "_AnsibleLazyTemplateList"
	}
	return pyTypeName(v)
}

func filterItems2dict(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("list_of_dict_key_value_elements_to_dict", opt("key_name", "key"), opt("value_name", "value")).bind(a)
	if err != nil {
		return nil, err
	}
	var items []any
	switch x := in.(type) {
	case []any:
		items = x
	case value.Tuple:
		items = x
	default:
		return nil, Errorf("items2dict requires a list, got %s instead.", pyClassRepr(in))
	}
	out := value.NewDict(len(items))
	for _, it := range items {
		d, ok := it.(*value.Dict)
		if !ok {
			return nil, detachedf("items2dict requires a list of dictionaries, got %s instead.", value.Str(in))
		}
		k, ok1 := d.Get(value.Str(v[0]))
		x, ok2 := d.Get(value.Str(v[1]))
		if !ok1 || !ok2 {
			return nil, detachedf("items2dict requires each dictionary in the list to contain the keys '%s' and '%s', got %s instead.", value.Str(v[0]), value.Str(v[1]), value.Str(in))
		}
		if _, ok := hashKey(k); !ok {
			return nil, detachedf("items2dict requires a list of dictionaries, got %s instead.", value.Str(in))
		}
		out.Set(value.Str(k), x)
	}
	return out, nil
}

// flattenList is Ansible's flatten: levels < 0 means all levels.
func flattenList(items []any, levels int, skipNulls bool) []any {
	out := []any{}
	for _, el := range items {
		if skipNulls && (el == nil || el == "None" || el == "null") {
			continue
		}
		var sub []any
		switch x := el.(type) {
		case []any:
			sub = x
		case value.Tuple:
			sub = x
		default:
			out = append(out, el)
			continue
		}
		switch {
		case levels < 0:
			out = append(out, flattenList(sub, -1, skipNulls)...)
		case levels >= 1:
			out = append(out, flattenList(sub, levels-1, skipNulls)...)
		default:
			out = append(out, el)
		}
	}
	return out
}

func filterFlatten(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("flatten", optNone("levels"), opt("skip_nulls", true)).bind(a)
	if err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	levels := -1
	if v[0] != nil {
		switch x := v[0].(type) {
		case float64:
			levels = int(x)
			if x < 1 {
				levels = 0
			}
		default:
			n, ok := value.AsInt(x)
			if !ok {
				return nil, typeErrorf("'>=' not supported between instances of '%s' and 'int'", value.TypeName(x))
			}
			levels = max(n, 0)
		}
	}
	return flattenList(items, levels, value.Truthy(v[1])), nil
}

func zipArgs(in any, a *Args) ([][]any, error) {
	all := append([]any{in}, a.Pos...)
	lists := make([][]any, len(all))
	for i, x := range all {
		items, err := iterate(x)
		if err != nil {
			return nil, typeErrorf("'%s' object is not iterable", value.TypeName(x))
		}
		lists[i] = items
	}
	return lists, nil
}

func filterZip(_ *Ctx, in any, a *Args) (any, error) {
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "strict" {
				return nil, typeErrorf("'%s' is an invalid keyword argument for zip()", k)
			}
		}
	}
	lists, err := zipArgs(in, a)
	if err != nil {
		return nil, err
	}
	n := math.MaxInt
	for _, l := range lists {
		n = min(n, len(l))
	}
	out := make([]any, n)
	for i := 0; i < n; i++ {
		t := make(value.Tuple, len(lists))
		for j, l := range lists {
			t[j] = l[i]
		}
		out[i] = t
	}
	return out, nil
}

func filterZipLongest(_ *Ctx, in any, a *Args) (any, error) {
	var fill any
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "fillvalue" {
				return nil, typeErrorf("zip_longest() got an unexpected keyword argument")
			}
			fill, _ = a.Kw.Get(k)
		}
	}
	lists, err := zipArgs(in, a)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, l := range lists {
		n = max(n, len(l))
	}
	out := make([]any, n)
	for i := 0; i < n; i++ {
		t := make(value.Tuple, len(lists))
		for j, l := range lists {
			if i < len(l) {
				t[j] = l[i]
			} else {
				t[j] = fill
			}
		}
		out[i] = t
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Sets: Ansible builds Python sets, so the order of the result is CPython's
// set iteration order. That order is reproduced exactly for numbers; for
// strings it depends on Python's randomized string hashing, so the order of
// first appearance is used instead (one of the orders Python may produce).

func allNumbers(lists ...[]any) bool {
	for _, l := range lists {
		for _, x := range l {
			if _, ok := value.AsFloat(x); !ok {
				return false
			}
			if f, ok := x.(float64); ok && math.IsNaN(f) {
				return false
			}
		}
	}
	return true
}

func orderedUnique(items []any) []any {
	out := []any{}
	for _, x := range items {
		if ok, _ := contains(out, x); !ok {
			out = append(out, x)
		}
	}
	return out
}

func setFilter(op string) FilterFunc {
	return func(_ *Ctx, in any, a *Args) (any, error) {
		v, err := sigOf(op, req("b")).env().bind(a)
		if err != nil {
			return nil, err
		}
		x, err := iterate(in)
		if err != nil {
			return nil, err
		}
		y, err := iterate(v[0])
		if err != nil {
			return nil, err
		}
		if allNumbers(x, y) {
			return cpythonSetOp(op, x, y), nil
		}
		inB := func(e any) bool { ok, _ := contains(y, e); return ok }
		switch op {
		case "union":
			return orderedUnique(append(append([]any{}, x...), y...)), nil
		case "intersect":
			var out []any
			for _, e := range x {
				if inB(e) {
					out = append(out, e)
				}
			}
			return orderedUnique(out), nil
		case "difference":
			var out []any
			for _, e := range x {
				if !inB(e) {
					out = append(out, e)
				}
			}
			return orderedUnique(out), nil
		}
		out := []any{}
		for _, e := range orderedUnique(append(append([]any{}, x...), y...)) {
			inA, _ := contains(x, e)
			if !(inA && inB(e)) {
				out = append(out, e)
			}
		}
		return out, nil
	}
}

// pyHash is CPython's hash() for numbers.
func pyHash(v any) int64 {
	const mod = (1 << 61) - 1
	hashInt := func(n int64) int64 {
		var h int64
		if n >= 0 {
			h = n % mod
		} else {
			h = -((-n) % mod)
		}
		if h == -1 {
			h = -2
		}
		return h
	}
	switch x := v.(type) {
	case bool:
		if x {
			return 1
		}
		return 0
	case int:
		return hashInt(int64(x))
	case float64:
		if value.IsIntegral(x) {
			return hashInt(int64(x))
		}
		return pyHashFloat(x)
	}
	return 0
}

func pyHashFloat(v float64) int64 {
	const bits = 61
	const mod = (1 << 61) - 1
	if math.IsInf(v, 0) {
		if v > 0 {
			return 314159
		}
		return -314159
	}
	if math.IsNaN(v) {
		return 0
	}
	m, e := math.Frexp(v)
	sign := int64(1)
	if m < 0 {
		sign, m = -1, -m
	}
	var x uint64
	for m != 0 {
		x = ((x << 28) & mod) | x>>(bits-28)
		m *= 268435456.0
		e -= 28
		y := uint64(m)
		m -= float64(y)
		x += y
		if x >= mod {
			x -= mod
		}
	}
	if e >= 0 {
		e = e % bits
	} else {
		e = bits - 1 - ((-1 - e) % bits)
	}
	x = ((x << uint(e)) & mod) | x>>uint(bits-e)
	r := int64(x) * sign
	if r == -1 {
		r = -2
	}
	return r
}

// cset reproduces CPython 3.11's set table so that iteration order matches.
type cset struct {
	keys   []any
	hashes []int64
	state  []byte // 0 empty, 1 active, 2 dummy
	mask   int
	fill   int
	used   int
}

func newCSet() *cset {
	s := &cset{}
	s.alloc(8)
	return s
}

func (s *cset) alloc(n int) {
	s.keys, s.hashes, s.state, s.mask = make([]any, n), make([]int64, n), make([]byte, n), n-1
}

func (s *cset) find(k any, h int64) int {
	mask := uint64(s.mask)
	perturb := uint64(h)
	i := uint64(h) & mask
	for {
		probes := 0
		if i+9 <= mask {
			probes = 9
		}
		for j := i; j <= i+uint64(probes); j++ {
			switch s.state[j] {
			case 0:
				return -1
			case 1:
				if s.hashes[j] == h && value.Equal(s.keys[j], k) {
					return int(j)
				}
			}
		}
		perturb >>= 5
		i = (i*5 + 1 + perturb) & mask
	}
}

func (s *cset) add(k any, h int64) {
	mask := uint64(s.mask)
	perturb := uint64(h)
	i := uint64(h) & mask
	free := -1
	for {
		probes := 0
		if i+9 <= mask {
			probes = 9
		}
		for j := i; j <= i+uint64(probes); j++ {
			switch s.state[j] {
			case 0:
				if free >= 0 {
					s.used++
					s.keys[free], s.hashes[free], s.state[free] = k, h, 1
					return
				}
				s.fill++
				s.used++
				s.keys[j], s.hashes[j], s.state[j] = k, h, 1
				if s.fill*5 < s.mask*3 {
					return
				}
				if s.used > 50000 {
					s.resize(s.used * 2)
				} else {
					s.resize(s.used * 4)
				}
				return
			case 1:
				if s.hashes[j] == h && value.Equal(s.keys[j], k) {
					return
				}
			case 2:
				if free < 0 {
					free = int(j)
				}
			}
		}
		perturb >>= 5
		i = (i*5 + 1 + perturb) & mask
	}
}

func (s *cset) insertClean(k any, h int64) {
	mask := uint64(s.mask)
	perturb := uint64(h)
	i := uint64(h) & mask
	for {
		if s.state[i] == 0 {
			s.keys[i], s.hashes[i], s.state[i] = k, h, 1
			return
		}
		if i+9 <= mask {
			for j := i + 1; j <= i+9; j++ {
				if s.state[j] == 0 {
					s.keys[j], s.hashes[j], s.state[j] = k, h, 1
					return
				}
			}
		}
		perturb >>= 5
		i = (i*5 + 1 + perturb) & mask
	}
}

func (s *cset) resize(minused int) {
	n := 8
	for n <= minused {
		n <<= 1
	}
	if n == 8 && s.mask == 7 && s.fill == s.used {
		return
	}
	oldK, oldH, oldS := s.keys, s.hashes, s.state
	s.alloc(n)
	s.fill = s.used
	for i := range oldK {
		if oldS[i] == 1 {
			s.insertClean(oldK[i], oldH[i])
		}
	}
}

func (s *cset) discard(k any, h int64) bool {
	j := s.find(k, h)
	if j < 0 {
		return false
	}
	s.keys[j], s.hashes[j], s.state[j] = nil, -1, 2
	s.used--
	return true
}

func (s *cset) items() []any {
	out := []any{}
	for i, st := range s.state {
		if st == 1 {
			out = append(out, s.keys[i])
		}
	}
	return out
}

// merge is set_merge: adds every element of o, in o's table order.
func (s *cset) merge(o *cset) {
	if o == s || o.used == 0 {
		return
	}
	if (s.fill+o.used)*5 >= s.mask*3 {
		s.resize((s.used + o.used) * 2)
	}
	if s.fill == 0 && s.mask == o.mask && o.fill == o.used {
		copy(s.keys, o.keys)
		copy(s.hashes, o.hashes)
		copy(s.state, o.state)
		s.fill, s.used = o.fill, o.used
		return
	}
	if s.fill == 0 {
		s.fill, s.used = o.used, o.used
		for i, st := range o.state {
			if st == 1 {
				s.insertClean(o.keys[i], o.hashes[i])
			}
		}
		return
	}
	for i, st := range o.state {
		if st == 1 {
			s.add(o.keys[i], o.hashes[i])
		}
	}
}

func (s *cset) copySet() *cset {
	c := newCSet()
	c.merge(s)
	return c
}

func csetOf(items []any) *cset {
	s := newCSet()
	for _, x := range items {
		s.add(x, pyHash(x))
	}
	return s
}

func cpythonSetOp(op string, x, y []any) []any {
	a, b := csetOf(x), csetOf(y)
	switch op {
	case "union":
		r := a.copySet()
		r.merge(b)
		return r.items()
	case "intersect":
		r := newCSet()
		so, other := a, b
		if other.used > so.used {
			so, other = other, so
		}
		for i, st := range other.state {
			if st == 1 && so.find(other.keys[i], other.hashes[i]) >= 0 {
				r.add(other.keys[i], other.hashes[i])
			}
		}
		return r.items()
	case "difference":
		if a.used>>2 > b.used {
			r := a.copySet()
			for i, st := range b.state {
				if st == 1 {
					r.discard(b.keys[i], b.hashes[i])
				}
			}
			if r.fill-r.used > r.mask/4 {
				if r.used > 50000 {
					r.resize(r.used * 2)
				} else {
					r.resize(r.used * 4)
				}
			}
			return r.items()
		}
		r := newCSet()
		for i, st := range a.state {
			if st == 1 && b.find(a.keys[i], a.hashes[i]) < 0 {
				r.add(a.keys[i], a.hashes[i])
			}
		}
		return r.items()
	}
	r := b.copySet()
	for i, st := range a.state {
		if st == 1 {
			if !r.discard(a.keys[i], a.hashes[i]) {
				r.add(a.keys[i], a.hashes[i])
			}
		}
	}
	return r.items()
}

// filterUnique is Ansible's unique: Jinja2's (case-insensitive by
// default), falling back to an equality-based version for unhashable items.
func filterUnique(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("unique", optNone("case_sensitive"), optNone("attribute")).env().bind(a)
	if err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	key := attrGetter(v[1], !value.Truthy(v[0]), nil)
	seen := map[string]bool{}
	out := []any{}
	for _, it := range items {
		k, err := key(it)
		if err != nil {
			return nil, err
		}
		if u, ok := k.(value.Undefined); ok {
			return nil, undefinedErr(u)
		}
		h, ok := hashKey(k)
		if !ok {
			if b, isB := v[0].(bool); (isB && !b) || v[1] != nil {
				return nil, Errorf("Jinja2's unique filter failed and we cannot fall back to Ansible's version as it does not support the parameters supplied: unhashable type: '%s'", value.TypeName(k))
			}
			return orderedUnique(items), nil
		}
		if !seen[h] {
			seen[h] = true
			out = append(out, it)
		}
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Hashes and strings.

func newHash(name string) (hash.Hash, bool) {
	switch strings.ToLower(name) {
	case "md5":
		return md5.New(), true
	case "sha1":
		return sha1.New(), true
	case "sha224":
		return sha256.New224(), true
	case "sha256":
		return sha256.New(), true
	case "sha384":
		return sha512.New384(), true
	case "sha512":
		return sha512.New(), true
	case "sha512_224":
		return sha512.New512_224(), true
	case "sha512_256":
		return sha512.New512_256(), true
	case "sha3_224":
		return sha3.New224(), true
	case "sha3_256":
		return sha3.New256(), true
	case "sha3_384":
		return sha3.New384(), true
	case "sha3_512":
		return sha3.New512(), true
	}
	return nil, false
}

func hexDigest(name string, in any) (string, error) {
	h, ok := newHash(name)
	if !ok {
		return "", detachedf("unsupported hash type %s", name)
	}
	h.Write([]byte(value.Str(in)))
	return hex.EncodeToString(h.Sum(nil)), nil
}

func filterHash(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("get_hash", opt("hashtype", "sha1")).bind(a)
	if err != nil {
		return nil, err
	}
	return hexDigest(value.Str(v[0]), in)
}

func hashFilter(fn, algo string) FilterFunc {
	return func(_ *Ctx, in any, a *Args) (any, error) {
		if fn == "secure_hash_s" {
			v, err := sigOf(fn, optNone("hash_func")).bind(a)
			if err != nil {
				return nil, err
			}
			if v[0] != nil {
				return nil, typeErrorf("'%s' object is not callable", value.TypeName(v[0]))
			}
		} else if _, err := sigOf(fn).bind(a); err != nil {
			return nil, err
		}
		return hexDigest(algo, in)
	}
}

var shellSafeRe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if shellSafeRe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

func filterQuote(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("quote").bind(a); err != nil {
		return nil, err
	}
	if in == nil {
		return "''", nil
	}
	return shellQuote(value.Str(in)), nil
}

func filterSplit(_ *Ctx, in any, a *Args) (any, error) {
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "sep" && k != "maxsplit" {
				return nil, typeErrorf("'%s' is an invalid keyword argument for split()", k)
			}
		}
	}
	if len(a.Pos) > 2 {
		return nil, typeErrorf("split() takes at most 2 arguments (%d given)", len(a.Pos))
	}
	s, ok := in.(string)
	if !ok {
		return nil, typeErrorf("descriptor 'split' for 'str' objects doesn't apply to a '%s' object", value.TypeName(in))
	}
	if sep, ok := a.Get(0, "sep"); ok && sep != nil {
		ss, isStr := sep.(string)
		if !isStr {
			return nil, typeErrorf("must be str or None, not %s", value.TypeName(sep))
		}
		if ss == "" {
			return nil, typeErrorf("empty separator")
		}
	}
	return pySplit(s, a, false), nil
}

// ---------------------------------------------------------------------------
// Paths.

func pathArg(fn string, in any) (string, error) {
	s, ok := in.(string)
	if !ok {
		return "", typeErrorf("expected str, bytes or os.PathLike object, not %s", value.TypeName(in))
	}
	return s, nil
}

func pathFilter(fn string, f func(string) string) FilterFunc {
	return func(_ *Ctx, in any, a *Args) (any, error) {
		if _, err := sigOf(fn).bind(a); err != nil {
			return nil, err
		}
		s, err := pathArg(fn, in)
		if err != nil {
			return nil, err
		}
		return f(s), nil
	}
}

// pyBasename is posixpath.basename (path.Base strips trailing slashes).
func pyBasename(p string) string { return p[strings.LastIndex(p, "/")+1:] }

func pyDirname(p string) string {
	i := strings.LastIndex(p, "/") + 1
	head := p[:i]
	if head != "" && strings.Trim(head, "/") != "" {
		head = strings.TrimRight(head, "/")
	}
	return head
}

// pyNormpath is posixpath.normpath.
func pyNormpath(p string) string {
	if p == "" {
		return "."
	}
	initial := 0
	if strings.HasPrefix(p, "/") {
		initial = 1
		if strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///") {
			initial = 2
		}
	}
	var comps []string
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." {
			continue
		}
		if c != ".." || (initial == 0 && len(comps) == 0) || (len(comps) > 0 && comps[len(comps)-1] == "..") {
			comps = append(comps, c)
		} else if len(comps) > 0 {
			comps = comps[:len(comps)-1]
		}
	}
	out := strings.Repeat("/", initial) + strings.Join(comps, "/")
	if out == "" {
		return "."
	}
	return out
}

func pyAbspath(p string) string {
	if !strings.HasPrefix(p, "/") {
		wd, _ := os.Getwd()
		p = wd + "/" + p
	}
	return pyNormpath(p)
}

// pyRealpath is os.path.realpath: symlinks resolved as far as they exist.
func pyRealpath(p string) string {
	abs := pyAbspath(p)
	parts := strings.Split(strings.TrimPrefix(abs, "/"), "/")
	resolved := "/"
	for i, part := range parts {
		if part == "" {
			continue
		}
		next := filepath.Join(resolved, part)
		if r, err := filepath.EvalSymlinks(next); err == nil {
			resolved = r
			continue
		}
		return pyNormpath(filepath.Join(append([]string{resolved}, parts[i:]...)...))
	}
	return resolved
}

func filterExpanduser(c *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("expanduser").bind(a); err != nil {
		return nil, err
	}
	s, err := pathArg("expanduser", in)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(s, "~") {
		return s, nil
	}
	i := strings.Index(s, "/")
	if i < 0 {
		i = len(s)
	}
	var home string
	if i == 1 {
		h, ok := c.Engine().Getenv("HOME")
		if !ok {
			u, err := user.Current()
			if err != nil {
				return s, nil
			}
			h = u.HomeDir
		}
		home = h
	} else {
		u, err := user.Lookup(s[1:i])
		if err != nil {
			return s, nil
		}
		home = u.HomeDir
	}
	home = strings.TrimRight(home, "/")
	if home == "" && i == len(s) {
		home = "/"
	}
	return home + s[i:], nil
}

func filterExpandvars(c *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("expandvars").bind(a); err != nil {
		return nil, err
	}
	s, err := pathArg("expandvars", in)
	if err != nil {
		return nil, err
	}
	re := regexp.MustCompile(`\$(\w+|\{[^}]*\})`)
	return re.ReplaceAllStringFunc(s, func(m string) string {
		name := strings.Trim(m[1:], "{}")
		if v, ok := c.Engine().Getenv(name); ok {
			return v
		}
		return m
	}), nil
}

func filterRelpath(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("relpath", optNone("start")).bind(a)
	if err != nil {
		return nil, err
	}
	s, err := pathArg("relpath", in)
	if err != nil {
		return nil, err
	}
	if s == "" {
		return nil, typeErrorf("no path specified")
	}
	start := "."
	if v[0] != nil {
		if start, err = pathArg("relpath", v[0]); err != nil {
			return nil, err
		}
	}
	sp := strings.Split(strings.Trim(pyAbspath(start), "/"), "/")
	pp := strings.Split(strings.Trim(pyAbspath(s), "/"), "/")
	if sp[0] == "" {
		sp = nil
	}
	if pp[0] == "" {
		pp = nil
	}
	i := 0
	for i < len(sp) && i < len(pp) && sp[i] == pp[i] {
		i++
	}
	var rel []string
	for j := i; j < len(sp); j++ {
		rel = append(rel, "..")
	}
	rel = append(rel, pp[i:]...)
	if len(rel) == 0 {
		return ".", nil
	}
	return strings.Join(rel, "/"), nil
}

func pySplitext(p string) (string, string) {
	sep := strings.LastIndex(p, "/")
	dot := strings.LastIndex(p, ".")
	if dot > sep {
		fi := sep + 1
		for fi < dot {
			if p[fi] != '.' {
				return p[:dot], p[dot:]
			}
			fi++
		}
	}
	return p, ""
}

func filterSplitext(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("splitext").bind(a); err != nil {
		return nil, err
	}
	s, err := pathArg("splitext", in)
	if err != nil {
		return nil, err
	}
	r, e := pySplitext(s)
	return value.Tuple{r, e}, nil
}

func pyJoin(parts []string) string {
	out := ""
	for i, p := range parts {
		switch {
		case i == 0 || strings.HasPrefix(p, "/"):
			out = p
		case out == "" || strings.HasSuffix(out, "/"):
			out += p
		default:
			out += "/" + p
		}
	}
	return out
}

func filterPathJoin(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("path_join").bind(a); err != nil {
		return nil, err
	}
	switch x := in.(type) {
	case string:
		return x, nil
	case []any, value.Tuple:
		items, _ := iterate(x)
		if len(items) == 0 {
			return nil, typeErrorf("join() missing 1 required positional argument: 'a'")
		}
		parts := make([]string, len(items))
		for i, it := range items {
			s, ok := it.(string)
			if !ok {
				return nil, typeErrorf("join() argument must be str, bytes, or os.PathLike object, not '%s'", value.TypeName(it))
			}
			parts[i] = s
		}
		return pyJoin(parts), nil
	}
	return nil, Errorf("|path_join expects string or sequence, got %s instead.", pyClassRepr(in))
}

func filterCommonpath(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("commonpath").bind(a); err != nil {
		return nil, err
	}
	var items []any
	switch x := in.(type) {
	case []any:
		items = x
	case value.Tuple:
		items = x
	default:
		return nil, Errorf("|commonpath expects sequence, got %s instead.", pyClassRepr(in))
	}
	if len(items) == 0 {
		return nil, typeErrorf("commonpath() arg is an empty sequence")
	}
	var split [][]string
	abs := -1
	for _, it := range items {
		s, err := pathArg("commonpath", it)
		if err != nil {
			return nil, err
		}
		isAbs := 0
		if strings.HasPrefix(s, "/") {
			isAbs = 1
		}
		if abs >= 0 && abs != isAbs {
			return nil, typeErrorf("Can't mix absolute and relative paths")
		}
		abs = isAbs
		var comps []string
		for _, c := range strings.Split(s, "/") {
			if c != "" && c != "." {
				comps = append(comps, c)
			}
		}
		split = append(split, comps)
	}
	common := split[0]
	for _, s := range split[1:] {
		n := 0
		for n < len(common) && n < len(s) && common[n] == s[n] {
			n++
		}
		common = common[:n]
	}
	prefix := ""
	if abs == 1 {
		prefix = "/"
	}
	return prefix + strings.Join(common, "/"), nil
}

func winSplitdrive(p string) (string, string) {
	if len(p) >= 2 {
		norm := strings.ReplaceAll(p, "/", `\`)
		if strings.HasPrefix(norm, `\\`) && !strings.HasPrefix(norm, `\\\`) {
			idx := strings.Index(norm[2:], `\`)
			if idx < 0 {
				return p, ""
			}
			idx += 2
			idx2 := strings.Index(norm[idx+1:], `\`)
			if idx2 < 0 {
				return p, ""
			}
			idx2 += idx + 1
			if idx2 == idx+1 {
				return "", p
			}
			return p[:idx2], p[idx2:]
		}
		if p[1] == ':' {
			return p[:2], p[2:]
		}
	}
	return "", p
}

func winSplit(p string) (string, string) {
	d, rest := winSplitdrive(p)
	i := len(rest)
	for i > 0 && !strings.ContainsRune(`/\`, rune(rest[i-1])) {
		i--
	}
	head, tail := rest[:i], rest[i:]
	trimmed := strings.TrimRight(head, `/\`)
	if trimmed == "" {
		trimmed = head
	}
	return d + trimmed, tail
}

func filterWinSplitdrive(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("splitdrive").bind(a); err != nil {
		return nil, err
	}
	s, err := pathArg("splitdrive", in)
	if err != nil {
		return nil, err
	}
	d, r := winSplitdrive(s)
	return value.Tuple{d, r}, nil
}

func filterFileglob(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("fileglob").bind(a); err != nil {
		return nil, err
	}
	s, err := pathArg("fileglob", in)
	if err != nil {
		return nil, err
	}
	matches, _ := filepath.Glob(s)
	out := []any{}
	for _, m := range matches {
		if strings.HasPrefix(filepath.Base(m), ".") && !strings.HasPrefix(filepath.Base(s), ".") {
			continue
		}
		if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
			out = append(out, m)
		}
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Data structures.

func filterExtract(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("extract", req("container"), optNone("morekeys")).env().bind(a)
	if err != nil {
		return nil, err
	}
	keys := []any{in}
	switch m := v[1].(type) {
	case nil:
	case []any:
		keys = append(keys, m...)
	default:
		keys = append(keys, m)
	}
	cur := v[0]
	for _, k := range keys {
		if cur, err = getItem(cur, k); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

func filterSubelements(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("subelements", req("subelements"), opt("skip_missing", false)).bind(a)
	if err != nil {
		return nil, err
	}
	var elements []any
	switch x := in.(type) {
	case *value.Dict:
		x.Each(func(_ string, e any) bool { elements = append(elements, e); return true })
	case []any:
		elements = x
	default:
		return nil, Errorf("obj must be a list of dicts or a nested dict")
	}
	var subs []any
	switch s := v[0].(type) {
	case []any:
		subs = s
	case string:
		for _, p := range strings.Split(s, ".") {
			subs = append(subs, p)
		}
	default:
		return nil, Errorf("subelements must be a list or a string")
	}
	out := []any{}
	for _, el := range elements {
		vals := el
		var last any
		for _, sub := range subs {
			last = sub
			d, ok := vals.(*value.Dict)
			if !ok {
				return nil, Errorf("the key %s should point to a dictionary, got '%s'", value.Str(sub), value.Str(vals))
			}
			x, found := d.Get(value.Str(sub))
			if !found {
				if value.Truthy(v[1]) {
					vals = []any{}
					break
				}
				return nil, detachedf("could not find %s key in iterated item %s", value.Repr(sub), value.Repr(vals))
			}
			vals = x
		}
		list, ok := vals.([]any)
		if !ok {
			return nil, Errorf("the key %s should point to a list, got %s", value.Repr(last), value.Repr(vals))
		}
		for _, x := range list {
			out = append(out, value.Tuple{el, x})
		}
	}
	return out, nil
}

// pyTypeName is the Python type name ansible-core reports for a value.
func pyTypeName(v any) string { return value.TypeName(v) }

func filterTypeDebug(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("type_debug").bind(a); err != nil {
		return nil, err
	}
	return pyTypeName(in), nil
}

func filterComment(_ *Ctx, in any, a *Args) (any, error) {
	v, kw, err := sig{fn: "comment", params: []param{opt("style", "plain")}, varkw: true}.bindKw(a)
	if err != nil {
		return nil, err
	}
	text, ok := in.(string)
	if !ok {
		return nil, typeErrorf("'%s' object has no attribute 'replace'", value.TypeName(in))
	}
	styles := map[string]map[string]string{
		"plain":  {"decoration": "# "},
		"erlang": {"decoration": "% "},
		"c":      {"decoration": "// "},
		"cblock": {"beginning": "/*", "decoration": " * ", "end": " */"},
		"xml":    {"beginning": "<!--", "decoration": " - ", "end": "-->"},
	}
	style, _ := v[0].(string)
	sp, ok := styles[style]
	if !ok {
		return nil, Errorf("Invalid style %s.", value.Repr(v[0]))
	}
	prepost := sp["decoration"]
	if kw != nil {
		if d, ok := kw.Get("decoration"); ok {
			prepost = value.Str(d)
		}
	}
	p := map[string]any{
		"newline": "\n", "beginning": "", "prefix": strings.TrimRight(prepost, " \t\n\r\v\f"), "prefix_count": 1,
		"decoration": "", "postfix": strings.TrimRight(prepost, " \t\n\r\v\f"), "postfix_count": 1, "end": "",
	}
	for k, x := range sp {
		p[k] = x
	}
	if kw != nil {
		kw.Each(func(k string, x any) bool { p[k] = x; return true })
	}
	str := func(k string) string { return value.Str(p[k]) }
	count := func(k string) (int, error) {
		switch x := p[k].(type) {
		case string:
			n, ok := pyParseInt(x, 10)
			if !ok {
				return 0, typeErrorf("invalid literal for int() with base 10: %s", value.Repr(x))
			}
			return n, nil
		default:
			n, ok := value.AsInt(x)
			if !ok {
				if f, isF := x.(float64); isF {
					return int(f), nil
				}
				return 0, typeErrorf("int() argument must be a string, a bytes-like object or a real number, not '%s'", value.TypeName(x))
			}
			return n, nil
		}
	}
	nl := str("newline")
	beginning := ""
	if value.Truthy(p["beginning"]) {
		beginning = str("beginning") + nl
	}
	prefix := ""
	if value.Truthy(p["prefix"]) {
		n, err := count("prefix_count")
		if err != nil {
			return nil, err
		}
		if str("prefix") != nl {
			prefix = strings.Repeat(str("prefix")+nl, max(n, 0))
		} else {
			prefix = strings.Repeat(nl, max(n, 0))
		}
	}
	deco := str("decoration")
	body := deco + strings.ReplaceAll(text, nl, nl+deco)
	body = strings.ReplaceAll(body, deco+nl, strings.TrimRight(deco, " \t\n\r\v\f")+nl)
	pc, err := count("postfix_count")
	if err != nil {
		return nil, err
	}
	post := ""
	for i := 0; i < pc; i++ {
		post += nl + str("postfix")
	}
	end := ""
	if value.Truthy(p["end"]) {
		end = nl + str("end")
	}
	return beginning + prefix + body + post + end, nil
}

func filterHumanReadable(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("human_readable", opt("isbits", false), optNone("unit")).bind(a)
	if err != nil {
		return nil, err
	}
	size, ok := value.AsFloat(in)
	if !ok {
		return nil, Errorf("human_readable() failed on bad input: '>=' not supported between instances of '%s' and 'int'", value.TypeName(in))
	}
	units := []struct {
		s string
		l float64
	}{{"Y", 1 << 80}, {"Z", 1 << 70}, {"E", 1 << 60}, {"P", 1 << 50}, {"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	base := "Bytes"
	if value.Truthy(v[0]) {
		base = "bits"
	}
	var unit string
	if v[1] != nil {
		unit = strings.ToUpper(value.Str(v[1]))
	}
	suffix, limit := "", 1.0
	for _, u := range units {
		suffix, limit = u.s, u.l
		if (v[1] == nil && size >= u.l) || (v[1] != nil && unit != "" && unit[:1] == u.s) {
			break
		}
	}
	if limit != 1 {
		suffix += base[:1]
	} else {
		suffix = base
	}
	return fmt.Sprintf("%.2f %s", size/limit, suffix), nil
}

var humanRe = regexp.MustCompile(`^([0-9]*\.?[0-9]+)(?:\s*([A-Za-z]+))?\s*$`)

func filterHumanToBytes(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("human_to_bytes", optNone("default_unit"), opt("isbits", false)).bind(a)
	if err != nil {
		return nil, err
	}
	fail := func(cause string) error {
		return Errorf("human_to_bytes() can't interpret the input: %s", cause)
	}
	m := humanRe.FindStringSubmatch(value.Str(in))
	if m == nil {
		return nil, fail("human_to_bytes() can't interpret following string: " + value.Str(in))
	}
	num, _ := strconv.ParseFloat(m[1], 64)
	unit := m[2]
	if unit == "" && v[0] != nil {
		unit = value.Str(v[0])
	}
	if unit == "" {
		return int(pyRoundFloat(num, 0)), nil
	}
	ranges := map[string]float64{"Y": 1 << 80, "Z": 1 << 70, "E": 1 << 60, "P": 1 << 50, "T": 1 << 40, "G": 1 << 30, "M": 1 << 20, "K": 1 << 10, "B": 1}
	key := strings.ToUpper(unit[:1])
	limit, ok := ranges[key]
	if !ok {
		return nil, fail(fmt.Sprintf("human_to_bytes() failed to convert %s (unit = %s). The suffix must be one of Y, Z, E, P, T, G, M, K, B", value.Str(in), unit))
	}
	if len(unit) > 1 {
		names := map[string][2][2]string{
			"B": {{"byte", "B"}, {"bit", "b"}}, "K": {{"kilobyte", "KB"}, {"kilobit", "Kb"}},
			"M": {{"megabyte", "MB"}, {"megabit", "Mb"}}, "G": {{"gigabyte", "GB"}, {"gigabit", "Gb"}},
			"T": {{"terabyte", "TB"}, {"terabit", "Tb"}}, "P": {{"petabyte", "PB"}, {"petabit", "Pb"}},
			"E": {{"exabyte", "EB"}, {"exabit", "Eb"}}, "Z": {{"zetabyte", "ZB"}, {"zetabit", "Zb"}},
			"Y": {{"yottabyte", "YB"}, {"yottabit", "Yb"}},
		}
		flag := 0
		if value.Truthy(v[1]) {
			flag = 1
		}
		g := names[key][flag]
		if strings.ToLower(unit) != g[0] && unit != g[1] {
			cls, clsName := "B", "byte"
			if flag == 1 {
				cls, clsName = "b", "bit"
			}
			expect := fmt.Sprintf("expect %s%s or %s", key, cls, key)
			if key == "B" {
				expect = fmt.Sprintf("expect %s or %s", cls, clsName)
			}
			return nil, fail(fmt.Sprintf("human_to_bytes() failed to convert %s. Value is not a valid string (%s)", value.Str(in), expect))
		}
	}
	return int(pyRoundFloat(num*limit, 0)), nil
}

// ---------------------------------------------------------------------------
// URLs.

type splitURL struct {
	scheme, netloc, path, query, fragment string
}

// pyURLSplit is urllib.parse.urlsplit.
func pyURLSplit(u string) (splitURL, error) {
	var r splitURL
	u = strings.TrimLeftFunc(u, func(c rune) bool { return c <= ' ' })
	u = strings.NewReplacer("\t", "", "\r", "", "\n", "").Replace(u)
	if i := strings.Index(u, ":"); i > 0 && isASCIIAlpha(u[0]) {
		ok := true
		for _, c := range u[:i] {
			if !(c < 0x80 && (isASCIIAlpha(byte(c)) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')) {
				ok = false
				break
			}
		}
		if ok {
			r.scheme, u = strings.ToLower(u[:i]), u[i+1:]
		}
	}
	if strings.HasPrefix(u, "//") {
		end := len(u)
		for _, c := range "/?#" {
			if j := strings.IndexRune(u[2:], c); j >= 0 && j+2 < end {
				end = j + 2
			}
		}
		r.netloc, u = u[2:end], u[end:]
		if strings.Contains(r.netloc, "[") != strings.Contains(r.netloc, "]") {
			return r, typeErrorf("Invalid IPv6 URL")
		}
	}
	if i := strings.Index(u, "#"); i >= 0 {
		u, r.fragment = u[:i], u[i+1:]
	}
	if i := strings.Index(u, "?"); i >= 0 {
		u, r.query = u[:i], u[i+1:]
	}
	r.path = u
	return r, nil
}

func isASCIIAlpha(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func (r splitURL) dict() (*value.Dict, error) {
	d := value.NewDict(9)
	userinfo, have, hostinfo := "", false, r.netloc
	if i := strings.LastIndex(r.netloc, "@"); i >= 0 {
		userinfo, have, hostinfo = r.netloc[:i], true, r.netloc[i+1:]
	}
	var username, password any
	if have {
		u, p, hasPw := strings.Cut(userinfo, ":")
		username = u
		if hasPw {
			password = p
		}
	}
	var hostname any
	port := ""
	if strings.Contains(hostinfo, "[") {
		_, rest, _ := strings.Cut(hostinfo, "[")
		h, after, _ := strings.Cut(rest, "]")
		hostname = strings.ToLower(h)
		_, port, _ = strings.Cut(after, ":")
	} else {
		h, p, _ := strings.Cut(hostinfo, ":")
		if h != "" {
			hostname = strings.ToLower(h)
		}
		port = p
	}
	var portV any
	if port != "" {
		if !isDigits(port) {
			return nil, typeErrorf("Port could not be cast to integer value as %s", value.Repr(port))
		}
		n, _ := strconv.Atoi(port)
		if n > 65535 {
			return nil, typeErrorf("Port out of range 0-65535")
		}
		portV = n
	}
	d.Set("fragment", r.fragment)
	d.Set("hostname", hostname)
	d.Set("netloc", r.netloc)
	d.Set("password", password)
	d.Set("path", r.path)
	d.Set("port", portV)
	d.Set("query", r.query)
	d.Set("scheme", r.scheme)
	d.Set("username", username)
	return d, nil
}

func filterURLSplit(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("split_url", opt("query", ""), opt("alias", "urlsplit")).bind(a)
	if err != nil {
		return nil, err
	}
	s, ok := in.(string)
	if !ok {
		return nil, typeErrorf("'%s' object has no attribute 'decode'", value.TypeName(in))
	}
	u, err := pyURLSplit(s)
	if err != nil {
		return nil, err
	}
	d, err := u.dict()
	if err != nil {
		return nil, err
	}
	if q := value.Str(v[0]); value.Truthy(v[0]) {
		x, ok := d.Get(q)
		if !ok {
			return nil, typeErrorf("%s: unknown URL component: %s", value.Str(v[1]), q)
		}
		return x, nil
	}
	return d, nil
}

func filterURLDecode(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("unquote_plus").bind(a); err != nil {
		return nil, err
	}
	s, ok := in.(string)
	if !ok {
		return nil, typeErrorf("a bytes-like object is required, not '%s'", value.TypeName(in))
	}
	s = strings.ReplaceAll(s, "+", " ")
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]) {
			n, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			b = append(b, byte(n))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return strings.ToValidUTF8(string(b), "\ufffd"), nil
}

// ---------------------------------------------------------------------------
// Randomness: Python's Mersenne Twister, so seeded results match Ansible.

type pyRandom struct {
	mt  [624]uint32
	idx int
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = 624
}

func (r *pyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(624, len(key))
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = 623; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
	r.idx = 624
}

func (r *pyRandom) uint32() uint32 {
	if r.idx >= 624 {
		for kk := 0; kk < 624; kk++ {
			y := (r.mt[kk] & 0x80000000) | (r.mt[(kk+1)%624] & 0x7fffffff)
			v := r.mt[(kk+397)%624] ^ (y >> 1)
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			r.mt[kk] = v
		}
		r.idx = 0
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

func (r *pyRandom) getrandbits(k int) uint64 {
	if k <= 32 {
		return uint64(r.uint32() >> (32 - k))
	}
	var out uint64
	for shift := 0; k > 0; shift += 32 {
		w := r.uint32()
		if k < 32 {
			w >>= 32 - k
		}
		out |= uint64(w) << shift
		k -= 32
	}
	return out
}

func (r *pyRandom) randbelow(n int) int {
	if n <= 0 {
		return 0
	}
	k := 0
	for x := n; x > 0; x >>= 1 {
		k++
	}
	v := r.getrandbits(k)
	for v >= uint64(n) {
		v = r.getrandbits(k)
	}
	return int(v)
}

// newPyRandom seeds like random.Random(seed).
func newPyRandom(seed any) (*pyRandom, error) {
	var mag []byte // big-endian magnitude
	switch x := seed.(type) {
	case string:
		b := []byte(x)
		sum := sha512.Sum512(b)
		mag = append(append([]byte{}, b...), sum[:]...)
	case bool, int:
		n, _ := value.AsInt(x)
		if n < 0 {
			n = -n
		}
		mag = binary.BigEndian.AppendUint64(nil, uint64(n))
	case float64:
		h := pyHash(x)
		if h < 0 {
			h = -h
		}
		mag = binary.BigEndian.AppendUint64(nil, uint64(h))
	default:
		return nil, typeErrorf("The only supported seed types are: None, int, float, str, bytes, and bytearray.")
	}
	for len(mag) > 0 && mag[0] == 0 {
		mag = mag[1:]
	}
	var key []uint32
	for end := len(mag); end > 0; end -= 4 {
		start := max(end-4, 0)
		var w uint32
		for _, c := range mag[start:end] {
			w = w<<8 | uint32(c)
		}
		key = append(key, w)
	}
	if len(key) == 0 {
		key = []uint32{0}
	}
	r := &pyRandom{}
	r.initByArray(key)
	return r, nil
}

type randSource interface{ randbelow(n int) int }

type sysRandom struct{}

func (sysRandom) randbelow(n int) int {
	if n <= 0 {
		return 0
	}
	return rand.IntN(n)
}

func filterRandom(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("rand", optNone("start"), optNone("step"), optNone("seed")).env().bind(a)
	if err != nil {
		return nil, err
	}
	var r randSource = sysRandom{}
	if v[2] != nil {
		pr, err := newPyRandom(v[2])
		if err != nil {
			return nil, err
		}
		r = pr
	}
	if end, ok := in.(int); ok {
		start, step := 0, 1
		if value.Truthy(v[0]) {
			if start, err = toIndex(v[0]); err != nil {
				return nil, err
			}
		}
		if value.Truthy(v[1]) {
			if step, err = toIndex(v[1]); err != nil {
				return nil, err
			}
		}
		width := end - start
		if step == 1 {
			if width <= 0 {
				return nil, typeErrorf("empty range for randrange() (%d, %d, %d)", start, end, width)
			}
			return start + r.randbelow(width), nil
		}
		var n int
		switch {
		case step > 0:
			n = floorDiv(width+step-1, step)
		case step < 0:
			n = floorDiv(width+step+1, step)
		default:
			return nil, typeErrorf("zero step for randrange()")
		}
		if n <= 0 {
			return nil, typeErrorf("empty range for randrange()")
		}
		return start + step*r.randbelow(n), nil
	}
	switch in.(type) {
	case bool:
		return nil, Errorf("random can only be used on sequences and integers")
	case string, []any, value.Tuple, *value.Dict, *rangeVal:
	default:
		return nil, Errorf("random can only be used on sequences and integers")
	}
	if value.Truthy(v[0]) || value.Truthy(v[1]) {
		return nil, Errorf("start and step can only be used with integer values")
	}
	items, _ := iterate(in)
	if len(items) == 0 {
		return nil, typeErrorf("Cannot choose from an empty sequence")
	}
	i := r.randbelow(len(items))
	if d, ok := in.(*value.Dict); ok {
		return nil, typeErrorf("%d", i+0*d.Len())
	}
	return items[i], nil
}

func filterShuffle(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("randomize_list", optNone("seed")).bind(a)
	if err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return in, nil
	}
	out := append([]any{}, items...)
	var r randSource = sysRandom{}
	if value.Truthy(v[0]) {
		pr, err := newPyRandom(v[0])
		if err != nil {
			return in, nil
		}
		r = pr
	}
	for i := len(out) - 1; i > 0; i-- {
		j := r.randbelow(i + 1)
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Math.

func filterLog(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("logarithm", opt("base", math.E)).bind(a)
	if err != nil {
		return nil, err
	}
	x, ok1 := value.AsFloat(in)
	b, ok2 := value.AsFloat(v[0])
	if !ok1 || !ok2 {
		return nil, Errorf("log() can only be used on numbers")
	}
	if x <= 0 || b <= 0 || b == 1 {
		if b == 1 && x > 0 {
			return nil, typeErrorf("float division by zero")
		}
		return nil, typeErrorf("math domain error")
	}
	if b == 10 {
		return math.Log10(x), nil
	}
	if b == math.E {
		return math.Log(x), nil
	}
	return math.Log(x) / math.Log(b), nil
}

func filterPow(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("power", req("y")).bind(a)
	if err != nil {
		return nil, err
	}
	x, ok1 := value.AsFloat(in)
	y, ok2 := value.AsFloat(v[0])
	if !ok1 || !ok2 {
		return nil, Errorf("pow() can only be used on numbers")
	}
	r := math.Pow(x, y)
	if math.IsNaN(r) {
		return nil, typeErrorf("math domain error")
	}
	return r, nil
}

func filterRoot(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("inversepower", opt("base", 2)).bind(a)
	if err != nil {
		return nil, err
	}
	x, ok1 := value.AsFloat(in)
	b, ok2 := value.AsFloat(v[0])
	if !ok1 || !ok2 || (x < 0 && b == 2) {
		return nil, Errorf("root() can only be used on numbers")
	}
	if b == 2 {
		return math.Sqrt(x), nil
	}
	r := math.Pow(x, 1/b)
	// Go's Pow can miss the exact root of a perfect power by an ulp where
	// C's pow (and so Python's math.pow) returns it exactly.
	if n := math.Round(r); n != r && math.Abs(n-r) < 1e-9*math.Max(1, math.Abs(n)) && math.Pow(n, b) == x {
		return n, nil
	}
	return r, nil
}

func filterProduct(_ *Ctx, in any, a *Args) (any, error) {
	repeat := 1
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "repeat" {
				return nil, typeErrorf("'%s' is an invalid keyword argument for product()", k)
			}
			x, _ := a.Kw.Get(k)
			n, err := toIndex(x)
			if err != nil {
				return nil, err
			}
			repeat = n
		}
	}
	lists, err := zipArgs(in, a)
	if err != nil {
		return nil, err
	}
	var pools [][]any
	for i := 0; i < repeat; i++ {
		pools = append(pools, lists...)
	}
	result := [][]any{{}}
	for _, pool := range pools {
		var next [][]any
		for _, r := range result {
			for _, x := range pool {
				next = append(next, append(append([]any{}, r...), x))
			}
		}
		result = next
	}
	out := make([]any, len(result))
	for i, r := range result {
		out[i] = value.Tuple(r)
	}
	return out, nil
}

func filterPermutations(_ *Ctx, in any, a *Args) (any, error) {
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "r" {
				return nil, typeErrorf("'%s' is an invalid keyword argument for permutations()", k)
			}
		}
	}
	pool, err := iterate(in)
	if err != nil {
		return nil, err
	}
	r := len(pool)
	if x, ok := a.Get(0, "r"); ok && x != nil {
		if r, err = toIndex(x); err != nil {
			return nil, err
		}
	}
	out := []any{}
	if r > len(pool) || r < 0 {
		return out, nil
	}
	var rec func(prefix []any, used []bool)
	rec = func(prefix []any, used []bool) {
		if len(prefix) == r {
			out = append(out, value.Tuple(append([]any{}, prefix...)))
			return
		}
		for i := range pool {
			if !used[i] {
				used[i] = true
				rec(append(prefix, pool[i]), used)
				used[i] = false
			}
		}
	}
	rec(nil, make([]bool, len(pool)))
	return out, nil
}

func filterCombinations(_ *Ctx, in any, a *Args) (any, error) {
	x, ok := a.Get(0, "r")
	if !ok {
		return nil, typeErrorf("combinations() missing required argument 'r' (pos 2)")
	}
	r, err := toIndex(x)
	if err != nil {
		return nil, err
	}
	pool, err := iterate(in)
	if err != nil {
		return nil, err
	}
	out := []any{}
	var rec func(start int, prefix []any)
	rec = func(start int, prefix []any) {
		if len(prefix) == r {
			out = append(out, value.Tuple(append([]any{}, prefix...)))
			return
		}
		for i := start; i < len(pool); i++ {
			rec(i+1, append(prefix, pool[i]))
		}
	}
	if r >= 0 {
		rec(0, nil)
	}
	return out, nil
}

func filterRekeyOnMember(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("rekey_on_member", req("key"), opt("duplicates", "error")).bind(a)
	if err != nil {
		return nil, err
	}
	dup := value.Str(v[1])
	if dup != "error" && dup != "overwrite" {
		return nil, Errorf("duplicates parameter to rekey_on_member has unknown value %s", value.Repr(v[1]))
	}
	var items []any
	switch x := in.(type) {
	case *value.Dict:
		x.Each(func(_ string, e any) bool { items = append(items, e); return true })
	case []any, value.Tuple:
		items, _ = iterate(x)
	default:
		return nil, Errorf("Type is not a valid list, set, or dict")
	}
	out := value.NewDict(len(items))
	for _, it := range items {
		d, ok := it.(*value.Dict)
		if !ok {
			return nil, Errorf("List item is not a valid dict")
		}
		k, ok := d.Get(value.Str(v[0]))
		if !ok {
			return nil, Errorf("Key %s was not found.", value.Repr(v[0]))
		}
		ks := value.Str(k)
		if out.Has(ks) && dup == "error" {
			return nil, Errorf("Key %s is not unique, cannot convert to dict.", value.Repr(k))
		}
		out.Set(ks, it)
	}
	return out, nil
}

func filterToUUID(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("to_uuid", opt("namespace", "361e6d51-faec-444a-9079-341386da8e2e")).bind(a)
	if err != nil {
		return nil, err
	}
	ns := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(value.Str(v[0]), "urn:"), "uuid:"), "}"), "-", "")
	ns = strings.TrimPrefix(ns, "{")
	nsb, err := hex.DecodeString(ns)
	if err != nil || len(nsb) != 16 {
		return nil, detachedf("Invalid value '%s' for 'namespace': badly formed hexadecimal UUID string", value.Str(v[0]))
	}
	h := sha1.New()
	h.Write(nsb)
	h.Write([]byte(value.Str(in)))
	u := h.Sum(nil)[:16]
	u[6] = (u[6] & 0x0f) | 0x50
	u[8] = (u[8] & 0x3f) | 0x80
	s := hex.EncodeToString(u)
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:], nil
}

// ---------------------------------------------------------------------------
// community.general.

func filterDict(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("dict_filter").bind(a); err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	d := value.NewDict(len(items))
	for i, it := range items {
		pair, err := iterate(it)
		if err != nil {
			return nil, typeErrorf("cannot convert dictionary update sequence element #%d to a sequence", i)
		}
		if len(pair) != 2 {
			return nil, typeErrorf("dictionary update sequence element #%d has length %d; 2 is required", i, len(pair))
		}
		if _, ok := hashKey(pair[0]); !ok {
			return nil, typeErrorf("unhashable type: '%s'", value.TypeName(pair[0]))
		}
		d.Set(value.Str(pair[0]), pair[1])
	}
	return d, nil
}

func filterDictKV(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("dict_kv", req("key")).bind(a)
	if err != nil {
		return nil, err
	}
	return value.DictOf(value.Str(v[0]), in), nil
}

func filterListsMergeby(_ *Ctx, in any, a *Args) (any, error) {
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			if k != "recursive" && k != "list_merge" {
				return nil, Errorf("'recursive' and 'list_merge' are the only valid keyword arguments.")
			}
		}
	}
	terms := append([]any{in}, a.Pos...)
	if len(terms) < 2 {
		return nil, Errorf("At least one list and index are needed.")
	}
	index, ok := terms[len(terms)-1].(string)
	if !ok {
		return nil, Errorf("First argument after the lists for lists_mergeby must be string. %s is %s", value.Repr(terms[len(terms)-1]), pyClassRepr(terms[len(terms)-1]))
	}
	var lists []any
	for _, t := range terms[:len(terms)-1] {
		l, ok := t.([]any)
		if !ok {
			return nil, Errorf("All arguments before the argument index for lists_mergeby must be lists. %s is %s", value.Repr(t), pyClassRepr(t))
		}
		lists = append(lists, l)
	}
	recursive, listMerge := false, "replace"
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			x, _ := a.Kw.Get(k)
			switch k {
			case "recursive":
				recursive = value.Truthy(x)
			case "list_merge":
				listMerge = value.Str(x)
			default:
				return nil, Errorf("'recursive' and 'list_merge' are the only valid keyword arguments.")
			}
		}
	}
	merged := value.NewDict(0)
	for _, l := range lists {
		for _, it := range l.([]any) {
			d, ok := it.(*value.Dict)
			if !ok {
				return nil, Errorf("Elements of list arguments for lists_mergeby must be dictionaries. %s is %s", value.Repr(it), pyClassRepr(it))
			}
			k, ok := d.Get(index)
			if !ok {
				continue
			}
			ks := value.Str(k)
			if prev, ok := merged.Get(ks); ok {
				merged.Set(ks, value.MergeHash(prev.(*value.Dict), d, recursive, listMerge))
			} else {
				merged.Set(ks, d)
			}
		}
	}
	keys := append([]string(nil), merged.Keys()...)
	sort.Strings(keys)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i], _ = merged.Get(k)
	}
	return out, nil
}

func filterVersionSort(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("version_sort").bind(a); err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	keys := make([]any, len(items))
	for i, it := range items {
		keys[i] = parseLooseVersion(value.Str(it))
	}
	return sortByKeys(items, keys, false)
}

func filterCounter(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("counter").bind(a); err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	d := value.NewDict(0)
	for _, it := range items {
		k := value.Str(it)
		n, _ := d.Get(k)
		c, _ := n.(int)
		d.Set(k, c+1)
	}
	return d, nil
}

func filterGroupbyAsDict(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("groupby_as_dict", req("attribute")).bind(a)
	if err != nil {
		return nil, err
	}
	items, err := iterate(in)
	if err != nil {
		return nil, err
	}
	d := value.NewDict(len(items))
	for _, it := range items {
		e, ok := it.(*value.Dict)
		if !ok {
			return nil, Errorf("Input is not a sequence of mappings")
		}
		k, ok := e.Get(value.Str(v[0]))
		if !ok {
			return nil, Errorf("Element does not have attribute %s", value.Repr(v[0]))
		}
		d.Set(value.Str(k), it)
	}
	return d, nil
}

// ---------------------------------------------------------------------------
// Regular expressions: Python's re syntax translated to Go's RE2.

// regexKey identifies a compiled pattern in regexCache.
type regexKey struct {
	p                     string
	ignorecase, multiline bool
}

// regexCache memoizes compilePyRegex: roles apply the same few patterns
// to every item of their loops. *regexp.Regexp is safe for concurrent use.
var regexCache sync.Map

// compilePyRegex compiles a Python pattern. Constructs RE2 lacks
// (lookaround, backreferences) fail with an error naming them.
func compilePyRegex(p string, ignorecase, multiline bool) (*regexp.Regexp, error) {
	key := regexKey{p, ignorecase, multiline}
	if re, ok := regexCache.Load(key); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := translatePyRegex(p, ignorecase, multiline)
	if err == nil {
		regexCache.Store(key, re)
	}
	return re, err
}

func translatePyRegex(p string, ignorecase, multiline bool) (*regexp.Regexp, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			switch {
			case n == 'Z' && !inClass:
				b.WriteString(`\z`)
			case n == 'd' || n == 'D' || n == 'w' || n == 'W' || n == 's' || n == 'S':
				b.WriteString(pyClassEscape(n, inClass))
			case n >= '1' && n <= '9' && !inClass:
				return nil, Errorf("backreferences are not supported in regular expressions: %s", p)
			default:
				b.WriteByte(c)
				b.WriteByte(n)
			}
			i++
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		case c == '[' && inClass:
			b.WriteString(`\[`)
		case c == '(' && !inClass && strings.HasPrefix(p[i:], "(?P="):
			return nil, Errorf("backreferences are not supported in regular expressions: %s", p)
		case c == '(' && !inClass && (strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!") || strings.HasPrefix(p[i:], "(?<=") || strings.HasPrefix(p[i:], "(?<!")):
			return nil, Errorf("lookaround assertions are not supported in regular expressions: %s", p)
		default:
			b.WriteByte(c)
		}
	}
	flags := ""
	if ignorecase {
		flags += "i"
	}
	if multiline {
		flags += "m"
	}
	src := b.String()
	if flags != "" {
		src = "(?" + flags + ")" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "error parsing regexp: ")
		return nil, typeErrorf("%s", msg)
	}
	return re, nil
}

// pyClassEscape gives Python's Unicode meaning to \d \w \s.
func pyClassEscape(n byte, inClass bool) string {
	var body string
	neg := false
	switch n {
	case 'd', 'D':
		body, neg = `\p{Nd}`, n == 'D'
	case 'w', 'W':
		body, neg = `\p{L}\p{N}_\p{Mn}`, n == 'W'
	case 's', 'S':
		body, neg = `\s\x{1c}-\x{1f}\x{85}\p{Z}`, n == 'S'
	}
	if inClass {
		if neg {
			// A negated class inside a class cannot be expressed; keep RE2's.
			return `\` + string(n)
		}
		return body
	}
	if neg {
		return "[^" + body + "]"
	}
	return "[" + body + "]"
}

// pyRepl is a parsed Python replacement template.
type pyReplPart struct {
	lit   string
	group int
}

func parsePyRepl(repl string, re *regexp.Regexp) ([]pyReplPart, error) {
	var parts []pyReplPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, pyReplPart{lit: lit.String(), group: -1})
			lit.Reset()
		}
	}
	ngroups := re.NumSubexp()
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' {
			lit.WriteByte(c)
			continue
		}
		if i+1 >= len(repl) {
			return nil, typeErrorf("bad escape (end of pattern) at position %d", i)
		}
		n := repl[i+1]
		switch {
		case n == 'g':
			end := strings.IndexByte(repl[i:], '>')
			if i+2 >= len(repl) || repl[i+2] != '<' || end < 0 {
				return nil, typeErrorf("missing < at position %d", i+2)
			}
			name := repl[i+3 : i+end]
			flush()
			if isDigits(name) {
				g, _ := strconv.Atoi(name)
				if g > ngroups {
					return nil, typeErrorf("invalid group reference %d at position %d", g, i+3)
				}
				parts = append(parts, pyReplPart{group: g})
			} else {
				idx := re.SubexpIndex(name)
				if idx < 0 {
					return nil, typeErrorf("unknown group name '%s'", name)
				}
				parts = append(parts, pyReplPart{group: idx})
			}
			i += end
		case n >= '0' && n <= '9':
			j := i + 1
			for j < len(repl) && j < i+3 && repl[j] >= '0' && repl[j] <= '9' {
				j++
			}
			if n == '0' || (j-i-1 == 3) {
				// octal escape
				k := i + 1
				for k < len(repl) && k < i+4 && repl[k] >= '0' && repl[k] <= '7' {
					k++
				}
				v, _ := strconv.ParseUint(repl[i+1:k], 8, 32)
				lit.WriteRune(rune(v))
				i = k - 1
				continue
			}
			g, _ := strconv.Atoi(repl[i+1 : j])
			if g > ngroups {
				return nil, typeErrorf("invalid group reference %d at position %d", g, i+1)
			}
			flush()
			parts = append(parts, pyReplPart{group: g})
			i = j - 1
		default:
			switch n {
			case 'n':
				lit.WriteByte('\n')
			case 't':
				lit.WriteByte('\t')
			case 'r':
				lit.WriteByte('\r')
			case 'f':
				lit.WriteByte('\f')
			case 'v':
				lit.WriteByte('\v')
			case 'a':
				lit.WriteByte('\a')
			case 'b':
				lit.WriteByte('\b')
			case '\\':
				lit.WriteByte('\\')
			default:
				if isASCIIAlpha(n) {
					return nil, typeErrorf("bad escape \\%c at position %d", n, i)
				}
				lit.WriteByte('\\')
				lit.WriteByte(n)
			}
			i++
		}
	}
	flush()
	return parts, nil
}

func expandPyRepl(parts []pyReplPart, s string, m []int) string {
	var b strings.Builder
	for _, p := range parts {
		if p.group < 0 {
			b.WriteString(p.lit)
			continue
		}
		if m[2*p.group] >= 0 {
			b.WriteString(s[m[2*p.group]:m[2*p.group+1]])
		}
	}
	return b.String()
}

func regexInput(in any) string {
	if s, ok := in.(string); ok {
		return s
	}
	return value.Str(in)
}

func filterRegexReplace(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sig{fn: "regex_replace", inOpt: true, params: []param{opt("pattern", ""), opt("replacement", ""), opt("ignorecase", false), opt("multiline", false), opt("count", 0), opt("mandatory_count", 0)}}.bind(a)
	if err != nil {
		return nil, err
	}
	s := regexInput(in)
	re, err := compilePyRegex(value.Str(v[0]), value.Truthy(v[2]), value.Truthy(v[3]))
	if err != nil {
		return nil, err
	}
	parts, err := parsePyRepl(value.Str(v[1]), re)
	if err != nil {
		return nil, err
	}
	count, err := toIndex(v[4])
	if err != nil {
		return nil, err
	}
	limit := -1
	if count > 0 {
		limit = count
	}
	ms := re.FindAllStringSubmatchIndex(s, limit)
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m[0]])
		b.WriteString(expandPyRepl(parts, s, m))
		last = m[1]
	}
	b.WriteString(s[last:])
	if mc, _ := value.AsInt(v[5]); mc != 0 && mc != len(ms) {
		return nil, Errorf("'%s' should match %d times, but matches %d times in '%s'", value.Str(v[0]), mc, count, s)
	}
	return b.String(), nil
}

var (
	searchGroupNameRe = regexp.MustCompile(`^\\g<(\S+)>`)
	searchGroupNumRe  = regexp.MustCompile(`^\\(\d+)`)
)

func filterRegexSearch(_ *Ctx, in any, a *Args) (any, error) {
	if len(a.Pos) == 0 && !a.Kw.Has("regex") {
		return nil, typeErrorf("regex_search() missing 1 required positional argument: 'regex'")
	}
	var pattern any
	var groupArgs []any
	if len(a.Pos) > 0 {
		pattern, groupArgs = a.Pos[0], a.Pos[1:]
	} else {
		pattern, _ = a.Kw.Get("regex")
	}
	ignorecase, multiline := false, false
	if a.Kw != nil {
		for _, k := range a.Kw.Keys() {
			x, _ := a.Kw.Get(k)
			switch k {
			case "ignorecase":
				ignorecase = value.Truthy(x)
			case "multiline":
				multiline = value.Truthy(x)
			case "regex":
				if len(a.Pos) > 0 {
					return nil, typeErrorf("regex_search() got multiple values for argument 'regex'")
				}
			}
		}
	}
	s := regexInput(in)
	var groups []any
	for _, g := range groupArgs {
		gs, ok := g.(string)
		if !ok {
			return nil, typeErrorf("'%s' object has no attribute 'startswith'", value.TypeName(g))
		}
		switch {
		case strings.HasPrefix(gs, `\g`):
			m := searchGroupNameRe.FindStringSubmatch(gs)
			if m == nil {
				return nil, typeErrorf("'NoneType' object has no attribute 'group'")
			}
			groups = append(groups, m[1])
		case strings.HasPrefix(gs, `\`):
			m := searchGroupNumRe.FindStringSubmatch(gs)
			if m == nil {
				return nil, typeErrorf("'NoneType' object has no attribute 'group'")
			}
			n, _ := strconv.Atoi(m[1])
			groups = append(groups, n)
		default:
			return nil, Errorf("Unknown argument")
		}
	}
	re, err := compilePyRegex(value.Str(pattern), ignorecase, multiline)
	if err != nil {
		return nil, err
	}
	m := re.FindStringSubmatchIndex(s)
	if m == nil {
		return nil, nil
	}
	if len(groups) == 0 {
		return s[m[0]:m[1]], nil
	}
	out := make([]any, 0, len(groups))
	for _, g := range groups {
		idx := -1
		switch x := g.(type) {
		case int:
			idx = x
		case string:
			idx = re.SubexpIndex(x)
			if idx < 0 {
				return nil, typeErrorf("no such group")
			}
		}
		if idx > re.NumSubexp() {
			return nil, typeErrorf("no such group")
		}
		if m[2*idx] < 0 {
			out = append(out, nil)
		} else {
			out = append(out, s[m[2*idx]:m[2*idx+1]])
		}
	}
	return out, nil
}

func filterRegexFindall(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("regex_findall", req("regex"), opt("multiline", false), opt("ignorecase", false)).bind(a)
	if err != nil {
		return nil, err
	}
	s := regexInput(in)
	re, err := compilePyRegex(value.Str(v[0]), value.Truthy(v[2]), value.Truthy(v[1]))
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		grp := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return s[m[2*i]:m[2*i+1]]
		}
		switch n := re.NumSubexp(); n {
		case 0:
			out = append(out, grp(0))
		case 1:
			out = append(out, grp(1))
		default:
			t := make(value.Tuple, n)
			for i := 1; i <= n; i++ {
				t[i-1] = grp(i)
			}
			out = append(out, t)
		}
	}
	return out, nil
}

func filterRegexEscape(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("regex_escape", opt("re_type", "python")).bind(a)
	if err != nil {
		return nil, err
	}
	s := regexInput(in)
	switch value.Str(v[0]) {
	case "python":
		var b strings.Builder
		for _, r := range s {
			if strings.ContainsRune("()[]{}?*+-|^$\\.&~# \t\n\r\v\f", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		return b.String(), nil
	case "posix_basic":
		var b strings.Builder
		for _, r := range s {
			if strings.ContainsRune("].[^$*\\", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		return b.String(), nil
	case "posix_extended":
		return nil, Errorf("Regex type (%s) not yet implemented", value.Str(v[0]))
	}
	return nil, Errorf("Invalid regex type (%s)", value.Str(v[0]))
}

// ---------------------------------------------------------------------------
// Dates.

func filterToDatetime(_ *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("to_datetime", opt("format", "%Y-%m-%d %H:%M:%S")).bind(a)
	if err != nil {
		return nil, err
	}
	s, ok := in.(string)
	if !ok {
		return nil, typeErrorf("strptime() argument 1 must be str, not %s", value.TypeName(in))
	}
	f, ok := v[0].(string)
	if !ok {
		return nil, typeErrorf("strptime() argument 2 must be str, not %s", value.TypeName(v[0]))
	}
	return strptime(s, f)
}

func filterStrftime(c *Ctx, in any, a *Args) (any, error) {
	v, err := sigOf("strftime", optNone("second"), opt("utc", false)).bind(a)
	if err != nil {
		return nil, err
	}
	f, ok := in.(string)
	if !ok {
		return nil, typeErrorf("strftime() argument 1 must be str, not %s", value.TypeName(in))
	}
	t := c.Engine().Now()
	if v[0] != nil {
		sec, err := pyFloat(v[0])
		if err != nil {
			return nil, detachedf("Invalid value for epoch value (%s)", value.Str(v[0]))
		}
		whole := math.Floor(sec)
		t = time.Unix(int64(whole), 0)
	}
	if value.Truthy(v[1]) {
		t = t.UTC()
	} else {
		t = t.Local()
	}
	return strftime(t, f), nil
}

// ---------------------------------------------------------------------------
// IP addresses (ansible.utils.ipaddr and friends).

func filterIPAddr(alias string, version int) FilterFunc {
	return func(c *Ctx, in any, a *Args) (any, error) {
		var params []param
		if alias == "ipaddr" {
			params = []param{opt("query", ""), opt("version", false), opt("alias", "ipaddr")}
		} else {
			params = []param{opt("query", "")}
		}
		v, err := sigOf(alias, params...).bind(a)
		if err != nil {
			if a.Kw != nil {
				for _, k := range a.Kw.Keys() {
					found := false
					for _, p := range params {
						found = found || p.name == k
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
				return nil, Errorf("Unrecognized type <%s> for %s filter <value>", pyClassRepr(in), alias)
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
			c.warn(Warning{Msg: fmt.Sprintf("The value '%s' is not a valid IP address or network, passing this value to ipaddr filter might result in breaking change in future.", value.Str(it))})
		}
	}
}

func filterIPWrap(_ *Ctx, in any, a *Args) (any, error) {
	if _, err := sigOf("ipwrap", opt("query", "")).bind(a); err != nil {
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
	if _, err := sigOf("_ipaddr").bind(a); err != nil {
		return false, err
	}
	_, ok := parseIPNet(value.Str(in))
	return ok, nil
}

func testIPAddress(_ *Ctx, in any, a *Args) (bool, error) {
	if _, err := sigOf("_ip_address").bind(a); err != nil {
		return false, err
	}
	n, ok := parseIPNet(value.Str(in))
	return ok && !n.hasPrefix, nil
}

func testIPVersion(ver int) TestFunc {
	return func(_ *Ctx, in any, a *Args) (bool, error) {
		if _, err := sigOf("_ipv" + strconv.Itoa(ver)).bind(a); err != nil {
			return false, err
		}
		n, ok := parseIPNet(value.Str(in))
		return ok && n.version == ver, nil
	}
}

// ipNet is a netaddr.IPNetwork: an address with a prefix length.
type ipNet struct {
	ip        *big.Int
	prefix    int
	version   int
	hasPrefix bool
}

func (n ipNet) width() int {
	if n.version == 4 {
		return 32
	}
	return 128
}

func (n ipNet) maxInt() *big.Int {
	return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(n.width())), big.NewInt(1))
}

func (n ipNet) hostmask() *big.Int {
	return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(n.width()-n.prefix)), big.NewInt(1))
}

func (n ipNet) netmask() *big.Int { return new(big.Int).Xor(n.maxInt(), n.hostmask()) }
func (n ipNet) network() *big.Int { return new(big.Int).And(n.ip, n.netmask()) }
func (n ipNet) size() *big.Int    { return new(big.Int).Lsh(big.NewInt(1), uint(n.width()-n.prefix)) }
func (n ipNet) broadcast() *big.Int {
	if n.version == 4 && n.width()-n.prefix <= 1 {
		return nil
	}
	return new(big.Int).Or(n.network(), n.hostmask())
}
func (n ipNet) addrStr(v *big.Int) string { return ipString(v, n.version) }
func (n ipNet) String() string            { return n.addrStr(n.ip) + "/" + strconv.Itoa(n.prefix) }

func ipString(v *big.Int, version int) string {
	if version == 4 {
		x := v.Uint64()
		return fmt.Sprintf("%d.%d.%d.%d", x>>24&0xff, x>>16&0xff, x>>8&0xff, x&0xff)
	}
	b := v.FillBytes(make([]byte, 16))
	var words [8]int
	for i := range words {
		words[i] = int(b[2*i])<<8 | int(b[2*i+1])
	}
	base, blen := -1, 0
	for i := 0; i < 8; {
		if words[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && words[j] == 0 {
			j++
		}
		if j-i > blen {
			base, blen = i, j-i
		}
		i = j
	}
	if blen < 2 {
		base = -1
	}
	var sb strings.Builder
	for i := 0; i < 8; i++ {
		if base >= 0 && i >= base && i < base+blen {
			if i == base {
				sb.WriteByte(':')
			}
			continue
		}
		if i != 0 {
			sb.WriteByte(':')
		}
		if i == 6 && base == 0 && (blen == 6 || (blen == 5 && words[5] == 0xffff)) {
			fmt.Fprintf(&sb, "%d.%d.%d.%d", b[12], b[13], b[14], b[15])
			break
		}
		fmt.Fprintf(&sb, "%x", words[i])
	}
	if base >= 0 && base+blen == 8 {
		sb.WriteByte(':')
	}
	return sb.String()
}

func parseIPAddrStr(s string, version int) (*big.Int, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		if version == 4 {
			parts := strings.Split(s, ".")
			if len(parts) >= 1 && len(parts) < 4 {
				for _, p := range parts {
					n, err := strconv.Atoi(p)
					if err != nil || n < 0 || n > 255 || !isDigits(p) {
						return nil, false
					}
				}
				for len(parts) < 4 {
					parts = append(parts, "0")
				}
				return parseIPAddrStr(strings.Join(parts, "."), 4)
			}
		}
		return nil, false
	}
	if version == 4 && !a.Is4() || version == 6 && !a.Is6() {
		return nil, false
	}
	b := a.AsSlice()
	return new(big.Int).SetBytes(b), true
}

// parseIPNet is netaddr.IPNetwork(s): IPv4 first, then IPv6.
func parseIPNet(s string) (ipNet, bool) {
	for _, ver := range []int{4, 6} {
		addr, pfx, has := strings.Cut(s, "/")
		ip, ok := parseIPAddrStr(addr, ver)
		if !ok {
			continue
		}
		n := ipNet{ip: ip, version: ver, hasPrefix: has}
		n.prefix = n.width()
		if has {
			if p, ok := pyParseInt(pfx, 10); ok {
				n.prefix = p
			} else {
				m, ok := parseIPAddrStr(pfx, ver)
				if !ok {
					continue
				}
				full := n.maxInt()
				inv := new(big.Int).Xor(m, full)
				switch {
				case isLowMask(inv):
					n.prefix = n.width() - inv.BitLen()
				case isLowMask(m):
					n.prefix = n.width() - m.BitLen()
				default:
					continue
				}
			}
			if n.prefix < 0 || n.prefix > n.width() {
				continue
			}
		}
		return n, true
	}
	return ipNet{}, false
}

// isLowMask reports whether v is 2^k-1.
func isLowMask(v *big.Int) bool {
	x := new(big.Int).Add(v, big.NewInt(1))
	return new(big.Int).And(x, new(big.Int).Sub(x, big.NewInt(1))).Sign() == 0
}

func inNet(ip *big.Int, version int, cidr string) bool {
	n, _ := parseIPNet(cidr)
	if n.version != version {
		return false
	}
	return new(big.Int).And(ip, n.netmask()).Cmp(n.network()) == 0
}

func inRange(ip *big.Int, version int, lo, hi string) bool {
	if version != 4 {
		return false
	}
	l, _ := parseIPAddrStr(lo, 4)
	h, _ := parseIPAddrStr(hi, 4)
	return ip.Cmp(l) >= 0 && ip.Cmp(h) <= 0
}

func ipIsPrivate(ip *big.Int, ver int) bool {
	if ver == 4 {
		for _, c := range []string{"10.0.0.0/8", "100.64.0.0/10", "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15"} {
			if inNet(ip, 4, c) {
				return true
			}
		}
		if inRange(ip, 4, "239.0.0.0", "239.255.255.255") {
			return true
		}
	} else if inNet(ip, 6, "fc00::/7") || inNet(ip, 6, "fec0::/10") {
		return true
	}
	return ipIsLinkLocal(ip, ver)
}

func ipIsLinkLocal(ip *big.Int, ver int) bool {
	if ver == 4 {
		return inNet(ip, 4, "169.254.0.0/16")
	}
	return inNet(ip, 6, "fe80::/10")
}

func ipIsReserved(ip *big.Int, ver int) bool {
	if ver == 4 {
		for _, c := range []string{"0.0.0.0/8", "192.0.2.0/24", "240.0.0.0/4", "198.51.100.0/24", "203.0.113.0/24", "233.252.0.0/24", "127.0.0.0/8", "192.88.99.0/24"} {
			if inNet(ip, 4, c) {
				return true
			}
		}
		return inRange(ip, 4, "234.0.0.0", "238.255.255.255") || inRange(ip, 4, "225.0.0.0", "231.255.255.255")
	}
	for _, c := range []string{"ff00::/12", "::/8", "100::/8", "200::/7", "400::/6", "800::/5", "1000::/4", "4000::/3", "6000::/3", "8000::/3", "a000::/3", "c000::/3", "e000::/4", "f000::/5", "f800::/6", "fe00::/9"} {
		if inNet(ip, 6, c) {
			return true
		}
	}
	return false
}

func ipIsGlobal(ip *big.Int, ver int) bool {
	if !(ipIsPrivate(ip, ver) || ipIsLinkLocal(ip, ver) || ipIsReserved(ip, ver)) {
		all := true
		for _, c := range []string{"::1/128", "::/128", "::ffff:0:0/96", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32", "2002::/16"} {
			if inNet(ip, ver, c) {
				all = false
			}
		}
		if all {
			return true
		}
	}
	return inRange(ip, ver, "239.0.0.0", "239.255.255.255") || inNet(ip, ver, "233.252.0.0/24") ||
		inRange(ip, ver, "234.0.0.0", "238.255.255.255") || inRange(ip, ver, "225.0.0.0", "231.255.255.255") ||
		inNet(ip, ver, "192.88.99.0/24") || inNet(ip, ver, "192.0.0.9/32") || inNet(ip, ver, "192.0.0.10/32")
}

func ipIsMulticast(ip *big.Int, ver int) bool {
	if ver == 4 {
		return inNet(ip, 4, "224.0.0.0/4")
	}
	return inNet(ip, 6, "ff00::/8")
}

func ipIsLoopback(ip *big.Int, ver int) bool {
	if ver == 4 {
		return inNet(ip, 4, "127.0.0.0/8")
	}
	return ip.Cmp(big.NewInt(1)) == 0
}

var ipaddrQueries = map[string]bool{"": true, "6to4": true, "address": true, "address/prefix": true, "bool": true,
	"broadcast": true, "cidr": true, "cidr_lookup": true, "first_usable": true, "gateway": true, "gw": true,
	"host": true, "host/prefix": true, "hostmask": true, "hostnet": true, "int": true, "ip": true, "ip/prefix": true,
	"ip_netmask": true, "ipv4": true, "ipv6": true, "last_usable": true, "link-local": true, "lo": true,
	"loopback": true, "multicast": true, "net": true, "next_usable": true, "netmask": true, "network": true,
	"network_id": true, "network/prefix": true, "network_netmask": true, "network_wildcard": true, "peer": true,
	"prefix": true, "previous_usable": true, "private": true, "public": true, "range_usable": true, "revdns": true,
	"router": true, "size": true, "size_usable": true, "subnet": true, "type": true, "unicast": true, "v4": true,
	"v6": true, "version": true, "wildcard": true, "wrap": true}

// ipaddrQuery is ansible.utils' ipaddr(value, query, version, alias).
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
	s := value.Str(in)
	var n ipNet
	vtype := ""
	if isDigits(s) {
		v, _ := new(big.Int).SetString(s, 10)
		if version != 6 && v.BitLen() <= 32 {
			n = ipNet{ip: v, version: 4, prefix: 32}
		} else if v.BitLen() <= 128 {
			n = ipNet{ip: v, version: 6, prefix: 128}
		} else {
			return false, nil
		}
		s = n.String()
		vtype = "address"
	} else if p, ok := parseIPNet(s); ok {
		n = p
		vtype = "address"
		if strings.Count(s, "/") == 1 {
			vtype = "network"
		}
	} else {
		addr, pfx, ok := strings.Cut(s, "/")
		a, ok1 := pyParseInt(addr, 10)
		b, ok2 := pyParseInt(pfx, 10)
		if !ok || !ok1 || !ok2 || strings.Contains(pfx, "/") {
			return false, nil
		}
		av := big.NewInt(int64(a))
		switch {
		case a >= 0 && av.BitLen() <= 32 && b >= 0 && b <= 32:
			n = ipNet{ip: av, version: 4, prefix: b}
		case a >= 0 && b >= 0 && b <= 128:
			n = ipNet{ip: av, version: 6, prefix: b}
		default:
			return false, nil
		}
		s = n.String()
		vtype = "network"
	}
	var lookup *ipNet
	if query != "" && (!ipaddrQueries[query] || query == "cidr_lookup") && !isDigits(query) {
		if q, ok := parseIPNet(query); ok && strings.Contains(query, "/") {
			lookup = &q
			query = "cidr_lookup"
		} else if q, ok := parseIPNet(query); ok {
			r, _ := ipaddrQuery(query, "network", 0, alias)
			if value.Truthy(r) {
				lookup = &q
				query = "cidr_lookup"
			}
		}
	}
	if version != 0 && n.version != version {
		return false, nil
	}
	one, two := big.NewInt(1), big.NewInt(2)
	size := n.size()
	ipS := n.addrStr(n.ip)
	notNetwork := n.ip.Cmp(n.network()) != 0
	ipWithPrefix := ipS + "/" + strconv.Itoa(n.prefix)
	firstLast := func() (*big.Int, *big.Int) {
		if size.Cmp(two) == 0 {
			return n.network(), new(big.Int).Or(n.network(), n.hostmask())
		}
		return new(big.Int).Add(n.network(), one), new(big.Int).Sub(new(big.Int).Or(n.network(), n.hostmask()), one)
	}
	needNet := func() error {
		if vtype == "address" {
			return Errorf("Not a network address")
		}
		return nil
	}
	switch query {
	case "":
		if vtype == "address" {
			return ipS, nil
		}
		return n.String(), nil
	case "address", "ip":
		if size.Cmp(one) == 0 || notNetwork || n.broadcast() == nil || n.version == 6 {
			return ipS, nil
		}
		return nil, nil
	case "address/prefix", "gateway", "gw", "host/prefix", "hostnet", "router":
		if size.Cmp(two) > 0 && (!notNetwork || n.ip.Cmp(n.broadcast()) == 0) {
			return false, nil
		}
		return ipWithPrefix, nil
	case "bool":
		return true, nil
	case "broadcast":
		if size.Cmp(two) > 0 {
			return n.addrStr(n.broadcast()), nil
		}
		return nil, nil
	case "cidr":
		return n.String(), nil
	case "cidr_lookup":
		if lookup.version == n.version && new(big.Int).And(n.network(), lookup.netmask()).Cmp(lookup.network()) == 0 && n.prefix >= lookup.prefix {
			return s, nil
		}
		return nil, nil
	case "first_usable":
		if err := needNet(); err != nil {
			return nil, err
		}
		if size.Cmp(two) == 0 {
			return n.addrStr(n.network()), nil
		}
		if size.Cmp(one) > 0 {
			return n.addrStr(new(big.Int).Add(n.network(), one)), nil
		}
		return nil, nil
	case "last_usable":
		if err := needNet(); err != nil {
			return nil, err
		}
		if size.Cmp(one) > 0 {
			_, l := firstLast()
			return n.addrStr(l), nil
		}
		return nil, nil
	case "range_usable":
		if err := needNet(); err != nil {
			return nil, err
		}
		if size.Cmp(one) > 0 {
			f, l := firstLast()
			return n.addrStr(f) + "-" + n.addrStr(l), nil
		}
		return nil, nil
	case "next_usable", "previous_usable":
		if err := needNet(); err != nil {
			return nil, err
		}
		if size.Cmp(one) > 0 {
			f, l := firstLast()
			x := new(big.Int).Add(n.ip, one)
			if query == "previous_usable" {
				x = new(big.Int).Sub(n.ip, one)
			}
			if x.Cmp(f) >= 0 && x.Cmp(l) <= 0 {
				return n.addrStr(x), nil
			}
		}
		return nil, nil
	case "host":
		if size.Cmp(one) == 0 {
			return n.String(), nil
		}
		if notNetwork || n.broadcast() == nil {
			return ipWithPrefix, nil
		}
		return nil, nil
	case "hostmask", "wildcard":
		return n.addrStr(n.hostmask()), nil
	case "int":
		if vtype == "address" {
			if n.ip.IsInt64() {
				return int(n.ip.Int64()), nil
			}
			return n.ip.String(), nil
		}
		return n.ip.String() + "/" + strconv.Itoa(n.prefix), nil
	case "ip/prefix":
		if size.Cmp(two) == 0 || (size.Cmp(one) > 0 && notNetwork) {
			return ipWithPrefix, nil
		}
		return nil, nil
	case "ip_netmask":
		if size.Cmp(two) == 0 || (size.Cmp(one) > 0 && notNetwork) {
			return ipS + " " + n.addrStr(n.netmask()), nil
		}
		return nil, nil
	case "ipv4", "v4":
		if n.version == 4 {
			return s, nil
		}
		v := n.ip
		lim := big.NewInt(0xffffffff)
		mapped := big.NewInt(0xffff00000000)
		switch {
		case v.Cmp(lim) <= 0:
		case v.Cmp(big.NewInt(0xffffffffffff)) <= 0:
			v = new(big.Int).Sub(v, mapped)
		default:
			return false, nil
		}
		return ipString(v, 4) + "/" + strconv.Itoa(n.prefix-96), nil
	case "ipv6", "v6":
		if n.version == 6 {
			return s, nil
		}
		v := new(big.Int).Add(n.ip, big.NewInt(0xffff00000000))
		return ipString(v, 6) + "/" + strconv.Itoa(n.prefix+96), nil
	case "link-local":
		if ipIsLinkLocal(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "lo", "loopback":
		if ipIsLoopback(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "multicast":
		if ipIsMulticast(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "unicast":
		if !ipIsMulticast(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "net":
		if size.Cmp(one) > 0 && !notNetwork {
			return n.addrStr(n.network()) + "/" + strconv.Itoa(n.prefix), nil
		}
		return nil, nil
	case "netmask":
		return n.addrStr(n.netmask()), nil
	case "network", "network_id":
		return n.addrStr(n.network()), nil
	case "network/prefix", "subnet":
		return n.addrStr(n.network()) + "/" + strconv.Itoa(n.prefix), nil
	case "network_netmask":
		return n.addrStr(n.network()) + " " + n.addrStr(n.netmask()), nil
	case "network_wildcard":
		return n.addrStr(n.network()) + " " + n.addrStr(n.hostmask()), nil
	case "peer":
		if err := needNet(); err != nil {
			return nil, err
		}
		switch size.Int64() {
		case 2:
			return n.addrStr(new(big.Int).Xor(n.ip, one)), nil
		case 4:
			switch new(big.Int).Mod(n.ip, big.NewInt(4)).Int64() {
			case 0:
				return nil, Errorf("Network address of /30 has no peer")
			case 3:
				return nil, Errorf("Broadcast address of /30 has no peer")
			}
			return n.addrStr(new(big.Int).Xor(n.ip, big.NewInt(3))), nil
		}
		return nil, Errorf("Not a point-to-point network")
	case "prefix":
		return n.prefix, nil
	case "private":
		if !ipIsGlobal(n.ip, n.version) {
			return s, nil
		}
		return nil, nil
	case "public":
		hostmask := isLowMask(n.ip)
		netmask := isLowMask(new(big.Int).Xor(n.ip, n.maxInt()))
		if !ipIsMulticast(n.ip, n.version) && ipIsGlobal(n.ip, n.version) && !ipIsLoopback(n.ip, n.version) && !netmask && !hostmask {
			return s, nil
		}
		return nil, nil
	case "revdns":
		if n.version == 4 {
			p := strings.Split(ipS, ".")
			return p[3] + "." + p[2] + "." + p[1] + "." + p[0] + ".in-addr.arpa.", nil
		}
		h := fmt.Sprintf("%032x", n.ip)
		var parts []string
		for i := len(h) - 1; i >= 0; i-- {
			parts = append(parts, h[i:i+1])
		}
		return strings.Join(parts, ".") + ".ip6.arpa.", nil
	case "size":
		if size.IsInt64() {
			return int(size.Int64()), nil
		}
		return size.String(), nil
	case "size_usable":
		switch {
		case size.Cmp(one) == 0:
			return 0, nil
		case size.Cmp(two) == 0:
			return 2, nil
		}
		u := new(big.Int).Sub(size, two)
		if u.IsInt64() {
			return int(u.Int64()), nil
		}
		return u.String(), nil
	case "type":
		if size.Cmp(one) == 0 || notNetwork {
			return "address", nil
		}
		return "network", nil
	case "version":
		return n.version, nil
	case "wrap":
		if n.version == 6 {
			if vtype == "address" {
				return "[" + ipS + "]", nil
			}
			return "[" + ipS + "]/" + strconv.Itoa(n.prefix), nil
		}
		return s, nil
	case "6to4":
		if n.version == 4 {
			conv := ipS
			if size.Cmp(one) > 0 && !notNetwork {
				return false, nil
			}
			if ipIsGlobal(n.ip, 4) && !ipIsMulticast(n.ip, 4) || !ipIsGlobal(n.ip, 4) {
				p := strings.Split(conv, ".")
				var b [4]int
				for i := range p {
					b[i], _ = strconv.Atoi(p[i])
				}
				return fmt.Sprintf("2002:%02x%02x:%02x%02x::1/48", b[0], b[1], b[2], b[3]), nil
			}
			return false, nil
		}
		if inNet(n.ip, 6, "2002::/16") && (vtype == "address" || notNetwork) {
			return s, nil
		}
		return false, nil
	}
	if _, ok := pyParseFloat(query); ok {
		if size.Cmp(one) == 0 {
			if vtype == "address" {
				return ipS, nil
			}
			return n.String(), nil
		}
		idx, ok := pyParseInt(query, 10)
		if !ok {
			return false, nil
		}
		bi := big.NewInt(int64(idx))
		if idx < 0 {
			bi.Add(bi, size)
		}
		if bi.Sign() < 0 || bi.Cmp(size) >= 0 {
			return false, nil
		}
		return n.addrStr(new(big.Int).Add(n.network(), bi)) + "/" + strconv.Itoa(n.prefix), nil
	}
	if alias == "" {
		return nil, typeErrorf("unsupported operand type(s) for +: 'NoneType' and 'str'")
	}
	return nil, Errorf("%s: unknown filter type: %s", alias, query)
}
