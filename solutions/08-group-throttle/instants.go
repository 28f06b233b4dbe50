// Read this first: instants are Unix nanoseconds in an int64, the whole
// range time.Time's UnixNano can hold, 1678 to 2262. These helpers never
// overflow inside it: a sum that would pass the top stops at
// math.MaxInt64, a difference of two instants is taken as a uint64, where
// it always fits, and a product that may not fit in 64 bits is taken in
// 128 with math/bits.

package throttle

import (
	"math"
	"math/bits"
	"time"
)

// addSat returns a+b for b >= 0, or math.MaxInt64 if that is larger.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// since returns now−then as a uint64, for then <= now: exact even when the
// difference does not fit in an int64.
func since(then, now int64) uint64 { return uint64(now) - uint64(then) }

// floorMod is a mod b in [0, b), for b > 0, so that instants before the
// epoch fall in the right window too.
func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// floorDiv is a/b rounded towards minus infinity, for b > 0.
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

// mulDivFloor is floor(a·b/c) for a, b >= 0 and 0 <= a < c.
func mulDivFloor(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c)) // a < c keeps the quotient below b
	return int64(q)
}

// mulDivCeil is ceil(a·b/c) for a, b >= 0 and 0 < b <= c.
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

// retryAfter is late + wait as a Duration, where late is how far the
// Throttler's time is ahead of the clock's reading: at most math.MaxInt64,
// which only a clock that went back by centuries reaches.
func retryAfter(late uint64, wait int64) time.Duration {
	d := late + uint64(wait)
	if d < late || d > math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(d)
}
