// Read this first: the table of clients. A client's name is hashed once
// to pick one of 64 shards; each shard is a map from name to state under
// a mutex of its own, so that goroutines serving different clients rarely
// wait for each other. The map holds each state by value: a known client
// costs the map's own lookup and no pointer more, which on a busy table
// is one cache miss fewer. A decision holds the client's shard lock, and its
// group's, from the first look to the last charge: that is what makes it
// exact and all or nothing. Idle states are swept out before the map
// would grow, never by a timer.

package throttle

import (
	"hash/maphash"
	"math"
	"sync"
)

// numShards is a power of two, so that picking a shard is a mask.
const numShards = 64

// minSweep is the fewest states a shard holds before it sweeps.
const minSweep = 8

// table is the clients under the PerClient limit, whatever its algorithm.
type table interface {
	// allowN decides n requests from the client name, whose clock read
	// clockNow when the Throttler's time was now; g is the client's
	// group or nil.
	allowN(name string, n, clockNow, now int64, g group) Decision
	// count sweeps every shard at now, dropping every state equal to a
	// fresh one, and returns how many are left.
	count(now int64) int
}

// clients is the table of clients for an algorithm whose states are S.
type clients[S any] struct {
	// The shards come first, so that they start on a cache line: a field
	// read on every call that shared a line with the first shard's lock
	// would be taken from the other cores whenever that lock moves.
	shards [numShards]shard[S]
	algorithm[S]
	seed maphash.Seed
}

// shard is one part of the table of clients.
type shard[S any] struct {
	mu sync.Mutex
	// now is the shard's time. The Throttler's time is read before the
	// lock, so two calls may reach the lock out of order; taking the later
	// of the two keeps each state's time from going back.
	now    int64
	states map[string]S
	// sweepAt is the number of states at which the next new client
	// sweeps the shard first: twice what the last sweep left. Between two
	// sweeps come at least half as many new clients as the second one
	// reads, so sweeping is amortized O(1) per new client.
	sweepAt int
	_       [96]byte // 128 bytes a shard, so that no two shards' locks share a cache line
}

func newClients[S any](a algorithm[S]) *clients[S] {
	c := &clients[S]{algorithm: a, seed: maphash.MakeSeed()}
	for i := range c.shards {
		c.shards[i] = shard[S]{now: math.MinInt64, states: map[string]S{}, sweepAt: minSweep}
	}
	return c
}

// allowN holds the client's shard lock, and its group's, for the whole
// decision: that is what makes it exact and all or nothing.
func (c *clients[S]) allowN(name string, n, clockNow, now int64, g group) Decision {
	sh := &c.shards[maphash.Comparable(c.seed, name)%numShards]
	// Lock order: the client's shard, then its group.
	sh.mu.Lock()
	now = max(now, sh.now)
	if g == nil { // the common case first: a known client outside any group, allowed
		sh.now = now
		if st, known := sh.states[name]; known {
			if room := c.rule.room(st, now); n <= room {
				sh.states[name] = c.rule.charge(st, now, n) // a map holds a copy of each state: store the new one
				sh.mu.Unlock()
				return Decision{Allowed: true, Remaining: int(room - n)}
			}
		}
	}
	defer sh.mu.Unlock()
	if g != nil {
		now = g.enter(now)
		sh.now = now
		defer g.leave()
	}
	return c.decide(sh, name, n, clockNow, now, g)
}

// decide is allowN under the locks, for every request but a known
// client's that its limit allows outside any group.
func (c *clients[S]) decide(sh *shard[S], name string, n, clockNow, now int64, g group) Decision {
	st, known := sh.states[name]
	room := c.requests // a client without a state is a fresh one
	if known {
		room = c.rule.room(st, now)
	}
	groupRoom := int64(math.MaxInt64)
	if g != nil {
		groupRoom = g.room(now)
	}
	if n > room || n > groupRoom {
		return c.deny(st, n, room, clockNow, now, g, groupRoom)
	}
	if !known {
		st = c.rule.fresh(now)
		if len(sh.states) >= sh.sweepAt {
			sh.sweep(c.rule, c.per)
		}
	}
	sh.states[name] = c.rule.charge(st, now, n)
	if g != nil {
		g.charge(now, n)
	}
	return Decision{Allowed: true, Remaining: int(min(room, groupRoom) - n)}
}

// deny is the answer to n requests that the client's room or its group's
// does not allow: when to retry, if ever.
func (c *clients[S]) deny(st S, n, room, clockNow, now int64, g group, groupRoom int64) Decision {
	d := Decision{Remaining: int(min(room, groupRoom))}
	if n > c.requests || g != nil && n > g.requests() {
		return d // never: RetryAfter stays 0
	}
	// Left alone, each limit only gets better with time, so both allow
	// from the later of the two waits. A client without a state has room.
	var wait int64
	if n > room {
		wait = c.rule.wait(st, now, n)
	}
	if n > groupRoom {
		wait = max(wait, g.wait(now, n))
	}
	d.RetryAfter = retryAfter(since(clockNow, now), wait)
	return d
}

// sweep drops every state that has been equal to a fresh one for more
// than grace at the shard's time. It runs before a new client is added
// once the map has reached sweepAt, with grace = Per: the states that
// became equal to a fresh one less than a Per ago change no answer, and
// a client that comes back soon finds its state and allocates nothing. So
// the memory held follows the clients of the last two or three Per. A Go
// map never gives back its memory, so when most of the states went, the
// rest move to a new map of their size.
func (sh *shard[S]) sweep(r rule[S], grace int64) {
	before := len(sh.states)
	for name, st := range sh.states {
		if sh.now > addSat(r.idleAfter(st), grace) {
			delete(sh.states, name)
		}
	}
	if len(sh.states) < before/4 {
		kept := make(map[string]S, len(sh.states))
		for name, st := range sh.states {
			kept[name] = st
		}
		sh.states = kept
	}
	sh.sweepAt = max(minSweep, 2*len(sh.states))
}

func (c *clients[S]) count(now int64) int {
	n := 0
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		sh.now = max(sh.now, now)
		sh.sweep(c.rule, 0)
		n += len(sh.states)
		sh.mu.Unlock()
	}
	return n
}
