// Read this first: the exact arithmetic under the bucket, apart from it,
// so that tokenbucket.go reads as the bucket alone. A bucket counts in
// units, where one token is unit units and a nanosecond adds perNs units:
// perNanosecond turns a float64 rate into that exact fraction, and u128
// holds the counts, which pass 64 bits (capacity 2^53 times a unit up to
// 2^64). Nothing here knows about buckets.

package tokenbucket

import (
	"math"
	"math/big"
	"math/bits"
	"time"
)

// perNanosecond returns the rate as a fraction perNs/unit of tokens per
// nanosecond, both below 2^64.
//
// It walks the continued fraction of rate/1e9 and stops at the first
// convergent that converts back to the very float64 passed in: the shortest
// fraction the caller can have meant. So 1000.0/3 becomes exactly 1/3000000
// (a token every 3ms), 0.1 exactly 1/10000000000, and 1000 exactly
// 1/1000000. If no convergent with 64-bit terms converts back, the last one
// that fits is used: the closest fraction with terms that small, which New's
// bound on the rate keeps above 0. A rate of capacity tokens a nanosecond or
// more fills the bucket in one nanosecond, which is as fast as a time.Time
// can tell.
//
// It allocates, but only in New.
func perNanosecond(rate float64, capacity uint64) (perNs, unit uint64) {
	if rate == 0 {
		return 0, 1
	}
	x := new(big.Rat).SetFloat64(rate)
	x.Quo(x, big.NewRat(int64(time.Second), 1))
	if x.Cmp(new(big.Rat).SetUint64(capacity)) >= 0 {
		return capacity, 1
	}
	limit := new(big.Int).SetUint64(math.MaxUint64)
	nanos := big.NewInt(int64(time.Second))

	// x = a0 + 1/(a1 + 1/(a2 + ...)); the convergents p/q follow
	// p = a*p1 + p0 and q = a*q1 + q0.
	num, den := new(big.Int).Set(x.Num()), new(big.Int).Set(x.Denom())
	p0, q0 := big.NewInt(0), big.NewInt(1)
	p1, q1 := big.NewInt(1), big.NewInt(0)
	for den.Sign() != 0 {
		a, rem := new(big.Int).QuoRem(num, den, new(big.Int))
		p2 := new(big.Int).Add(new(big.Int).Mul(a, p1), p0)
		q2 := new(big.Int).Add(new(big.Int).Mul(a, q1), q0)
		if q2.Cmp(limit) > 0 || p2.Cmp(limit) > 0 {
			break
		}
		p0, q0, p1, q1 = p1, q1, p2, q2
		num, den = den, rem
		back, _ := new(big.Rat).SetFrac(new(big.Int).Mul(p1, nanos), q1).Float64()
		if back == rate {
			break
		}
	}
	// A convergent may lie a little above x, and so above capacity tokens
	// a nanosecond; any refill of a whole bucket a nanosecond is the same.
	if most := new(big.Int).Mul(new(big.Int).SetUint64(capacity), q1); p1.Cmp(most) > 0 {
		p1 = most
	}
	return p1.Uint64(), q1.Uint64()
}

// span returns the nanoseconds from (s0, n0) to the later instant (s1, n1),
// exactly: up to 2^64 seconds, so up to 2^94 nanoseconds.
func span(s0, n0, s1, n1 int64) u128 {
	ns := mul64(uint64(s1)-uint64(s0), 1e9)
	if n1 >= n0 {
		d, _ := ns.add(u128{lo: uint64(n1 - n0)})
		return d
	}
	return ns.sub(u128{lo: uint64(n0 - n1)})
}

// u128 is an unsigned 128-bit integer: hi*2^64 + lo.
type u128 struct{ hi, lo uint64 }

func mul64(x, y uint64) u128 {
	hi, lo := bits.Mul64(x, y)
	return u128{hi, lo}
}

func (x u128) less(y u128) bool { return x.hi < y.hi || x.hi == y.hi && x.lo < y.lo }

// add returns x+y and whether it wrapped.
func (x u128) add(y u128) (u128, bool) {
	lo, c := bits.Add64(x.lo, y.lo, 0)
	hi, c := bits.Add64(x.hi, y.hi, c)
	return u128{hi, lo}, c != 0
}

// refill returns x+y, but at most full.
func (x u128) refill(y, full u128) u128 {
	// x <= full < 2^117, so x+y wraps only if y is near 2^128, which is
	// far past full too.
	if sum, carry := x.add(y); !carry && !full.less(sum) {
		return sum
	}
	return full
}

// sub returns x-y; y <= x.
func (x u128) sub(y u128) u128 {
	lo, b := bits.Sub64(x.lo, y.lo, 0)
	hi, _ := bits.Sub64(x.hi, y.hi, b)
	return u128{hi, lo}
}

// mul returns x*y and whether it overflows 128 bits.
func (x u128) mul(y uint64) (u128, bool) {
	hh, hl := bits.Mul64(x.hi, y)
	lh, ll := bits.Mul64(x.lo, y)
	hi, c := bits.Add64(hl, lh, 0)
	return u128{hi, ll}, hh != 0 || c != 0
}
