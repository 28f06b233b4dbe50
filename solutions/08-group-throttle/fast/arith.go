package fast

import (
	"math"
	"math/bits"
)

// Instants are Unix nanoseconds in int64, the whole range time.Time's
// UnixNano can represent. The helpers below never overflow inside it: a
// sum that would pass the top saturates at math.MaxInt64, and a difference
// of two instants is taken as uint64, where it always fits.

// addSat returns a+b for b >= 0, or math.MaxInt64 if that is larger.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// since returns now-then as uint64, for then <= now. It is exact even when
// the difference does not fit in an int64.
func since(then, now int64) uint64 { return uint64(now) - uint64(then) }

// floorMod is a mod b rounded towards minus infinity: in [0, b) for b > 0,
// so that instants before the epoch fall in the right window too.
func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// floorDiv divides rounding towards minus infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// lastOf returns the last instant of the span [k·per, (k+1)·per) that
// holds now, or math.MaxInt64 if the span reaches past it.
func lastOf(now, per int64) int64 { return addSat(now, per-1-floorMod(now, per)) }

// spanStart returns the first instant of the span [k·span, (k+1)·span)
// whose last instant is last, as lastOf gives it (cut short at
// math.MaxInt64 if the span reaches past it), or math.MinInt64 if the span
// starts before that.
func spanStart(last, span int64) int64 {
	switch {
	case last == math.MaxInt64:
		return last - floorMod(last, span)
	case last < math.MinInt64+(span-1):
		return math.MinInt64
	}
	return last - (span - 1)
}

// mulDivFloor is floor(a·b/c) for a, b >= 0, c > 0 and a < c, computed in
// 128 bits; a < c keeps the quotient below b.
func mulDivFloor(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q)
}

// mulDivCeil is ceil(a·b/c) for a, b >= 0 and 0 < b <= c, computed in 128
// bits so that large limits over long windows do not overflow.
func mulDivCeil(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, rem := bits.Div64(hi, lo, uint64(c))
	if rem != 0 {
		q++
	}
	return int64(q)
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// divider divides uint64s by a divisor fixed when it is made, with a
// multiplication and shifts instead of a DIV instruction, which costs tens
// of cycles: the round-up method of Granlund and Montgomery, "Division by
// invariant integers using multiplication" (1994), exact for every uint64.
type divider struct {
	d     uint64
	m     uint64 // floor(2^64·(2^l − d)/d) + 1
	shift uint8  // l − 1, where l = ceil(log2 d)
}

func newDivider(d uint64) divider {
	if d < 2 {
		return divider{d: d}
	}
	l := uint(bits.Len64(d - 1)) // ceil(log2 d)
	m, _ := bits.Div64(uint64(1)<<l-d, 0, d)
	return divider{d: d, m: m + 1, shift: uint8(l - 1)}
}

// div returns n / d.
func (v divider) div(n uint64) uint64 {
	if v.d < 2 {
		return n // d is 1
	}
	t, _ := bits.Mul64(v.m, n)
	return (t + (n-t)>>1) >> v.shift
}
