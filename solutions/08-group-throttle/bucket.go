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
	*bucket
	at    int64 // the instant level was worked out at
	level int64 // the units in the bucket at that instant
}

func (b *bucket) fresh(now int64) tokenBucket { return tokenBucket{bucket: b, at: now, level: b.full} }

// levelAt is the units in the bucket at now: the level at the instant at
// plus the refill since, in 128 bits so that a bucket left alone for
// centuries is simply full.
func (t tokenBucket) levelAt(now int64) int64 {
	hi, lo := bits.Mul64(since(t.at, now), uint64(t.refill))
	if hi != 0 || lo >= uint64(t.full-t.level) {
		return t.full
	}
	return t.level + int64(lo)
}

// room is the whole tokens at now.
func (t tokenBucket) room(now int64) int64 {
	level := t.levelAt(now)
	if level == t.full {
		return t.tokens
	}
	return level / t.unit
}

func (t tokenBucket) charge(now, n int64) tokenBucket {
	t.level, t.at = t.levelAt(now)-n*t.unit, now
	return t
}

// wait is the time the missing units take to refill, rounded up.
func (t tokenBucket) wait(now, n int64) int64 { return (n*t.unit-t.levelAt(now)-1)/t.refill + 1 }

// idleAfter is the instant the bucket is full again.
func (t tokenBucket) idleAfter() int64 {
	if t.level == t.full {
		return t.at
	}
	return addSat(t.at, (t.full-t.level-1)/t.refill+1)
}
