package py

import (
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// SplitResult is urllib.parse.SplitResult.
type SplitResult struct {
	Scheme, Netloc, Path, Query, Fragment string
}

// URLSplit is urllib.parse.urlsplit.
func URLSplit(u string) (SplitResult, error) {
	var r SplitResult
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
			r.Scheme, u = strings.ToLower(u[:i]), u[i+1:]
		}
	}
	if strings.HasPrefix(u, "//") {
		end := len(u)
		for _, c := range "/?#" {
			if j := strings.IndexRune(u[2:], c); j >= 0 && j+2 < end {
				end = j + 2
			}
		}
		r.Netloc, u = u[2:end], u[end:]
		if strings.Contains(r.Netloc, "[") != strings.Contains(r.Netloc, "]") {
			return r, Errorf("Invalid IPv6 URL")
		}
	}
	if i := strings.Index(u, "#"); i >= 0 {
		u, r.Fragment = u[:i], u[i+1:]
	}
	if i := strings.Index(u, "?"); i >= 0 {
		u, r.Query = u[:i], u[i+1:]
	}
	r.Path = u
	return r, nil
}

func isASCIIAlpha(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// Dict returns the result's attributes as Ansible's urlsplit filter gives
// them, with the errors of the port attribute.
func (r SplitResult) Dict() (*value.Dict, error) {
	d := value.NewDict(9)
	userinfo, have, hostinfo := "", false, r.Netloc
	if i := strings.LastIndex(r.Netloc, "@"); i >= 0 {
		userinfo, have, hostinfo = r.Netloc[:i], true, r.Netloc[i+1:]
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
		if !IsDigits(port) {
			return nil, Errorf("Port could not be cast to integer value as %s", value.Repr(port))
		}
		n, _ := strconv.Atoi(port)
		if n > 65535 {
			return nil, Errorf("Port out of range 0-65535")
		}
		portV = n
	}
	d.Set("fragment", r.Fragment)
	d.Set("hostname", hostname)
	d.Set("netloc", r.Netloc)
	d.Set("password", password)
	d.Set("path", r.Path)
	d.Set("port", portV)
	d.Set("query", r.Query)
	d.Set("scheme", r.Scheme)
	d.Set("username", username)
	return d, nil
}

// UnquotePlus is urllib.parse.unquote_plus: '+' is a space and %XX escapes
// are decoded, invalid UTF-8 becoming U+FFFD.
func UnquotePlus(s string) string {
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
	return strings.ToValidUTF8(string(b), "\ufffd")
}
