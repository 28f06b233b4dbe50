// Package tokenbucket is the reference solution of level 3: a token bucket
// that refills lazily, caps its bursts, and keeps its count in exact integer
// units so that a long run never drifts.
package tokenbucket

import (
	"fmt"
	"math"
	"math/big"
	"time"
)

// Bucket is a token bucket. It holds up to capacity tokens, gains rate
// tokens a second, and starts full. A request for n tokens is allowed only
// if n tokens are there, and then spends them.
//
// Nothing ticks: every call works out how many tokens the bucket holds at
// its now from the count and the time of the last call that spent tokens.
// Only a call that spends tokens changes the bucket. Tokens, Delay, a denied
// AllowN and AllowN(now, 0) change nothing.
//
// The count is kept in units, not in float64 tokens: one token is unit
// units, and every nanosecond adds perNs units, where perNs/unit is the rate
// in tokens per nanosecond as an exact fraction. Refilling and spending are
// integer additions, so nothing is rounded, however many calls there are.
//
// A Bucket is a few words and has no mutex: it is not safe for concurrent
// use. See the README for what changes when goroutines share one.
type Bucket struct {
	capacity int64
	unit     int64 // units in one token
	perNs    int64 // units added by one nanosecond; 0 for a rate of 0
	full     int64 // capacity * unit
	units    int64 // units held at last
	// last is the bucket's time: the latest now of a call that spent
	// tokens. A call at an earlier now adds nothing and leaves it be.
	last    time.Time
	started bool // whether last is set; until then the bucket is full
}

// New returns a full bucket that holds up to capacity tokens and gains rate
// tokens a second. It panics if capacity < 1, or if rate is negative, NaN
// or infinite.
func New(capacity int, rate float64) *Bucket {
	if capacity < 1 {
		panic(fmt.Sprintf("tokenbucket.New: capacity must be at least 1, got %d", capacity))
	}
	if rate < 0 || math.IsNaN(rate) || math.IsInf(rate, 0) {
		panic(fmt.Sprintf("tokenbucket.New: rate must be a finite number of tokens a second, 0 or more, got %v", rate))
	}
	perNs, unit := perNanosecond(rate, int64(capacity))
	full := int64(capacity) * unit
	return &Bucket{capacity: int64(capacity), unit: unit, perNs: perNs, full: full, units: full}
}

// Allow reports whether one token is there at now, and spends it if so.
func (b *Bucket) Allow(now time.Time) bool { return b.AllowN(now, 1) }

// AllowN reports whether n tokens are there at now, and spends them if so.
// It is all or nothing: a denied request changes nothing. AllowN(now, 0) is
// always true, and n > capacity is always false. It panics if n < 0.
func (b *Bucket) AllowN(now time.Time, n int) bool {
	if n < 0 {
		panic(fmt.Sprintf("tokenbucket: AllowN(%d): n must not be negative", n))
	}
	if n == 0 {
		return true
	}
	if int64(n) > b.capacity {
		return false
	}
	have, cost := b.at(now), int64(n)*b.unit
	if have < cost {
		return false
	}
	b.units = have - cost
	// A now earlier than the bucket's time spends, but does not move the
	// time back: that would credit the interval between them a second time.
	if !b.started || now.After(b.last) {
		b.last = now
	}
	b.started = true
	return true
}

// Tokens returns the number of tokens the bucket holds at now. It changes
// nothing.
func (b *Bucket) Tokens(now time.Time) float64 {
	u := b.at(now)
	// Whole tokens and the fraction apart, so that a large count keeps the
	// fraction's precision.
	return float64(u/b.unit) + float64(u%b.unit)/float64(b.unit)
}

// Delay returns the shortest wait after which AllowN(now+wait, n) would
// succeed, if nothing else happens in between: 0 if it would succeed now.
// The wait is exact, rounded up to the next nanosecond.
//
// ok is false when the request can never succeed: n > capacity, or a rate
// of 0 with too few tokens, or a wait longer than the longest
// time.Duration. wait is then 0, so a caller must look at ok to tell
// "never" from "now". Delay changes nothing. It panics if n < 0.
func (b *Bucket) Delay(now time.Time, n int) (wait time.Duration, ok bool) {
	if n < 0 {
		panic(fmt.Sprintf("tokenbucket: Delay(%d): n must not be negative", n))
	}
	if int64(n) > b.capacity {
		return 0, false
	}
	have, cost := b.at(now), int64(n)*b.unit
	if have >= cost {
		return 0, true
	}
	if b.perNs == 0 {
		return 0, false
	}
	// Refilling starts at the bucket's time, which is later than now if
	// time went backwards. (have < cost, so some call has spent tokens and
	// last is set.)
	var idle time.Duration
	if now.Before(b.last) {
		idle = b.last.Sub(now)
	}
	need := cost - have
	refill := time.Duration((need-1)/b.perNs + 1) // need/perNs, rounded up
	if idle > math.MaxInt64-refill {
		return 0, false
	}
	return idle + refill, true
}

// at returns the units the bucket holds at now, without changing it.
func (b *Bucket) at(now time.Time) int64 {
	if !b.started || b.units == b.full || b.perNs == 0 {
		return b.units
	}
	elapsed := int64(now.Sub(b.last)) // saturates rather than overflows
	if elapsed <= 0 {
		return b.units // time went backwards: nothing is added
	}
	// Compare before multiplying, so that a long idle time cannot overflow:
	// elapsed*perNs >= missing exactly when elapsed > (missing-1)/perNs.
	missing := b.full - b.units
	if elapsed > (missing-1)/b.perNs {
		return b.full
	}
	return b.units + elapsed*b.perNs
}

// perNanosecond returns the rate as a fraction perNs/unit of tokens per
// nanosecond, with capacity*unit small enough for an int64.
//
// It walks the continued fraction of rate/1e9 and stops at the first
// convergent that converts back to the very float64 passed in: the shortest
// fraction the caller can have meant. So 1000.0/3 becomes exactly 1/3000000
// (a token every 3ms), 0.1 exactly 1/10000000000, and 1000 exactly
// 1/1000000. If no convergent fits, the last one that does is used; it is
// the closest fraction with a unit that small. That rounds a rate so slow
// that an empty bucket would take more than about 292 years to fill to 0.
// A rate of capacity tokens a nanosecond or more fills the bucket in one
// nanosecond, which is as fast as a time.Time can tell.
//
// It allocates, but only in New.
func perNanosecond(rate float64, capacity int64) (perNs, unit int64) {
	if rate == 0 {
		return 0, 1
	}
	x := new(big.Rat).SetFloat64(rate)
	x.Quo(x, big.NewRat(int64(time.Second), 1))
	if x.Cmp(new(big.Rat).SetInt64(capacity)) >= 0 {
		return capacity, 1
	}
	maxUnit := big.NewInt(math.MaxInt64 / capacity)
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
		if q2.Cmp(maxUnit) > 0 {
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
	if limit := new(big.Int).Mul(big.NewInt(capacity), q1); p1.Cmp(limit) > 0 {
		p1 = limit
	}
	return p1.Int64(), q1.Int64()
}
