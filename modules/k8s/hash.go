package k8s

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// appendHash is the k8s module's append_hash for a ConfigMap or Secret
// definition (kubernetes.core's module_utils/hashes.py, after
// kubectl's ConfigMapHash/SecretHash): it appends "-HASH" to
// metadata.name, or to metadata.generateName when the name is empty,
// and returns the new name ("" when only generateName changed).
//
// The hash is the first ten hex digits of the SHA-256 of the compact,
// ASCII-escaped JSON of {data, kind, name|generateName[, type]} in that
// order (data with its mappings' keys sorted, a missing field as ""),
// with the digits 0, 1 and 3 and the letters a and e replaced by g, h,
// k, m and t so that the suffix has no vowels or confusable digits.
func appendHash(def *value.Dict, md *value.Dict, name string) (string, error) {
	key, id := "name", any(name)
	if name == "" {
		if gen, ok := md.Get("generateName"); ok && value.Truthy(gen) {
			key, id = "generateName", gen
		}
	}
	fields := []string{"data", "kind", key}
	if value.Str(field(def, "kind")) == "Secret" {
		fields = append(fields, "type")
	}
	doc := value.NewDict(len(fields))
	for _, f := range fields {
		var v any = ""
		switch {
		case f == key:
			v = id
		case def.Has(f):
			v, _ = def.Get(f)
		}
		doc.Set(f, sortedMappings(v))
	}
	js, err := py.JSONDumps(doc, py.JSONDumpOptions{ItemSep: ",", KeySep: ":", EnsureASCII: true, SepsSet: true})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(js))
	suffix := strings.NewReplacer("0", "g", "1", "h", "3", "k", "a", "m", "e", "t").Replace(hex.EncodeToString(sum[:])[:10])
	if key == "generateName" {
		md.Set("generateName", value.Str(id)+"-"+suffix)
		return "", nil
	}
	name = name + "-" + suffix
	md.Set("name", name)
	return name, nil
}

// sortedMappings copies v with the keys of every mapping sorted, as
// hashes.py's sorted_dict does (it does not look inside lists).
func sortedMappings(v any) any {
	d, ok := v.(*value.Dict)
	if !ok {
		return v
	}
	keys := append([]string(nil), d.Keys()...)
	sort.Strings(keys)
	out := value.NewDict(len(keys))
	for _, k := range keys {
		e, _ := d.Get(k)
		out.Set(k, sortedMappings(e))
	}
	return out
}
