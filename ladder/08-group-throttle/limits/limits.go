// Package limits holds the types of level 8's API: the limits a throttler
// is configured with and the decision it returns. They live in a package of
// their own so that the learner's throttler, the reference, the level's spec
// and the Redis form of the throttler all share one definition; package
// throttle re-exports them with type aliases (throttle.Limit is
// limits.Limit). You do not need to edit this package.
package limits

import (
	"fmt"
	"time"
)

// Algorithm is how a Limit counts requests.
type Algorithm int

// The algorithms. README.md specifies each one exactly.
const (
	// FixedWindow counts requests in windows [k·Per, (k+1)·Per) counted
	// from the Unix epoch.
	FixedWindow Algorithm = iota
	// SlidingWindow estimates the requests in (now−Per, now] from a ring of
	// Buckets counters, weighting the oldest by the part still inside.
	SlidingWindow
	// TokenBucket holds up to Requests tokens, refilled at Requests per Per,
	// and starts full.
	TokenBucket
)

var algorithmNames = [...]string{"FixedWindow", "SlidingWindow", "TokenBucket"}

// String returns the constant's name, so that messages read
// "SlidingWindow" rather than "1".
func (a Algorithm) String() string {
	if a >= 0 && int(a) < len(algorithmNames) {
		return algorithmNames[a]
	}
	return fmt.Sprintf("Algorithm(%d)", int(a))
}

// Limit is at most Requests requests per Per, counted by Algorithm.
type Limit struct {
	Algorithm Algorithm
	Requests  int           // at most Requests per Per; at least 1
	Per       time.Duration // positive
	// Buckets is the number of ring slots of a SlidingWindow, from 2 to
	// MaxBuckets; 0 means 2, the classic previous+current form. Per must be
	// a whole multiple of Buckets−1 nanoseconds. Other algorithms ignore it.
	Buckets int
}

// MaxBuckets is the most buckets a SlidingWindow may have. Every client
// keeps one counter per bucket, so it bounds a client's memory: 4096
// buckets are 32 KiB a client, an hour at under a second a bucket.
const MaxBuckets = 4096

// String writes the limit the way the spec's messages show it:
// "SlidingWindow(B=4) 40 per 30s".
func (l Limit) String() string {
	alg := l.Algorithm.String()
	if l.Algorithm == SlidingWindow {
		b := l.Buckets
		if b == 0 {
			b = 2
		}
		alg = fmt.Sprintf("%s(B=%d)", alg, b)
	}
	return fmt.Sprintf("%s %d per %v", alg, l.Requests, l.Per)
}

// Group is a set of clients that share one Limit on top of their own.
type Group struct {
	Name    string // not empty
	Limit   Limit
	Clients []string // a client belongs to at most one group
}

// Config is what a throttler enforces: PerClient for every client, and for
// a client in a group, that group's Limit as well.
type Config struct {
	PerClient Limit
	Groups    []Group
}

// Decision is a throttler's answer to one request.
type Decision struct {
	// Allowed reports whether the request was let through, and charged.
	Allowed bool
	// Remaining is how many more requests the tightest limit would allow
	// right now, after this one: the largest m for which AllowN(client, m)
	// would be allowed at the same instant. A denied request was not
	// charged, so it is what is left without it.
	Remaining int
	// RetryAfter is 0 when the request is allowed. When it is denied, it is
	// the shortest wait after which the same request would be allowed if
	// nothing else arrives, rounded up to the nanosecond. A request that can
	// never be allowed (n above a limit's Requests) is denied with
	// RetryAfter 0: see Never.
	RetryAfter time.Duration
}

// Never reports whether the request can never be allowed, however long
// the caller waits: it asked for more than a limit's Requests at once. It
// is the only denial with RetryAfter 0, since any other denied request has
// to wait at least a nanosecond.
func (d Decision) Never() bool { return !d.Allowed && d.RetryAfter == 0 }

// String writes the decision compactly for timeline tables:
// "ok, 4 left", "no, 0 left, retry 1.5s", "no, 3 left, never".
func (d Decision) String() string {
	switch {
	case d.Allowed && d.RetryAfter == 0:
		return fmt.Sprintf("ok, %d left", d.Remaining)
	case d.Allowed:
		return fmt.Sprintf("ok, %d left, retry %v (RetryAfter must be 0 when allowed)", d.Remaining, d.RetryAfter)
	case d.Never():
		return fmt.Sprintf("no, %d left, never", d.Remaining)
	}
	return fmt.Sprintf("no, %d left, retry %v", d.Remaining, d.RetryAfter)
}
