package lookup

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/settings"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// passwordLookups returns ansible-core's password lookup.
func passwordLookups() template.Library {
	return template.Library{Collection: "ansible.builtin",
		Lookups: map[string]template.LookupFunc{
			"password": lookupPassword,
		},
		LookupOptions: optionsOf("password"),
	}
}

// passwordCharsets are the names of Python's string module constants
// that the chars option expands.
var passwordCharsets = map[string]string{
	"ascii_letters":   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
	"ascii_lowercase": "abcdefghijklmnopqrstuvwxyz",
	"ascii_uppercase": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
	"digits":          "0123456789",
	"hexdigits":       "0123456789abcdefABCDEF",
	"octdigits":       "01234567",
	"punctuation":     "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
	"printable":       "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ \t\n\r\x0b\x0c",
	"whitespace":      " \t\n\r\x0b\x0c",
}

// passwordParams are the key=value parameters a password term may carry.
var passwordParams = map[string]bool{"length": true, "encrypt": true, "chars": true, "ident": true, "seed": true}

// lookupPassword returns, for each term (a path, optionally followed by
// key=value parameters), the password stored in that file, creating the
// file with a new random password when it does not exist. /dev/null
// stores nothing: each call generates a new password (or a reproducible
// one with seed).
func lookupPassword(c *template.Ctx, terms []any, a *template.Args) ([]any, error) {
	out := make([]any, 0, len(terms))
	for _, t := range terms {
		term := value.Str(t)
		relpath, opts, err := passwordTerm(c, term, a)
		if err != nil {
			return nil, err
		}
		pw, err := passwordFor(c, relpath, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, pw)
	}
	return out, nil
}

// passwordTerm splits a term into its path and its options: the
// parameters written in the term replace the keyword arguments entirely,
// as ansible-core's set_options does.
func passwordTerm(c *template.Ctx, term string, a *template.Args) (string, map[string]any, error) {
	relpath, rest, hasParams := strings.Cut(term, " ")
	args := a
	if hasParams {
		params := playbook.ParseKV(rest)
		if raw, ok := params.Get("_raw_params"); ok {
			relpath += " " + value.Str(raw)
			params.Delete("_raw_params")
			if !strings.HasPrefix(term, relpath) {
				return "", nil, template.Errorf("Unrecognized value after key=value parameters given to password lookup")
			}
		}
		var invalid []string
		for _, k := range params.Keys() {
			if !passwordParams[k] {
				invalid = append(invalid, k)
			}
		}
		if len(invalid) > 0 {
			// ansible-core lists a set, in an order that varies between
			// runs; the term's order is one of them.
			return "", nil, template.Errorf("Unrecognized parameter(s) given to password lookup: %s", strings.Join(invalid, ", "))
		}
		if params.Len() > 0 {
			args = &template.Args{Kw: params}
		}
	}
	opts, err := c.LookupOptions("password", args)
	if err != nil {
		return "", nil, err
	}
	if args != a {
		if s, ok := args.Kw.Get("chars"); ok {
			if err := passwordCharsOption(c, opts, value.Str(s)); err != nil {
				return "", nil, err
			}
		}
	}
	return relpath, opts, nil
}

// passwordCharsOption reads chars=... from a term: comma-separated
// specs, ",," standing for a comma.
func passwordCharsOption(c *template.Ctx, opts map[string]any, s string) error {
	var specs []any
	if strings.Contains(s, ",,") {
		specs = append(specs, ",")
	}
	for _, p := range strings.Split(strings.ReplaceAll(s, ",,", ","), ",") {
		if p != "" {
			specs = append(specs, p)
		}
	}
	v, _, err := c.Engine().Settings.Resolve(settings.Label("lookup", "password", "chars"), lookupOptionDefs()["password"]["chars"], specs, true)
	if err != nil {
		return template.OptionErr(err)
	}
	opts["chars"] = v
	return nil
}

// passwordFor reads or creates the password file at relpath (relative to
// the play's directory) and returns its password, encrypted when the
// encrypt option asks for it.
func passwordFor(c *template.Ctx, relpath string, opts map[string]any) (string, error) {
	path := passwordPath(c, relpath)
	length, _ := opts["length"].(int)
	chars := passwordChars(opts["chars"])
	var seed any
	if s, ok := opts["seed"]; ok && s != nil {
		seed = s
	}
	unlock, err := lockPasswordFile(path)
	if err != nil {
		return "", err
	}
	defer unlock()
	stored, exists, err := readPasswordFile(path)
	if err != nil {
		return "", err
	}
	var pw, salt, ident string
	changed := false
	if !exists || path == "/dev/null" {
		pw, err = randomPassword(length, chars, seed)
		if err != nil {
			return "", err
		}
		changed = true
	} else {
		pw, salt, ident = parsePasswordContent(stored)
	}
	encrypt := value.Str(opts["encrypt"])
	if opts["encrypt"] == nil {
		encrypt = ""
	}
	wantIdent, _ := opts["ident"].(string)
	if encrypt != "" && salt == "" {
		changed = true
		salt, err = randomPassword(cryptSaltSize(encrypt), saltChars, nil)
		if err != nil {
			return "", err
		}
	}
	if ident == "" {
		ident = wantIdent
	} else if wantIdent != "" && ident != wantIdent {
		return "", template.Errorf("The ident parameter provided (%s) does not match the stored one (%s).", ident, wantIdent)
	}
	if encrypt != "" && ident == "" {
		if ident = cryptImplicitIdent(encrypt); ident != "" {
			changed = true
		}
	}
	if changed && path != "/dev/null" {
		if err := writePasswordFile(path, formatPasswordContent(pw, salt, encrypt, ident)); err != nil {
			return "", err
		}
	}
	if encrypt != "" {
		return cryptPassword(pw, encrypt, salt, ident)
	}
	return pw, nil
}

// passwordPath is the loader's path_dwim: a path relative to the play's
// directory, quotes removed, ~ and variables expanded.
func passwordPath(c *template.Ctx, relpath string) string {
	relpath = settings.Unquote(relpath)
	if !strings.HasPrefix(relpath, "/") && !strings.HasPrefix(relpath, "~") {
		base := c.SearchPath().Base
		if base == "" {
			base, _ = os.Getwd()
		}
		relpath = filepath.Join(base, relpath)
	}
	return settings.ResolvePath(relpath, "")
}

// passwordChars expands the chars specs: a string constant's name gives
// its characters, anything else is taken as written; quotes are dropped.
func passwordChars(v any) string {
	specs, _ := v.([]any)
	var b strings.Builder
	for _, s := range specs {
		spec := value.Str(s)
		if set, ok := passwordCharsets[spec]; ok {
			spec = set
		}
		b.WriteString(spec)
	}
	return strings.NewReplacer(`"`, "", "'", "").Replace(b.String())
}

// saltChars are the characters of a generated salt.
const saltChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./"

// randomPassword draws length characters of chars, from the system's
// secure source or, with a seed, from Python's seeded generator so that
// the same seed gives ansible-core's password.
func randomPassword(length int, chars string, seed any) (string, error) {
	runes := []rune(chars)
	if len(runes) == 0 {
		return "", template.Errorf("Cannot choose from an empty sequence")
	}
	var src py.RandSource = py.SystemRandom{}
	if seed != nil {
		r, err := py.NewRandom(seed)
		if err != nil {
			return "", err
		}
		src = r
	}
	out := make([]rune, max(length, 0))
	for i := range out {
		out[i] = runes[src.Randbelow(len(runes))]
	}
	return string(out), nil
}

// readPasswordFile returns a password file's content without trailing
// whitespace, and whether it exists.
func readPasswordFile(path string) (string, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, template.Errorf("%s", py.OSErrorText(err, path))
	}
	return strings.TrimRightFunc(string(b), py.IsSpace), true, nil
}

// parsePasswordContent splits "password salt=S ident=I".
func parsePasswordContent(content string) (pw, salt, ident string) {
	pw = content
	i := strings.LastIndex(content, " salt=")
	if i < 0 {
		return pw, "", ""
	}
	pw, rest := content[:i], content[i+len(" salt="):]
	if j := strings.LastIndex(rest, " ident="); j >= 0 {
		return pw, rest[:j], rest[j+len(" ident="):]
	}
	return pw, rest, ""
}

// formatPasswordContent is what a password file stores: the password in
// clear, with the salt (and ident) an encrypted password needs to stay
// the same.
func formatPasswordContent(pw, salt, encrypt, ident string) string {
	switch {
	case encrypt == "" && salt == "":
		return pw
	case ident != "":
		return pw + " salt=" + salt + " ident=" + ident
	}
	return pw + " salt=" + salt
}

// writePasswordFile stores content with mode 0600, creating the
// directory (mode 0700) as needed.
func writePasswordFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return template.Errorf("%s", py.OSErrorText(err, filepath.Dir(path)))
	}
	if err := os.WriteFile(path, []byte(content+"\n"), 0o600); err != nil {
		return template.Errorf("%s", py.OSErrorText(err, path))
	}
	return os.Chmod(path, 0o600)
}

// lockPasswordFile takes the lock file ansible-core uses beside a
// password file, so that concurrent runs do not both create it, and
// returns the function that releases it. When another run holds the lock,
// it waits for its release as ansible-core does (1, 2 then 4 seconds)
// and goes on without taking it.
func lockPasswordFile(path string) (func(), error) {
	if path == "/dev/null" {
		return func() {}, nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, template.Errorf("%s", py.OSErrorText(err, dir))
	}
	sum := sha1.Sum([]byte(path))
	lock := filepath.Join(dir, hex.EncodeToString(sum[:])+".ansible_lockfile")
	if f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
		return func() { os.Remove(lock) }, nil
	}
	for wait := 0; pathExists(lock); wait++ {
		time.Sleep(time.Second << wait)
		if wait >= 2 {
			return nil, template.Errorf("Password lookup cannot get the lock in 7 seconds, abort..."+
				"This may caused by un-removed lockfile"+
				"you can manually remove it from controller machine at %s and try again", lock)
		}
	}
	return func() {}, nil
}

func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// cryptSaltSizes are the salt lengths of the hash schemes ansible-core
// knows; others get 8 characters.
var cryptSaltSizes = map[string]int{"md5_crypt": 8, "bcrypt": 22, "sha256_crypt": 16, "sha512_crypt": 16}

func cryptSaltSize(scheme string) int {
	if n, ok := cryptSaltSizes[scheme]; ok {
		return n
	}
	return 8
}

// cryptImplicitIdent is the ident a scheme uses when none is given.
func cryptImplicitIdent(scheme string) string {
	if scheme == "bcrypt" {
		return "2b"
	}
	return ""
}

// cryptPassword hashes a password for the encrypt option. ansible-core
// does it with passlib, which the reference installation lacks; like it,
// cfzt-runner stores the salt and then fails.
func cryptPassword(_, _, _, _ string) (string, error) {
	return "", template.Errorf("Unable to encrypt nor hash, passlib must be installed: No module named 'passlib'")
}
