package lookup

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// dataFileLookups returns ansible-core's lookups that read one value out
// of a data file on the search path: csvfile, ini and unvault.
func dataFileLookups() template.Library {
	return template.Library{Collection: "ansible.builtin",
		Lookups: map[string]template.LookupFunc{
			"csvfile": lookupCSVFile,
			"ini":     lookupINI,
			"unvault": lookupUnvault,
		},
		LookupOptions: optionsOf("csvfile", "ini"),
	}
}

// lookupCSVFile returns, for each term (the key, optionally followed by
// k=v options that stay set for later terms), column col of the first
// row whose column keycol is the key, or the default option.
func lookupCSVFile(c *template.Ctx, terms []any, a *template.Args) ([]any, error) {
	if len(terms) == 0 {
		return nil, template.Errorf("Search key is required but was not found")
	}
	kw := kwCopy(a)
	var out []any
	for _, t := range terms {
		kv := playbook.ParseKV(value.Str(t))
		key, ok := kv.Get("_raw_params")
		if !ok {
			return nil, template.Errorf("Search key is required but was not found")
		}
		kv.Delete("_raw_params")
		for _, k := range kv.Keys() {
			if _, known := lookupOptionDefs()["csvfile"][k]; !known {
				return nil, template.Errorf("%s is not a valid option", value.Repr(k))
			}
			v, _ := kv.Get(k)
			kw.Set(k, v)
		}
		opts, err := c.LookupOptions("csvfile", &template.Args{Kw: kw})
		if err != nil {
			return nil, err
		}
		delim := value.Str(opts["delimiter"])
		if delim == "TAB" || delim == `\t` {
			delim = "\t"
		}
		path := c.FindFileWarn("files", value.Str(opts["file"]))
		if path == "" {
			return nil, template.Errorf("expected str, bytes or os.PathLike object, not NoneType")
		}
		v, err := csvColumn(path, value.Str(key), delim, opts)
		if err != nil {
			return nil, err
		}
		if v != nil {
			out = append(out, v)
		}
	}
	return out, nil
}

// csvColumn reads the CSV file at path (Excel dialect, as Python's csv
// module reads it) for the row whose keycol column is key.
func csvColumn(path, key, delim string, opts map[string]any) (any, error) {
	if len([]rune(delim)) != 1 {
		return nil, template.Errorf(`"delimiter" must be a 1-character string`)
	}
	src, err := readTextFile(path)
	if err != nil {
		return nil, template.Errorf("%s", err.Error())
	}
	col, _ := opts["col"].(int)
	keycol, _ := opts["keycol"].(int)
	r := csv.NewReader(strings.NewReader(src))
	r.Comma = []rune(delim)[0]
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	for {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			return opts["default"], nil
		}
		if err != nil {
			return nil, template.Errorf("%s", err.Error())
		}
		if len(row) == 0 || keycol >= len(row) || row[keycol] != key {
			continue
		}
		if col < 0 || col >= len(row) {
			return nil, template.Errorf("list index out of range")
		}
		return row[col], nil
	}
}

// lookupUnvault returns the text of each file the terms name, found under
// files/ on the search path, decrypted when it is vault-encrypted.
func lookupUnvault(c *template.Ctx, terms []any, _ *template.Args) ([]any, error) {
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		name := value.Str(t)
		p := c.FindFileWarn("files", name)
		if p == "" {
			return nil, template.Errorf("Unable to find file matching \"%s\" ", name)
		}
		s, err := readVaultedText(c, p)
		if err != nil {
			var ve *vaultFileError
			if errors.As(err, &ve) {
				return nil, ve
			}
			return nil, template.Errorf("%s", err.Error())
		}
		out = append(out, s)
	}
	return out, nil
}

// kwCopy is a copy of a lookup's keyword arguments, to add options to.
func kwCopy(a *template.Args) *value.Dict {
	if a == nil || a.Kw == nil {
		return value.NewDict(0)
	}
	return a.Kw.Copy()
}

// lookupINI returns, for each term, the value of that key in a section
// of an INI (or Java properties) file, as ansible-core reads it with
// Python's configparser: keys without case unless case_sensitive, the
// DEFAULT section's values in every section, %(name)s interpolation, and
// with re=true every value whose key the term matches. Options written
// in a term (key opt=value ...) stay set for the later terms.
func lookupINI(c *template.Ctx, terms []any, a *template.Args) ([]any, error) {
	kw := kwCopy(a)
	var out []any
	for _, t := range terms {
		term := value.Str(t)
		key := term
		if strings.Contains(term, "=") || strings.Contains(strings.TrimSpace(term), " ") {
			k, err := iniInlineParams(term, kw)
			if err != nil {
				return nil, err
			}
			key = k
		}
		opts, err := c.LookupOptions("ini", &template.Args{Kw: kw})
		if err != nil {
			return nil, err
		}
		vals, err := iniValues(c, key, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, vals...)
	}
	return out, nil
}

// iniInlineParams reads the key and the options of an ini term written
// as "key opt=value ...", as ansible-core's _parse_params splits it: a
// word without '=' continues the option before it.
func iniInlineParams(term string, kw *value.Dict) (string, error) {
	defs := lookupOptionDefs()["ini"]
	params := map[string]string{}
	var keys []string
	current := "key"
	for i, phrase := range strings.Fields(term) {
		if strings.Contains(phrase, "=") {
			for _, k := range iniOptionOrder {
				if strings.Contains(phrase, k+"=") {
					current = k
				}
			}
		}
		if i == 0 || params[current] == "" {
			params[current] = phrase
			keys = append(keys, current)
		} else {
			params[current] += " " + phrase
		}
	}
	key, gotKey := "", false
	for _, k := range keys {
		param := params[k]
		if !strings.Contains(param, "=") {
			if !gotKey {
				key, gotKey = param, true
			}
			continue
		}
		parts := strings.Split(param, "=")
		if len(parts) != 2 {
			return "", template.Errorf("Could not use %s from %s.", value.Repr(param), value.Repr(iniParamList(keys, params)))
		}
		if _, ok := defs[parts[0]]; !ok {
			return "", template.Errorf("%s is not a valid option.", value.Repr(parts[0]))
		}
		kw.Set(parts[0], parts[1])
	}
	if !gotKey {
		return "", template.Errorf("No key to look up was provided as first term within string inline options: %s", term)
	}
	return key, nil
}

// iniOptionOrder is the order ansible-core checks the ini options in
// when it splits an inline term.
var iniOptionOrder = []string{"type", "file", "section", "re", "encoding", "default", "case_sensitive", "allow_no_value", "interpolation"}

func iniParamList(keys []string, params map[string]string) []any {
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = params[k]
	}
	return out
}

// iniValues reads the file the options name and returns the key's value
// (or, with re, every matching key's) in the section.
func iniValues(c *template.Ctx, key string, opts map[string]any) ([]any, error) {
	file := value.Str(opts["file"])
	path := c.FindFileWarn("files", file)
	if path == "" {
		return nil, template.Errorf("expected str, bytes or os.PathLike object, not NoneType")
	}
	src, err := readTextFile(path)
	if err != nil {
		return nil, template.Errorf("%s", err.Error())
	}
	section := value.Str(opts["section"])
	if opts["type"] == "properties" {
		src = "[java_properties]\n" + src
		section = "java_properties"
	}
	caseSensitive := value.Truthy(opts["case_sensitive"])
	cp, err := py.ParseConfig(src, caseSensitive, value.Truthy(opts["allow_no_value"]))
	if err != nil {
		var ce *py.ConfigError
		if errors.As(err, &ce) && ce.Duplicate {
			return nil, template.Errorf("Duplicate option in %s.", value.Repr(file))
		}
		return nil, template.Errorf("%s", err.Error())
	}
	sec, ok := cp.Section(section)
	if !ok {
		return nil, template.Errorf("No section %s in %s.", value.Repr(section), value.Repr(file))
	}
	interp := value.Truthy(opts["interpolation"])
	if value.Truthy(opts["re"]) {
		re, err := py.CompileRegex(key, false, false)
		if err != nil {
			return nil, template.Errorf("%s", err.Error())
		}
		var out []any
		for _, k := range sec.Items() {
			loc, err := re.FindStringIndex(k)
			if err != nil {
				return nil, template.Errorf("%s", err.Error())
			}
			if loc != nil && loc[0] == 0 {
				v, err := sec.Get(k, interp)
				if err != nil {
					return nil, template.Errorf("%s", err.Error())
				}
				out = append(out, v)
			}
		}
		return out, nil
	}
	if !caseSensitive {
		key = strings.ToLower(key)
	}
	if !sec.Has(key) {
		return []any{opts["default"]}, nil
	}
	v, err := sec.Get(key, interp)
	if err != nil {
		return nil, template.Errorf("%s", err.Error())
	}
	if v == nil {
		return nil, nil
	}
	return []any{v}, nil
}
