// Package tokenbucket is level 3 of the ladder: a token bucket that refills
// lazily and caps its bursts. Read README.md in this folder first.
package tokenbucket

import "time"

// Bucket is a token bucket: it holds up to capacity tokens, gains rate
// tokens a second, and starts full. A request for n tokens is allowed only
// if n tokens are there, and then spends them.
type Bucket struct {
	// Add the fields you need here.
}

// New returns a full bucket that holds up to capacity tokens and gains rate
// tokens a second. It panics, with a message that names the value, if
// capacity is below 1, or if rate is negative, NaN or infinite. Part 4
// adds two bounds: it panics too if capacity is above 2^53 (then naming
// 2^53 too), or if rate is positive but below 1.0842021724855044e-10 (one
// token per 2^63 nanoseconds).
func New(capacity int, rate float64) *Bucket {
	panic("not implemented: New")
}

// Allow reports whether one token is there at now, and spends it if so.
// It is AllowN(now, 1).
func (b *Bucket) Allow(now time.Time) bool {
	panic("not implemented: Bucket.Allow")
}

// AllowN reports whether n tokens are there at now, and spends them if so.
// It is all or nothing: a denied request changes nothing. AllowN(now, 0) is
// true, and n > capacity is always false. It panics if n < 0.
func (b *Bucket) AllowN(now time.Time, n int) bool {
	panic("not implemented: Bucket.AllowN")
}

// Tokens returns the number of tokens the bucket holds at now. It changes
// nothing.
func (b *Bucket) Tokens(now time.Time) float64 {
	panic("not implemented: Bucket.Tokens")
}

// Delay returns the shortest wait after which AllowN(now+wait, n) would
// succeed, if nothing else happens in between: (0, true) if it would succeed
// now, and (0, false) if it never can. It changes nothing, and panics if
// n < 0.
func (b *Bucket) Delay(now time.Time, n int) (wait time.Duration, ok bool) {
	panic("not implemented: Bucket.Delay")
}
