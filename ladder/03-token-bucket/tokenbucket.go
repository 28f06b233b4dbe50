// Package tokenbucket is level 3 of the ladder: a token bucket that refills
// lazily and caps its bursts. Read README.md in this folder first.
package tokenbucket

import "time"

// Bucket is a token bucket: it holds up to capacity tokens, gains rate
// tokens a second, and every request spends tokens.
type Bucket struct {
	// Add the fields you need here.
}

// New returns a bucket that holds up to capacity tokens and gains rate
// tokens a second. README.md says what a bad value does.
func New(capacity int, rate float64) *Bucket {
	panic("not implemented: New")
}

// Allow is AllowN(now, 1).
func (b *Bucket) Allow(now time.Time) bool {
	panic("not implemented: Bucket.Allow")
}

// AllowN reports whether a request for n tokens at now is allowed.
func (b *Bucket) AllowN(now time.Time, n int) bool {
	panic("not implemented: Bucket.AllowN")
}

// Tokens returns the number of tokens the bucket holds at now.
func (b *Bucket) Tokens(now time.Time) float64 {
	panic("not implemented: Bucket.Tokens")
}

// Delay is part 3's: leave it until then. It returns how long a request
// for n tokens at now must wait.
func (b *Bucket) Delay(now time.Time, n int) (wait time.Duration, ok bool) {
	panic("not implemented: Bucket.Delay")
}
