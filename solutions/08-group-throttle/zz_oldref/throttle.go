// Package throttle is the reference solution of level 8: per-client limits
// by fixed window, sliding window or token bucket, with limits shared by
// groups of clients, exact under concurrency, forgetting idle clients.
package throttle

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"sync"
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

// numShards is how many independently locked parts the client table is
// split into, so that goroutines serving different clients rarely wait for
// each other. A power of two, so that picking one is a mask.
const numShards = 64

// Throttler decides, request by request, whether each client is within its
// limits. It is safe for concurrent use.
//
// Time: the Throttler keeps the latest time it has read from its clock and
// never goes back from it. A clock reading earlier than that is taken as
// that latest time, so no window, ring or bucket ever moves backwards, and
// RetryAfter is still measured from the clock's own reading.
//
// Memory: a client's state is created by its first allowed request and
// dropped once it is equal to a fresh client's (see rule.idle), so a flood
// of new clients can never push out a busy one.
type Throttler struct {
	clk     clock.Clock
	client  rule
	groupOf map[string]*group // read-only after New
	groups  []*group
	seed    maphash.Seed
	latest  atomic.Int64 // the latest time read from clk, Unix ns
	shards  [numShards]shard
}

// shard is one part of the client table. Its entries form a list in the
// order of their last charge, oldest first, so expired ones are found at
// the front without a scan.
type shard struct {
	mu             sync.Mutex
	byName         map[string]*entry
	oldest, newest *entry
	_              [32]byte // keep neighbouring shards' locks on separate cache lines
}

// entry is one client's state.
type entry struct {
	name       string
	lastCharge int64 // Unix ns of the latest allowed request
	prev, next *entry
	st         state
}

// group is one Group's shared state. Groups are known from the config, so
// each has its own lock and is never deleted; held says whether its state
// differs from a fresh one.
type group struct {
	mu         sync.Mutex
	name       string
	rule       rule
	held       bool
	lastCharge int64
	st         state
}

// New returns a Throttler that enforces cfg and reads the time from c. An
// invalid config returns an error that names the field.
func New(c clock.Clock, cfg Config) (*Throttler, error) {
	if c == nil {
		return nil, errors.New("throttle.New: the clock is nil")
	}
	client, err := compile("PerClient", cfg.PerClient)
	if err != nil {
		return nil, err
	}
	t := &Throttler{clk: c, client: client, groupOf: map[string]*group{}, seed: maphash.MakeSeed()}
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
		r, err := compile(field+".Limit", gc.Limit)
		if err != nil {
			return nil, err
		}
		g := &group{name: gc.Name, rule: r}
		for _, name := range gc.Clients {
			if other, ok := t.groupOf[name]; ok && other != g {
				return nil, fmt.Errorf("throttle.New: %s.Clients: client %q is already in group %q; a client belongs to at most one group",
					field, name, other.name)
			}
			t.groupOf[name] = g
		}
		t.groups = append(t.groups, g)
	}
	for i := range t.shards {
		t.shards[i].byName = map[string]*entry{}
	}
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
	g := t.groupOf[client]
	sh := &t.shards[maphash.String(t.seed, client)&(numShards-1)]
	// Lock order: the client's shard, then its group. Both are held for the
	// whole decision, which is what makes it all or nothing.
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if g != nil {
		g.mu.Lock()
		defer g.mu.Unlock()
	}
	// Read the clock under the locks, so that each shard and each group
	// sees the Throttler's time in non-decreasing order.
	clockNow := t.clk.Now().UnixNano()
	now := t.advance(clockNow)
	sh.expire(now - t.client.idle)

	want := int64(n)
	e := sh.byName[client]
	room := t.client.requests // a client without state is a fresh one
	if e != nil {
		room = t.client.room(&e.st, now)
	}
	groupRoom := int64(math.MaxInt64)
	if g != nil {
		g.expire(now)
		groupRoom = g.rule.requests
		if g.held {
			groupRoom = g.rule.room(&g.st, now)
		}
	}

	if want <= room && want <= groupRoom {
		if e == nil {
			e = &entry{name: client, st: t.client.fresh(now)}
			sh.byName[client] = e
		} else {
			sh.unlink(e)
		}
		e.lastCharge = now
		sh.pushNewest(e)
		t.client.charge(&e.st, now, want)
		if g != nil {
			if !g.held {
				g.st, g.held = g.rule.fresh(now), true
			}
			g.lastCharge = now
			g.rule.charge(&g.st, now, want)
		}
		return Decision{Allowed: true, Remaining: int(min(room, groupRoom) - want)}
	}

	d := Decision{Remaining: int(min(room, groupRoom))}
	if want > t.client.requests || g != nil && want > g.rule.requests {
		return d // never: RetryAfter stays 0
	}
	// Each limit, left alone, only gets better with time, so both allow
	// from the later of the two instants at which each would.
	ready := now
	if want > room {
		ready = max(ready, t.client.readyAt(&e.st, now, want))
	}
	if want > groupRoom {
		ready = max(ready, g.rule.readyAt(&g.st, now, want))
	}
	d.RetryAfter = time.Duration(ready - clockNow)
	return d
}

// Len returns the number of clients and groups whose state is held at the
// clock's current time, after dropping every state that has become equal
// to a fresh one.
func (t *Throttler) Len() int {
	clockNow := t.clk.Now().UnixNano()
	n := 0
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		sh.expire(t.advance(clockNow) - t.client.idle)
		n += len(sh.byName)
		sh.mu.Unlock()
	}
	for _, g := range t.groups {
		g.mu.Lock()
		g.expire(t.advance(clockNow))
		if g.held {
			n++
		}
		g.mu.Unlock()
	}
	return n
}

// advance moves the Throttler's time forward to clockNow, if it is later,
// and returns the Throttler's time.
func (t *Throttler) advance(clockNow int64) int64 {
	for {
		latest := t.latest.Load()
		if clockNow <= latest {
			return latest
		}
		if t.latest.CompareAndSwap(latest, clockNow) {
			return clockNow
		}
	}
}

// expire drops the clients whose last charge is at or before cut. Each
// entry is dropped once, so this is amortized O(1) per charge.
func (sh *shard) expire(cut int64) {
	for e := sh.oldest; e != nil && e.lastCharge <= cut; e = sh.oldest {
		sh.unlink(e)
		delete(sh.byName, e.name)
	}
}

func (sh *shard) unlink(e *entry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		sh.oldest = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		sh.newest = e.prev
	}
	e.prev, e.next = nil, nil
}

func (sh *shard) pushNewest(e *entry) {
	e.prev = sh.newest
	if sh.newest != nil {
		sh.newest.next = e
	} else {
		sh.oldest = e
	}
	sh.newest = e
}

// expire forgets the group's state once it equals a fresh one.
func (g *group) expire(now int64) {
	if g.held && g.lastCharge <= now-g.rule.idle {
		g.held, g.st = false, state{}
	}
}

// rule is a Limit compiled for exact integer arithmetic. Times are Unix
// nanoseconds.
type rule struct {
	alg      Algorithm
	requests int64
	per      int64
	buckets  int64 // SlidingWindow: B
	width    int64 // SlidingWindow: bucket width, per/(B-1)
	perToken int64 // TokenBucket: units in one token
	refill   int64 // TokenBucket: units added per nanosecond
	full     int64 // TokenBucket: capacity in units, requests*perToken
	// idle is how long after its last charge a state is certain to equal a
	// fresh one: a fixed window has ended, a bucket has refilled, or every
	// charged bucket has left the ring. Dropping it then changes no answer.
	idle int64
}

// state is one client's or group's counters. Which fields mean what
// depends on the rule's algorithm.
type state struct {
	// at is the window index (FixedWindow), the newest bucket index
	// (SlidingWindow), or the time of the last refill (TokenBucket).
	at int64
	// level is the requests in the window (FixedWindow), the running total
	// of the ring (SlidingWindow), or the tokens in units (TokenBucket).
	level int64
	// ring holds the requests per bucket, bucket i in slot i mod B
	// (SlidingWindow only).
	ring []int64
	// waitN and waitUntil remember the last RetryAfter computed by a
	// SlidingWindow: n requests are allowed from waitUntil. Nothing but a
	// charge changes that answer, and a charge clears it; it spares a hot,
	// denied client the walk over the ring on every request.
	waitN, waitUntil int64
}

func compile(field string, l Limit) (rule, error) {
	r := rule{alg: l.Algorithm, requests: int64(l.Requests), per: int64(l.Per)}
	switch {
	case l.Algorithm < FixedWindow || l.Algorithm > TokenBucket:
		return r, fmt.Errorf("throttle.New: %s.Algorithm: unknown algorithm %v", field, l.Algorithm)
	case l.Requests < 1:
		return r, fmt.Errorf("throttle.New: %s.Requests must be at least 1, got %d", field, l.Requests)
	case l.Per <= 0:
		return r, fmt.Errorf("throttle.New: %s.Per must be positive, got %v", field, l.Per)
	}
	switch l.Algorithm {
	case FixedWindow:
		r.idle = r.per
	case SlidingWindow:
		r.buckets = int64(l.Buckets)
		if r.buckets == 0 {
			r.buckets = 2
		}
		if r.buckets < 2 {
			return r, fmt.Errorf("throttle.New: %s.Buckets must be 0 (meaning 2) or at least 2, got %d", field, l.Buckets)
		}
		if r.per%(r.buckets-1) != 0 {
			return r, fmt.Errorf("throttle.New: %s.Per (%v) must divide evenly into Buckets-1 = %d buckets", field, l.Per, r.buckets-1)
		}
		r.width = r.per / (r.buckets - 1)
		r.idle = r.per + r.width
	case TokenBucket:
		// One token is per/g units and the bucket gains requests/g units
		// a nanosecond, g = gcd(requests, per): every quantity is a whole
		// number, so RetryAfter can be exact.
		g := gcd(r.requests, r.per)
		r.perToken, r.refill = r.per/g, r.requests/g
		hi, full := bits.Mul64(uint64(r.requests), uint64(r.perToken))
		if hi != 0 || full > math.MaxInt64 {
			return r, fmt.Errorf("throttle.New: %s: Requests (%d) and Per (%v) are too large together for exact token arithmetic", field, l.Requests, l.Per)
		}
		r.full = int64(full)
		r.idle = r.per
	}
	return r, nil
}

// fresh returns the state of a client that has made no request, at now.
func (r *rule) fresh(now int64) state {
	switch r.alg {
	case FixedWindow:
		return state{at: floorDiv(now, r.per)}
	case SlidingWindow:
		return state{at: floorDiv(now, r.width), ring: make([]int64, r.buckets)}
	default:
		return state{at: now, level: r.full}
	}
}

// catchUp brings st forward to now: a new window, emptied buckets, or
// refilled tokens. It changes no answer, only how the state is written.
func (r *rule) catchUp(st *state, now int64) {
	switch r.alg {
	case FixedWindow:
		if k := floorDiv(now, r.per); k > st.at {
			st.at, st.level = k, 0
		}
	case SlidingWindow:
		k := floorDiv(now, r.width)
		if k <= st.at {
			return
		}
		if k-st.at >= r.buckets {
			clear(st.ring) // every bucket has left: no need to walk the gap
			st.level = 0
		} else {
			for i := st.at + 1; i <= k; i++ {
				slot := &st.ring[i%r.buckets]
				st.level -= *slot
				*slot = 0
			}
		}
		st.at = k
	case TokenBucket:
		if now <= st.at {
			return
		}
		if missing := r.full - st.level; now-st.at >= ceilDiv(missing, r.refill) {
			st.level = r.full
		} else {
			st.level += (now - st.at) * r.refill
		}
		st.at = now
	}
}

// room returns how many requests the limit would allow at now: the largest
// m with AllowN(m) allowed.
func (r *rule) room(st *state, now int64) int64 {
	r.catchUp(st, now)
	switch r.alg {
	case FixedWindow:
		return r.requests - st.level
	case SlidingWindow:
		// The window (now-per, now] holds the newest B-1 buckets whole and
		// the part (width-elapsed)/width of the oldest. Allowed if
		// rest + weighted + m <= requests; since rest and m are whole, the
		// weighted part can be rounded up.
		oldest := st.ring[(st.at+1)%r.buckets]
		elapsed := now - st.at*r.width
		weighted := mulDivCeil(oldest, r.width-elapsed, r.width)
		return max(0, r.requests-(st.level-oldest)-weighted)
	default:
		return st.level / r.perToken
	}
}

// charge counts n requests at now. room(st, now) has just been called.
func (r *rule) charge(st *state, now, n int64) {
	switch r.alg {
	case FixedWindow:
		st.level += n
	case SlidingWindow:
		st.ring[st.at%r.buckets] += n
		st.level += n
		st.waitN = 0
	default:
		st.level -= n * r.perToken
	}
}

// readyAt returns the first instant from which n requests would be
// allowed, if nothing else is charged. room(st, now) has just returned less
// than n, and n <= requests.
func (r *rule) readyAt(st *state, now, n int64) int64 {
	switch r.alg {
	case FixedWindow:
		return (st.at + 1) * r.per
	case TokenBucket:
		return now + ceilDiv(n*r.perToken-st.level, r.refill)
	}
	if st.waitN == n {
		return st.waitUntil
	}
	// Let time run on from now. While the ring stands in bucket at+j, the
	// oldest bucket is the one in slot (at+1+j) mod B, it fades from full
	// weight to nothing, and every newer one counts whole. Find the first
	// j where the newer ones leave room for n, then the first instant in
	// that bucket where the fading one does too.
	rest := st.level
	for j := range r.buckets {
		oldest := st.ring[(st.at+1+j)%r.buckets]
		rest -= oldest
		spare := r.requests - rest - n // what the oldest may still weigh
		if spare < 0 {
			continue
		}
		// The smallest elapsed e with ceil(oldest*(width-e)/width) <= spare,
		// that is width-e <= floor(spare*width/oldest).
		var e int64
		if oldest > spare {
			e = r.width - mulDivFloor(spare, r.width, oldest)
		}
		st.waitN, st.waitUntil = n, max(now, (st.at+j)*r.width+e)
		return st.waitUntil
	}
	// Unreachable: in the last step rest is 0 and spare = requests-n >= 0.
	return (st.at + r.buckets) * r.width
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// floorDiv divides rounding towards minus infinity, so that instants
// before the epoch fall in the right window too.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// ceilDiv is ceil(a/b) for a >= 0, b > 0, without the overflow of
// (a+b-1)/b when a is near the top of int64.
func ceilDiv(a, b int64) int64 {
	if a == 0 {
		return 0
	}
	return (a-1)/b + 1
}

// mulDivFloor is floor(a*b/c) for a, b >= 0 and c > 0, computed in 128
// bits; the caller makes sure the quotient fits (a < c).
func mulDivFloor(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q)
}

// mulDivCeil is ceil(a*b/c) for a, b >= 0 and 0 < b <= c, computed in 128
// bits so that large limits over long windows do not overflow.
func mulDivCeil(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, rem := bits.Div64(hi, lo, uint64(c))
	if rem != 0 {
		q++
	}
	return int64(q)
}
