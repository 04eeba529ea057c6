package py

import (
	"crypto/sha512"
	"encoding/binary"
	"math/rand/v2"

	"github.com/cfzt/cfzt-runner/engine/value"
)

// Random is CPython's random.Random: the Mersenne Twister MT19937 seeded
// as random.seed seeds it, so that seeded results match Ansible's.
type Random struct {
	mt  [624]uint32
	idx int
}

func (r *Random) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = 624
}

func (r *Random) initByArray(key []uint32) {
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

func (r *Random) uint32() uint32 {
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

func (r *Random) getrandbits(k int) uint64 {
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

// Randbelow is random._randbelow: a uniform int in [0, n) drawn with
// getrandbits, as randrange, choice and shuffle use it.
func (r *Random) Randbelow(n int) int {
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

// NewRandom seeds like random.Random(seed).
func NewRandom(seed any) (*Random, error) {
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
		h := Hash(x)
		if h < 0 {
			h = -h
		}
		mag = binary.BigEndian.AppendUint64(nil, uint64(h))
	default:
		return nil, Errorf("The only supported seed types are: None, int, float, str, bytes, and bytearray.")
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
	r := &Random{}
	r.initByArray(key)
	return r, nil
}

// RandSource draws random numbers: a seeded Random or the SystemRandom.
type RandSource interface{ Randbelow(n int) int }

// SystemRandom draws from Go's unseeded generator, for the unseeded
// random and shuffle filters.
type SystemRandom struct{}

// Randbelow returns a uniform int in [0, n).
func (SystemRandom) Randbelow(n int) int {
	if n <= 0 {
		return 0
	}
	return rand.IntN(n)
}
