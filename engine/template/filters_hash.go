package template

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// hashFilters returns ansible-core's hash and UUID filters.
func hashFilters() Library {
	return Library{Collection: "ansible.builtin", Filters: map[string]FilterFunc{
		"checksum": hashFilter("secure_hash_s", "sha1"),
		"hash":     filterHash,
		"md5":      hashFilter("md5s", "md5"),
		"sha1":     hashFilter("secure_hash_s", "sha1"),
		"to_uuid":  filterToUUID,
	}}
}

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
		return "", Detachedf("unsupported hash type %s", name)
	}
	h.Write([]byte(value.Str(in)))
	return hex.EncodeToString(h.Sum(nil)), nil
}

func filterHash(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("get_hash", py.Opt("hashtype", "sha1")).Bind(a)
	if err != nil {
		return nil, err
	}
	return hexDigest(value.Str(v[0]), in)
}

func hashFilter(fn, algo string) FilterFunc {
	return func(_ *Ctx, in any, a *Args) (any, error) {
		if fn == "secure_hash_s" {
			v, err := py.Sig(fn, py.OptNone("hash_func")).Bind(a)
			if err != nil {
				return nil, err
			}
			if v[0] != nil {
				return nil, TypeErrorf("'%s' object is not callable", value.TypeName(v[0]))
			}
		} else if _, err := py.Sig(fn).Bind(a); err != nil {
			return nil, err
		}
		return hexDigest(algo, in)
	}
}

func filterToUUID(_ *Ctx, in any, a *Args) (any, error) {
	v, err := py.Sig("to_uuid", py.Opt("namespace", "361e6d51-faec-444a-9079-341386da8e2e")).Bind(a)
	if err != nil {
		return nil, err
	}
	ns := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(value.Str(v[0]), "urn:"), "uuid:"), "}"), "-", "")
	ns = strings.TrimPrefix(ns, "{")
	nsb, err := hex.DecodeString(ns)
	if err != nil || len(nsb) != 16 {
		return nil, Detachedf("Invalid value '%s' for 'namespace': badly formed hexadecimal UUID string", value.Str(v[0]))
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
