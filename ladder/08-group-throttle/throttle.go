// Package throttle is level 8 of the ladder: throttle requests per client,
// with fixed windows, sliding windows or token buckets, and limits shared
// by groups of clients. Read README.md in this folder first.
package throttle

import (
	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// The configuration and decision types are defined once, in package
// limits, and shared with the spec and the Redis form of this level. These
// aliases let you write throttle.Limit, throttle.Decision and so on.
type (
	Algorithm = limits.Algorithm
	Limit     = limits.Limit
	Group     = limits.Group
	Config    = limits.Config
	Decision  = limits.Decision
)

// The algorithms a Limit can use.
const (
	FixedWindow   = limits.FixedWindow
	SlidingWindow = limits.SlidingWindow
	TokenBucket   = limits.TokenBucket
)

// Throttler decides, request by request, whether each client is within its
// limits. It is safe for concurrent use.
type Throttler struct {
	// Add the fields you need here.
}

// New returns a Throttler that enforces cfg and reads the time from c. A
// config comes from outside the program, so an invalid one returns an error
// that names the field, such as "PerClient.Per" or "Groups[1].Name".
func New(c clock.Clock, cfg Config) (*Throttler, error) {
	panic("not implemented: New")
}

// Allow is AllowN(client, 1).
func (t *Throttler) Allow(client string) Decision {
	panic("not implemented: Throttler.Allow")
}

// AllowN decides n requests from client as one, all or nothing: either
// every limit that applies allows all n and each is charged n, or nothing
// is charged. It panics if n < 1.
func (t *Throttler) AllowN(client string, n int) Decision {
	panic("not implemented: Throttler.AllowN")
}

// Len returns the number of clients and groups whose state is held right
// now, at the clock's current time.
func (t *Throttler) Len() int {
	panic("not implemented: Throttler.Len")
}
