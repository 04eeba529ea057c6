package py

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Hash is CPython's hash() for numbers.
func Hash(v any) int64 {
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
		return hashFloat(x)
	}
	return 0
}

func hashFloat(v float64) int64 {
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
		s.add(x, Hash(x))
	}
	return s
}

// SetOp computes list(set(x) <op> set(y)) for op union, intersect,
// difference or symmetric_difference, in CPython 3.11's iteration order.
// The elements must be numbers (see Hash).
func SetOp(op string, x, y []any) []any {
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

// HashKey returns a canonical key for a hashable value so that values
// equal in Python (1, 1.0, True) share it; ok is false for unhashable ones.
func HashKey(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "N", true
	case bool, int:
		i, _ := value.AsInt(x)
		return "n" + strconv.Itoa(i), true
	case float64:
		if value.IsIntegral(x) {
			return "n" + strconv.FormatInt(int64(x), 10), true
		}
		return "f" + strconv.FormatFloat(x, 'g', -1, 64), true
	case string:
		return "s" + x, true
	case value.Tuple:
		var b strings.Builder
		b.WriteString("t(")
		for _, e := range x {
			k, ok := HashKey(e)
			if !ok {
				return "", false
			}
			b.WriteString(strconv.Itoa(len(k)))
			b.WriteByte(':')
			b.WriteString(k)
		}
		b.WriteByte(')')
		return b.String(), true
	case []any, *value.Dict:
		return "", false
	}
	return fmt.Sprintf("o%p", v), true
}

// KeySet returns the hash keys of an iterable's elements.
func KeySet(v any) (map[string]bool, error) {
	items, err := Iterate(v)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(items))
	for _, it := range items {
		k, ok := HashKey(it)
		if !ok {
			return nil, Errorf("unhashable type: '%s'", value.TypeName(it))
		}
		out[k] = true
	}
	return out, nil
}
