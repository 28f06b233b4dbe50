// Package redisthrottle is the distributed form of level 8: the same
// throttler as package throttle, with its counters in Redis, so that every
// server of a fleet enforces one limit per client. Read this folder's
// README.md, level 8's parts 6 to 8, first.
//
// This folder is a Go module of its own, so that go-redis is downloaded
// only by those who come this far. Run its tests from here:
//
//	go test -race ./...
package redisthrottle

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rateladder/rateladder/harness/clock"
	throttle "github.com/rateladder/rateladder/ladder/08-group-throttle"
)

// Throttler decides, request by request, whether each client is within its
// limits, keeping the counters in Redis. It is safe for concurrent use.
type Throttler struct {
	// Add the fields you need here.
}

// Option configures a Throttler.
type Option func(*options)

type options struct {
	// Add the settings the options make here.
}

// WithPrefix namespaces every key; the default is "throttle:".
func WithPrefix(prefix string) Option {
	panic("not implemented: WithPrefix")
}

// WithClock takes the time from c instead of the Redis server's TIME.
func WithClock(c clock.Clock) Option {
	panic("not implemented: WithClock")
}

// DefaultTimeout bounds a call whose context has no sooner deadline,
// unless WithTimeout says otherwise.
const DefaultTimeout = 3 * time.Second

// WithTimeout bounds every call: it returns at most d after it starts,
// or by its context's deadline if that comes first.
func WithTimeout(d time.Duration) Option {
	panic("not implemented: WithTimeout")
}

// FailOpen makes a decision that Redis could not make an allowed one,
// returned together with the error.
func FailOpen() Option {
	panic("not implemented: FailOpen")
}

// FailClosed makes a decision that Redis could not make a denial with
// RetryAfter retryAfter, returned together with the error.
func FailClosed(retryAfter time.Duration) Option {
	panic("not implemented: FailClosed")
}

// New returns a Throttler that enforces cfg with its state in rdb. An
// invalid config returns an error naming the field, as throttle.New does.
func New(rdb redis.UniversalClient, cfg throttle.Config, opts ...Option) (*Throttler, error) {
	panic("not implemented: New")
}

// Allow is AllowN(ctx, client, 1).
func (t *Throttler) Allow(ctx context.Context, client string) (throttle.Decision, error) {
	panic("not implemented: Throttler.Allow")
}

// AllowN decides n requests from client as one, all or nothing, in one
// round trip to Redis. It panics if n < 1. If Redis cannot decide by the
// call's deadline, it returns an error, and with FailOpen or FailClosed
// that option's Decision.
func (t *Throttler) AllowN(ctx context.Context, client string, n int) (throttle.Decision, error) {
	panic("not implemented: Throttler.AllowN")
}
