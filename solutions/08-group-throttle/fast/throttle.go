// Package fast is level 8 tuned for speed, beside the reference: per-client
// limits by fixed window, sliding window or token bucket, with limits
// shared by groups of clients, exact under concurrency, forgetting idle
// clients. Read README.md in this folder first.
//
// The package is split by concern: this file has the API and the time,
// and asks the reference whether a Config is valid; config.go picks each
// Limit's algorithm; fixed.go, sliding.go and bucket.go are the
// algorithms, each with its own state; table.go is the client table and
// its shards; group.go the groups.
package fast

import (
	"fmt"
	"hash/maphash"
	"math"
	"sync/atomic"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
	throttle "github.com/rateladder/rateladder/solutions/08-group-throttle"
)

// The configuration and decision types are defined once, in package
// limits, and shared with the spec and the Redis form of this level.
type (
	// Algorithm is how a Limit counts requests.
	Algorithm = limits.Algorithm
	// Limit is at most Requests requests per Per, counted by Algorithm.
	Limit = limits.Limit
	// Group is a set of clients that share one Limit on top of their own.
	Group = limits.Group
	// Config is what a Throttler enforces.
	Config = limits.Config
	// Decision is the answer to one request.
	Decision = limits.Decision
)

// The algorithms a Limit can use.
const (
	FixedWindow   = limits.FixedWindow
	SlidingWindow = limits.SlidingWindow
	TokenBucket   = limits.TokenBucket
)

// Throttler decides, request by request, whether each client is within its
// limits. It is safe for concurrent use.
//
// Time: the Throttler keeps the latest time it has read from its clock and
// never goes back from it. A clock reading earlier than that is taken as
// that latest time, so no window, ring or bucket ever moves backwards, and
// RetryAfter is still measured from the clock's own reading.
//
// Range: instants are Unix nanoseconds in an int64, from
// 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z, and
// every decision in that range is exact. A clock reading outside it is
// taken as the nearest end: past 2262 the Throttler's time stands still at
// the last nanosecond, so windows stop moving and RetryAfter is measured
// from that instant. RetryAfter is at most math.MaxInt64 nanoseconds (292
// years), which only a clock that went back by centuries can reach.
//
// Memory: a client's state is created by its first allowed request and
// may be dropped once it is equal to a fresh client's, at the latest two
// Per after its last request, so a flood of new clients can never push out
// a busy one. Such states are swept out of a shard of the client table
// before it grows, and by Len, so the memory held follows the clients of
// the last two Per.
type Throttler struct {
	clk clock.Clock
	// system says clk is clock.System. Its time is then read as the
	// monotonic clock's distance from start, in Unix ns from startUnix:
	// one read of the monotonic clock, where time.Now reads the wall
	// clock too, and a wall clock set back or forward does not move the
	// windows. It is the same reading clock.System's differences give.
	system    bool
	start     time.Time
	startUnix int64
	seed      maphash.Seed
	clients   clientTable
	members   members
	groups    []group
	time      clockTime
}

// clockTime is the Throttler's time: the latest reading of its clock, in
// Unix ns. Every core writes it, so it has a cache line of its own. The
// monotonic clock never goes back, so with clock.System nothing is kept
// and no core writes: advance returns the reading itself.
type clockTime struct {
	_         [64]byte
	monotonic bool
	latest    atomic.Int64
	_         [48]byte
}

// New returns a Throttler that enforces cfg and reads the time from c. An
// invalid config returns an error that names the field.
func New(c clock.Clock, cfg Config) (*Throttler, error) {
	// A config is valid here exactly when it is valid for the reference,
	// so the reference checks it, and its errors are the same.
	if _, err := throttle.New(c, cfg); err != nil {
		return nil, err
	}
	_, system := c.(clock.System)
	t := &Throttler{clk: c, system: system, seed: maphash.MakeSeed()}
	if system {
		t.start = time.Now()
		t.startUnix = t.start.UnixNano() // the real clock is far from the ends of UnixNano
	}
	t.time.monotonic = system
	t.time.latest.Store(math.MinInt64)
	t.clients = compile(cfg.PerClient).clients(&t.time)
	groupOf := map[string]group{}
	for _, gc := range cfg.Groups {
		g := compile(gc.Limit).group()
		for _, name := range gc.Clients {
			groupOf[name] = g
		}
		t.groups = append(t.groups, g)
	}
	t.members = newMembers(t.seed, groupOf)
	return t, nil
}

// Allow is AllowN(client, 1).
func (t *Throttler) Allow(client string) Decision { return t.AllowN(client, 1) }

// AllowN decides n requests from client as one, all or nothing: either
// every limit that applies allows all n and each is charged n, or nothing
// is charged. It panics if n < 1.
func (t *Throttler) AllowN(client string, n int) Decision {
	if n < 1 {
		panic(fmt.Sprintf("throttle: AllowN(%q, %d): n must be at least 1", client, n))
	}
	clockNow := t.read()
	h := maphash.Comparable(t.seed, client)
	var g group
	if len(t.members.slots) > 0 {
		g = t.members.find(client, h)
	}
	return t.clients.allowN(client, h, int64(n), clockNow, g)
}

// Len returns the number of clients and groups whose state is held at the
// clock's current time, after dropping the states that may be dropped: it
// counts every client and group whose state differs from a fresh one, and
// none that made no request in the last two Per of its limit.
func (t *Throttler) Len() int {
	now := t.time.advance(t.read())
	n := t.clients.count(now)
	for _, g := range t.groups {
		if g.heldAt(now) {
			n++
		}
	}
	return n
}

// The ends of the range of instants, as seconds: every reading strictly
// between them has an exact UnixNano.
const (
	minSecond = math.MinInt64/1_000_000_000 - 1 // -9223372037: 1677-09-21T00:12:43.145224192Z is in it
	maxSecond = math.MaxInt64 / 1_000_000_000   // 9223372036: 2262-04-11T23:47:16.854775807Z is in it
)

var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

// read returns the clock's reading in Unix nanoseconds, taking a reading
// outside the range as the nearest end of it rather than letting UnixNano
// wrap around.
func (t *Throttler) read() int64 {
	if t.system {
		return addSat(t.startUnix, int64(time.Since(t.start)))
	}
	now := t.clk.Now()
	if s := now.Unix(); s > minSecond && s < maxSecond {
		return s*1e9 + int64(now.Nanosecond())
	}
	switch {
	case now.Before(minTime):
		return math.MinInt64
	case now.After(maxTime):
		return math.MaxInt64
	}
	return now.UnixNano()
}

// advance moves the time forward to clockNow, if it is later, and returns
// it. Each shard and group also keeps its own time, and each client's
// state has one (algorithm.from); a decision takes the later of them, so
// that decisions that reach a lock or a slot out of order, having read the
// clock before it, still see time in order.
func (c *clockTime) advance(clockNow int64) int64 {
	if c.monotonic {
		return clockNow
	}
	latest := c.latest.Load()
	for clockNow > latest {
		if c.latest.CompareAndSwap(latest, clockNow) {
			return clockNow
		}
		latest = c.latest.Load()
	}
	return latest
}

// retryAfter is late + wait as a Duration, where late is how far the
// Throttler's time is ahead of the clock's reading: at most math.MaxInt64.
func retryAfter(late uint64, wait int64) time.Duration {
	d := late + uint64(wait)
	if d < late || d > math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(d)
}
