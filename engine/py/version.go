package py

import (
	"cmp"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

type verErr string

func (e verErr) Error() string { return string(e) }

// CompareVersions compares version strings a and b as Ansible's version
// test does for kind loose, strict, semver (or semantic) or pep440.
func CompareVersions(kind, a, b string) (int, error) {
	switch kind {
	case "strict":
		x, err := parseStrictVersion(a)
		if err != nil {
			return 0, err
		}
		y, err := parseStrictVersion(b)
		if err != nil {
			return 0, err
		}
		return cmpStrict(x, y), nil
	case "semver", "semantic":
		x, err := parseSemver(a)
		if err != nil {
			return 0, err
		}
		y, err := parseSemver(b)
		if err != nil {
			return 0, err
		}
		return cmpSemver(x, y), nil
	case "pep440":
		x, err := parsePEP440(a)
		if err != nil {
			return 0, err
		}
		y, err := parsePEP440(b)
		if err != nil {
			return 0, err
		}
		return cmpPEP440(x, y), nil
	}
	x, y := LooseVersion(a), LooseVersion(b)
	if value.Equal(x, y) {
		return 0, nil
	}
	n, err := value.Compare(x, y)
	if err != nil {
		return 0, err
	}
	return n, nil
}

var looseComponentRe = regexp.MustCompile(`\d+|[a-z]+|\.`)

// LooseVersion is distutils' LooseVersion(s).version: numbers and words.
func LooseVersion(s string) []any {
	var parts []string
	last := 0
	for _, m := range looseComponentRe.FindAllStringIndex(s, -1) {
		parts = append(parts, s[last:m[0]], s[m[0]:m[1]])
		last = m[1]
	}
	parts = append(parts, s[last:])
	out := []any{}
	for _, p := range parts {
		if p == "" || p == "." {
			continue
		}
		if n, ok := ParseInt(p, 10); ok {
			out = append(out, n)
		} else {
			out = append(out, p)
		}
	}
	return out
}

var strictVersionRe = regexp.MustCompile(`^(\d+)\.(\d+)(\.(\d+))?([ab](\d+))?$`)

type strictVersion struct {
	v   [3]int
	pre string
	pn  int
}

func parseStrictVersion(s string) (strictVersion, error) {
	m := strictVersionRe.FindStringSubmatch(s)
	if m == nil {
		return strictVersion{}, verErr("invalid version number '" + s + "'")
	}
	var sv strictVersion
	sv.v[0], _ = strconv.Atoi(m[1])
	sv.v[1], _ = strconv.Atoi(m[2])
	if m[4] != "" {
		sv.v[2], _ = strconv.Atoi(m[4])
	}
	if m[5] != "" {
		sv.pre = m[5][:1]
		sv.pn, _ = strconv.Atoi(m[6])
	}
	return sv, nil
}

func cmpStrict(a, b strictVersion) int {
	for i := 0; i < 3; i++ {
		if c := cmp.Compare(a.v[i], b.v[i]); c != 0 {
			return c
		}
	}
	switch {
	case a.pre == "" && b.pre == "":
		return 0
	case a.pre != "" && b.pre == "":
		return -1
	case a.pre == "" && b.pre != "":
		return 1
	}
	if c := strings.Compare(a.pre, b.pre); c != 0 {
		return c
	}
	return cmp.Compare(a.pn, b.pn)
}

var semverRe = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

type semver struct {
	core [3]int
	pre  []string
}

func parseSemver(s string) (semver, error) {
	m := semverRe.FindStringSubmatch(s)
	if m == nil {
		return semver{}, verErr("invalid semantic version '" + s + "'")
	}
	var v semver
	for i := 0; i < 3; i++ {
		v.core[i], _ = strconv.Atoi(m[i+1])
	}
	if m[4] != "" {
		v.pre = strings.Split(m[4], ".")
	}
	return v, nil
}

func cmpSemver(a, b semver) int {
	for i := 0; i < 3; i++ {
		if c := cmp.Compare(a.core[i], b.core[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(a.pre) == 0 && len(b.pre) == 0:
		return 0
	case len(a.pre) > 0 && len(b.pre) == 0:
		return -1
	case len(a.pre) == 0:
		return 1
	}
	return cmpMixedParts(a.pre, b.pre, true)
}

var pep440Re = regexp.MustCompile(`(?i)^\s*v?(?:(\d+)!)?(\d+(?:\.\d+)*)(?:[-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?(\d+)?)?(?:-(\d+)|[-_.]?(post|rev|r)[-_.]?(\d+)?)?(?:[-_.]?(dev)[-_.]?(\d+)?)?(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$`)

type pep440 struct {
	epoch   int
	release []int
	preK    int // -1 none, 0 a, 1 b, 2 rc
	preN    int
	post    int // -1 none
	dev     int // -1 none
	local   []string
}

func parsePEP440(s string) (pep440, error) {
	m := pep440Re.FindStringSubmatch(s)
	if m == nil {
		return pep440{}, verErr("Invalid version: '" + s + "'")
	}
	v := pep440{preK: -1, post: -1, dev: -1}
	v.epoch, _ = strconv.Atoi(m[1])
	for _, p := range strings.Split(m[2], ".") {
		n, _ := strconv.Atoi(p)
		v.release = append(v.release, n)
	}
	if m[3] != "" {
		switch strings.ToLower(m[3]) {
		case "a", "alpha":
			v.preK = 0
		case "b", "beta":
			v.preK = 1
		default:
			v.preK = 2
		}
		v.preN, _ = strconv.Atoi(m[4])
	}
	if m[5] != "" {
		v.post, _ = strconv.Atoi(m[5])
	} else if m[6] != "" {
		v.post, _ = strconv.Atoi(m[7])
	}
	if m[8] != "" {
		v.dev, _ = strconv.Atoi(m[9])
	}
	if m[10] != "" {
		v.local = strings.FieldsFunc(strings.ToLower(m[10]), func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	}
	return v, nil
}

func cmpPEP440(a, b pep440) int {
	if c := cmp.Compare(a.epoch, b.epoch); c != 0 {
		return c
	}
	trim := func(r []int) []int {
		for len(r) > 0 && r[len(r)-1] == 0 {
			r = r[:len(r)-1]
		}
		return r
	}
	ra, rb := trim(a.release), trim(b.release)
	for i := 0; i < len(ra) || i < len(rb); i++ {
		var x, y int
		if i < len(ra) {
			x = ra[i]
		}
		if i < len(rb) {
			y = rb[i]
		}
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
	}
	// pre-release key: dev-only releases sort before pre-releases.
	preKey := func(v pep440) [2]int {
		switch {
		case v.preK < 0 && v.post < 0 && v.dev >= 0:
			return [2]int{-2, 0}
		case v.preK < 0:
			return [2]int{9, 0}
		}
		return [2]int{v.preK, v.preN}
	}
	pa, pb := preKey(a), preKey(b)
	if c := cmp.Compare(pa[0], pb[0]); c != 0 {
		return c
	}
	if c := cmp.Compare(pa[1], pb[1]); c != 0 {
		return c
	}
	if c := cmp.Compare(a.post, b.post); c != 0 {
		return c
	}
	da, db := a.dev, b.dev
	if da < 0 {
		da = math.MaxInt
	}
	if db < 0 {
		db = math.MaxInt
	}
	if c := cmp.Compare(da, db); c != 0 {
		return c
	}
	return cmpMixedParts(a.local, b.local, false)
}

// cmpMixedParts compares the dotted parts of a semver pre-release or a PEP
// 440 local version: numbers numerically, words as text, a number before a
// word when numberFirst (semver) or after it (PEP 440), and at the end the
// shorter list first.
func cmpMixedParts(a, b []string, numberFirst bool) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		xn, yn := IsDigits(x), IsDigits(y)
		switch {
		case xn && yn:
			xi, _ := strconv.Atoi(x)
			yi, _ := strconv.Atoi(y)
			if c := cmp.Compare(xi, yi); c != 0 {
				return c
			}
		case xn != yn:
			if xn == numberFirst {
				return -1
			}
			return 1
		default:
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
		}
	}
	return cmp.Compare(len(a), len(b))
}
