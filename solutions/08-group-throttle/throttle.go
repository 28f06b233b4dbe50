// Package throttle is the reference solution of level 8: per-client limits
// by fixed window, sliding window or token bucket, with limits shared by
// groups of clients, exact under concurrency, forgetting idle clients.
//
// Read this first. This file is the API: New checks the config and picks
// each limit's algorithm, AllowN finds the client's state and asks its
// limit (and its group's), and Len counts. Then read clients.go, the table
// of clients: maps in locked shards, holding each client's state by value.
// Each algorithm is one small file: its rule, which holds the limit's
// numbers once, and the state each client keeps, a small struct of counts
// that the rule's charge turns into the next one: fixed.go, sliding.go,
// bucket.go. group.go is the limits shared by groups, and instants.go the
// arithmetic on instants that never overflows. The folder fast/ is the
// same throttler tuned for speed, with a README on each step that made it
// faster.
package throttle

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
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

// rule is a limit's algorithm, over the states S of the clients and
// groups under it. A state holds only its counts, as a value: the limit's
// numbers are kept once, in the rule, and a shard keeps each client's
// state in its map by value, so that finding a client reads no pointer
// more. charge returns the state it makes, to be stored in the map. A
// state is used under the lock that guards it, and the instant now it is
// given never goes back.
type rule[S any] interface {
	// fresh returns the state of a client or group that made no request.
	fresh(now int64) S
	// room returns the largest m for which AllowN(m) would be allowed at
	// now.
	room(st S, now int64) int64
	// charge returns the state after n requests at now, right after
	// room(st, now) returned n or more.
	charge(st S, now, n int64) S
	// wait returns the shortest wait from now after which n requests
	// would be allowed if nothing else is charged, right after room(st,
	// now) returned less than n, for n <= Requests.
	wait(st S, now, n int64) int64
	// idleAfter returns the instant after which st is equal to a fresh
	// state, so that dropping it changes no answer.
	idleAfter(st S) int64
}

// limit is a Limit checked by New, with its algorithm picked: it makes
// the table of clients under it, or a group's shared state.
type limit interface {
	clients() table
	group(name string) group
}

// algorithm is a limit whose states are of type S: fixedWindow,
// twoBuckets, *slidingWindow or tokenBucket.
type algorithm[S any] struct {
	requests, per int64
	rule          rule[S]
}

func (a algorithm[S]) clients() table { return newClients(a) }

func (a algorithm[S]) group(name string) group {
	return &sharedState[S]{lim: a, name: name, now: math.MinInt64}
}

// Throttler decides, request by request, whether each client is within its
// limits. It is safe for concurrent use.
//
// Time: the Throttler keeps the latest time it has read from its clock and
// never goes back from it. A clock reading earlier than that is taken as
// that latest time, and RetryAfter is still measured from the clock's own
// reading. Instants are Unix nanoseconds in an int64; a clock reading
// outside that range is taken as the nearest end of it, so past 2262 the
// Throttler's time stands still at the last nanosecond.
//
// Memory: a client's state is made by its first allowed request and
// dropped once it is equal to a fresh client's, at the latest two Per
// after its last request, so a flood of new clients never pushes out a
// busy one.
type Throttler struct {
	clk clock.Clock
	// system says clk is clock.System. Its time is then read as the
	// monotonic clock's distance from start, an instant taken in New:
	// time.Since reads one clock where time.Now reads two, which is the
	// largest single cost of a call on a machine whose clock reads are
	// slow, and a wall clock set back or forward does not move the windows.
	// The monotonic clock never goes back, so latest is not kept either:
	// every core would write it on every call.
	system    bool
	start     time.Time
	startUnix int64
	clients   table
	groupOf   map[string]group // each client in a group, by name
	groups    []group
	// latest is the latest clock reading, in Unix ns, for a clock other
	// than clock.System.
	latest atomic.Int64
}

// New returns a Throttler that enforces cfg and reads the time from c. An
// invalid config returns an error that names the field.
func New(c clock.Clock, cfg Config) (*Throttler, error) {
	if c == nil {
		return nil, errors.New("throttle.New: the clock is nil")
	}
	lim, err := compile("PerClient", cfg.PerClient)
	if err != nil {
		return nil, err
	}
	_, system := c.(clock.System)
	t := &Throttler{clk: c, system: system, clients: lim.clients(), groupOf: map[string]group{}}
	if system {
		t.start = time.Now()
		t.startUnix = t.start.UnixNano() // the real clock is far from the ends of the range
	}
	t.latest.Store(math.MinInt64)
	names := map[string]int{}
	for i, gc := range cfg.Groups {
		field := fmt.Sprintf("Groups[%d]", i)
		if gc.Name == "" {
			return nil, fmt.Errorf("throttle.New: %s.Name is empty: every group needs a name", field)
		}
		if j, dup := names[gc.Name]; dup {
			return nil, fmt.Errorf("throttle.New: %s.Name %q is also the name of Groups[%d]", field, gc.Name, j)
		}
		names[gc.Name] = i
		lim, err := compile(field+".Limit", gc.Limit)
		if err != nil {
			return nil, err
		}
		g := lim.group(gc.Name)
		for _, name := range gc.Clients {
			if other, ok := t.groupOf[name]; ok && other != g {
				return nil, fmt.Errorf("throttle.New: %s.Clients: client %q is already in group %q; a client belongs to at most one group",
					field, name, other.groupName())
			}
			t.groupOf[name] = g
		}
		t.groups = append(t.groups, g)
	}
	return t, nil
}

// compile checks a Limit and picks its algorithm. It is the only place
// that looks at Limit.Algorithm.
func compile(field string, l Limit) (limit, error) {
	switch {
	case l.Algorithm < FixedWindow || l.Algorithm > TokenBucket:
		return nil, fmt.Errorf("throttle.New: %s.Algorithm: unknown algorithm %v", field, l.Algorithm)
	case l.Requests < 1:
		return nil, fmt.Errorf("throttle.New: %s.Requests must be at least 1, got %d", field, l.Requests)
	case l.Per <= 0:
		return nil, fmt.Errorf("throttle.New: %s.Per must be positive, got %v", field, l.Per)
	}
	requests, per := int64(l.Requests), int64(l.Per)
	switch l.Algorithm {
	case FixedWindow:
		return algorithm[fixedWindow]{requests, per, &fixed{requests: requests, per: per}}, nil
	case SlidingWindow:
		b := int64(l.Buckets)
		if b == 0 {
			b = 2
		}
		if b < 2 || b > limits.MaxBuckets {
			return nil, fmt.Errorf("throttle.New: %s.Buckets must be 0 (meaning 2) or from 2 to %d, got %d: each client keeps a counter per bucket",
				field, limits.MaxBuckets, l.Buckets)
		}
		if per%(b-1) != 0 {
			return nil, fmt.Errorf("throttle.New: %s.Per (%v) must divide evenly into Buckets-1 = %d buckets", field, l.Per, b-1)
		}
		// A denied request may have to wait up to Per plus a bucket, and
		// RetryAfter is a time.Duration.
		width := per / (b - 1)
		if per > math.MaxInt64-width {
			return nil, fmt.Errorf("throttle.New: %s.Per (%v) is too long for %d buckets: Per + Per/(Buckets-1) must be at most %v, the longest time.Duration",
				field, l.Per, b, time.Duration(math.MaxInt64))
		}
		s := &sliding{requests: requests, per: per, width: width, buckets: int(b)}
		if b == 2 {
			return algorithm[twoBuckets]{requests, per, s}, nil
		}
		return algorithm[*slidingWindow]{requests, per, rings{s}}, nil
	default:
		g := gcd(requests, per)
		unit, refill := per/g, requests/g
		hi, full := bits.Mul64(uint64(requests), uint64(unit))
		if hi != 0 || full > math.MaxInt64 {
			return nil, fmt.Errorf("throttle.New: %s: Requests (%d) and Per (%v) are too large together for exact token arithmetic: Requests × Per / gcd(Requests, Per in ns) must be at most 2^63-1",
				field, l.Requests, l.Per)
		}
		b := &bucket{unit: unit, refill: refill, full: int64(full), tokens: requests}
		return algorithm[tokenBucket]{requests, per, b}, nil
	}
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
	var g group
	if len(t.groupOf) > 0 {
		g = t.groupOf[client]
	}
	clockNow := t.read()
	return t.clients.allowN(client, int64(n), clockNow, t.advance(clockNow), g)
}

// Len returns the number of clients and groups whose state is held at the
// clock's current time, after dropping every state equal to a fresh one:
// none is counted that made no request in the last two Per of its limit.
func (t *Throttler) Len() int {
	now := t.advance(t.read())
	n := t.clients.count(now)
	for _, g := range t.groups {
		if g.held(now) {
			n++
		}
	}
	return n
}

// The first and last instants that a UnixNano in an int64 can hold.
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
	switch {
	case now.Before(minTime):
		return math.MinInt64
	case now.After(maxTime):
		return math.MaxInt64
	}
	return now.UnixNano()
}

// advance moves latest forward to clockNow, if that is later, and returns
// the result: the Throttler's time. Two calls may still reach a lock in
// the other order, so each shard and group also keeps the latest time it
// has seen.
func (t *Throttler) advance(clockNow int64) int64 {
	if t.system {
		return clockNow // the monotonic clock never goes back
	}
	for {
		old := t.latest.Load()
		if clockNow <= old {
			return old
		}
		if t.latest.CompareAndSwap(old, clockNow) {
			return clockNow
		}
	}
}
