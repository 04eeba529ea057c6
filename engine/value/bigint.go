package value

import "math/big"

// Python integers are unbounded. The model keeps int for values that fit
// 64 bits and *big.Int beyond; NormInt chooses between them.

// NormInt returns b as an int when it fits, else b itself.
func NormInt(b *big.Int) any {
	if b.IsInt64() {
		return int(b.Int64())
	}
	return b
}

// AsBig converts an integral value (bool, int, *big.Int) to a *big.Int.
func AsBig(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case *big.Int:
		return x, true
	case bool, int, int64:
		n, _ := AsInt(v)
		return big.NewInt(int64(n)), true
	}
	return nil, false
}

func bigFloat(b *big.Int) float64 {
	f, _ := new(big.Float).SetInt(b).Float64()
	return f
}

// compareInts orders two integral values (bool, int, *big.Int) exactly;
// ok is false unless both are integral.
func compareInts(a, b any) (int, bool) {
	x, xok := AsInt(a)
	y, yok := AsInt(b)
	if xok && yok {
		switch {
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	}
	_, abig := a.(*big.Int)
	_, bbig := b.(*big.Int)
	if !abig && !bbig {
		return 0, false
	}
	ai, aok := AsBig(a)
	bi, bok := AsBig(b)
	if !aok || !bok {
		return 0, false
	}
	return ai.Cmp(bi), true
}
