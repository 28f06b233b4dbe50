// Package tokenbucket is the reference solution of level 3: a token bucket
// that refills lazily, caps its bursts, and keeps its count in exact integer
// units so that a long run never drifts.
//
// This file is the bucket alone. The exact arithmetic it counts with, the
// 128-bit type and the reading of a float64 rate as a fraction, is in
// exact.go.
package tokenbucket

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// maxCapacity is the largest capacity New accepts, 2^53: Tokens returns a
// float64, and 2^53 is the largest count up to which a float64 holds every
// whole number of tokens. Up to it, every answer is exact.
const maxCapacity = 1 << 53

// minRate is the slowest positive rate New accepts, in tokens a second: one
// token per 2^63 nanoseconds, about 292 years, a nanosecond longer than the
// longest time.Duration. Down to it, a rate in tokens per nanosecond is a
// fraction whose denominator fits in 64 bits, which perNanosecond needs.
const minRate = 1e9 / (1 << 63)

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
// A full bucket holds capacity*unit units, up to 2^53 * 2^64 = 2^117, so
// the count takes two 64-bit words (u128).
//
// A Bucket is a few words and has no mutex: it is not safe for concurrent
// use. See the README for what changes when goroutines share one.
type Bucket struct {
	units u128 // units held at the bucket's time
	full  u128 // capacity * unit
	perNs uint64
	unit  uint64
	// lastSec and lastNsec are the bucket's time, as Unix seconds and
	// nanoseconds: the latest now of a call that spent tokens. A call at
	// an earlier now adds nothing and leaves it be. Two integers rather
	// than a time.Time, because comparing and subtracting them is cheaper
	// than Time.Sub, and a span may be longer than a time.Duration holds.
	// Until a call spends, the bucket is full, and its time is before
	// every instant: (MinInt64, -1).
	lastSec  int64
	lastNsec int64
	capacity uint64
}

// New returns a full bucket that holds up to capacity tokens and gains rate
// tokens a second. It panics if capacity is below 1 or above 2^53
// (9,007,199,254,740,992), or if rate is negative, NaN, infinite, or
// positive but slower than one token per 2^63 nanoseconds (about 292
// years, a rate of 1.0842021724855044e-10).
func New(capacity int, rate float64) *Bucket {
	if capacity < 1 || uint64(capacity) > maxCapacity {
		panic(fmt.Sprintf("tokenbucket.New: capacity must be from 1 to 2^53 (%d), got %d", uint64(maxCapacity), capacity))
	}
	if rate < 0 || math.IsNaN(rate) || math.IsInf(rate, 0) {
		panic(fmt.Sprintf("tokenbucket.New: rate must be a finite number of tokens a second, 0 or more, got %v", rate))
	}
	if rate > 0 && rate < minRate {
		panic(fmt.Sprintf("tokenbucket.New: rate must be 0 or at least one token per 2^63ns (%v a second), got %v", minRate, rate))
	}
	perNs, unit := perNanosecond(rate, uint64(capacity))
	full := mul64(uint64(capacity), unit)
	return &Bucket{units: full, full: full, perNs: perNs, unit: unit, lastSec: math.MinInt64, lastNsec: -1, capacity: uint64(capacity)}
}

// Allow reports whether one token is there at now, and spends it if so.
func (b *Bucket) Allow(now time.Time) bool { return b.AllowN(now, 1) }

// AllowN reports whether n tokens are there at now, and spends them if so.
// It is all or nothing: a denied request changes nothing. AllowN(now, 0) is
// always true, and n > capacity is always false. It panics if n < 0.
func (b *Bucket) AllowN(now time.Time, n int) bool {
	if n <= 0 {
		if n < 0 {
			panic(fmt.Sprintf("tokenbucket: AllowN(%d): n must not be negative", n))
		}
		return true
	}
	if uint64(n) > b.capacity {
		return false
	}
	sec, nsec := now.Unix(), int64(now.Nanosecond())
	have := b.at(sec, nsec)
	later := sec > b.lastSec || sec == b.lastSec && nsec > b.lastNsec // now is after the bucket's time
	cost := mul64(uint64(n), b.unit)
	if have.less(cost) {
		return false
	}
	b.units = have.sub(cost)
	// A now earlier than the bucket's time spends, but does not move the
	// time back: that would credit the interval between them a second time.
	if later {
		b.lastSec, b.lastNsec = sec, nsec
	}
	return true
}

// Tokens returns the number of tokens the bucket holds at now. It changes
// nothing.
func (b *Bucket) Tokens(now time.Time) float64 {
	u := b.at(now.Unix(), int64(now.Nanosecond()))
	// u/unit is at most the capacity, so the quotient fits in 64 bits.
	whole, frac := bits.Div64(u.hi, u.lo, b.unit)
	// Whole tokens and the fraction apart, so that a large count keeps the
	// fraction's precision.
	return float64(whole) + float64(frac)/float64(b.unit)
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
	if uint64(n) > b.capacity {
		return 0, false
	}
	sec, nsec := now.Unix(), int64(now.Nanosecond())
	have, cost := b.at(sec, nsec), mul64(uint64(n), b.unit)
	if !have.less(cost) {
		return 0, true
	}
	if b.perNs == 0 {
		return 0, false
	}
	// The refill takes need/perNs nanoseconds, rounded up. A quotient of
	// 2^64 or more is far past the longest Duration.
	need := cost.sub(have)
	if need.hi >= b.perNs {
		return 0, false
	}
	refill, rem := bits.Div64(need.hi, need.lo, b.perNs)
	if refill > math.MaxInt64 {
		return 0, false
	}
	if rem != 0 {
		refill++
	}
	// Refilling starts at the bucket's time, which is later than now if
	// time went backwards. (have < cost, so some call has spent tokens and
	// the bucket's time is a real one.)
	var idle u128
	if sec < b.lastSec || sec == b.lastSec && nsec < b.lastNsec {
		idle = span(sec, nsec, b.lastSec, b.lastNsec)
	}
	total, carry := bits.Add64(idle.lo, refill, 0)
	if idle.hi != 0 || carry != 0 || total > math.MaxInt64 {
		return 0, false
	}
	return time.Duration(total), true
}

// at returns the units the bucket holds at the instant sec, nsec (Unix
// seconds and nanoseconds), without changing it.
func (b *Bucket) at(sec, nsec int64) u128 {
	// A full bucket stays full; so does one that no call has spent from.
	if b.units == b.full || b.perNs == 0 {
		return b.units
	}
	if sec < b.lastSec || sec == b.lastSec && nsec <= b.lastNsec {
		return b.units // not after the bucket's time: nothing is added
	}
	var refill u128
	// sec >= lastSec as int64, so the unsigned difference is exact even
	// when it does not fit in an int64.
	if ds := uint64(sec) - uint64(b.lastSec); ds < 1<<33 {
		// Under 2^33 seconds (272 years), the span in nanoseconds fits
		// in 63 bits: one multiplication.
		elapsed := ds*1e9 + uint64(nsec) - uint64(b.lastNsec)
		refill = mul64(elapsed, b.perNs)
	} else {
		// Up to 2^64 seconds: up to 2^94 nanoseconds, and a refill that
		// may overflow 128 bits, in which case the bucket is full anyway.
		var overflow bool
		refill, overflow = span(b.lastSec, b.lastNsec, sec, nsec).mul(b.perNs)
		if overflow {
			return b.full
		}
	}
	return b.units.refill(refill, b.full)
}
