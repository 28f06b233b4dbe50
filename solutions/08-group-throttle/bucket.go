// Read this first: the token bucket, level 3's, counted exactly. The
// bucket holds up to Requests tokens and gains Requests per Per. With
// g = gcd(Requests, Per in ns), one token is unit = Per/g units and the
// bucket gains refill = Requests/g units a nanosecond, so every quantity
// is a whole number and RetryAfter is exact. Nothing ticks: the tokens
// are added when a call comes.

package throttle

import "math/bits"

// bucket is a TokenBucket Limit.
type bucket struct {
	unit   int64 // units in one token
	refill int64 // units gained per nanosecond
	full   int64 // the capacity in units: Requests·unit
	tokens int64 // Requests, a full bucket's room: most buckets are full, and need no division
}

// tokenBucket is one client's or group's bucket.
type tokenBucket struct {
	at    int64 // the instant level was worked out at
	level int64 // the units in the bucket at that instant
}

func (b *bucket) fresh(now int64) tokenBucket { return tokenBucket{at: now, level: b.full} }

// levelAt is the units in the bucket at now: the level at the instant at
// plus the refill since, in 128 bits so that a bucket left alone for
// centuries is simply full.
func (b *bucket) levelAt(t tokenBucket, now int64) int64 {
	hi, lo := bits.Mul64(since(t.at, now), uint64(b.refill))
	if hi != 0 || lo >= uint64(b.full-t.level) {
		return b.full
	}
	return t.level + int64(lo)
}

// room is the whole tokens at now.
func (b *bucket) room(t tokenBucket, now int64) int64 {
	level := b.levelAt(t, now)
	if level == b.full {
		return b.tokens
	}
	return level / b.unit
}

func (b *bucket) charge(t tokenBucket, now, n int64) tokenBucket {
	return tokenBucket{at: now, level: b.levelAt(t, now) - n*b.unit}
}

// wait is the time the missing units take to refill, rounded up.
func (b *bucket) wait(t tokenBucket, now, n int64) int64 {
	return (n*b.unit-b.levelAt(t, now)-1)/b.refill + 1
}

// idleAfter is the instant the bucket is full again.
func (b *bucket) idleAfter(t tokenBucket) int64 {
	if t.level == b.full {
		return t.at
	}
	return addSat(t.at, (b.full-t.level-1)/b.refill+1)
}
