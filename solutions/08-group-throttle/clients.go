// Read this first: the table of clients. A client's name is hashed once
// to pick one of 64 shards; each shard is a map from name to state under
// a mutex of its own, so that goroutines serving different clients rarely
// wait for each other. A decision holds the client's shard lock, and its
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

// clients is every client's state under the PerClient limit.
type clients struct {
	lim      limit
	requests int64
	per      int64
	seed     maphash.Seed
	shards   [numShards]shard
}

// shard is one part of the table of clients.
type shard struct {
	mu sync.Mutex
	// now is the shard's time. The Throttler's time is read before the
	// lock, so two calls may reach the lock out of order; taking the later
	// of the two keeps each state's time from going back.
	now    int64
	states map[string]state
	// sweepAt is the number of states at which the next new client
	// sweeps the shard first: twice what the last sweep left. Between two
	// sweeps come at least half as many new clients as the second one
	// reads, so sweeping is amortized O(1) per new client.
	sweepAt int
	_       [96]byte // 128 bytes a shard, so that no two shards' locks share a cache line
}

func newClients(lim limit, requests, per int64) *clients {
	c := &clients{lim: lim, requests: requests, per: per, seed: maphash.MakeSeed()}
	for i := range c.shards {
		c.shards[i] = shard{now: math.MinInt64, states: map[string]state{}, sweepAt: minSweep}
	}
	return c
}

// allowN decides n requests from the client name, whose clock read
// clockNow when the Throttler's time was now; g is the client's group or
// nil.
func (c *clients) allowN(name string, n, clockNow, now int64, g *group) Decision {
	sh := &c.shards[maphash.String(c.seed, name)%numShards]
	// Lock order: the client's shard, then its group.
	sh.mu.Lock()
	defer sh.mu.Unlock()
	now = max(now, sh.now)
	if g != nil {
		now = g.enter(now)
		defer g.mu.Unlock()
	}
	sh.now = now

	st := sh.states[name]
	room := c.requests // a client without a state is a fresh one
	if st != nil {
		room = st.room(now)
	}
	groupRoom := int64(math.MaxInt64)
	if g != nil {
		groupRoom = g.room(now)
	}
	if n <= room && n <= groupRoom {
		if st == nil {
			st = c.lim.fresh(now)
			sh.add(name, st, c.per)
		}
		st.charge(now, n)
		if g != nil {
			g.charge(now, n)
		}
		return Decision{Allowed: true, Remaining: int(min(room, groupRoom) - n)}
	}

	d := Decision{Remaining: int(min(room, groupRoom))}
	if n > c.requests || g != nil && n > g.requests {
		return d // never: RetryAfter stays 0
	}
	// Left alone, each limit only gets better with time, so both allow
	// from the later of the two waits.
	var wait int64
	if n > room {
		wait = st.wait(now, n)
	}
	if n > groupRoom {
		wait = max(wait, g.wait(now, n))
	}
	d.RetryAfter = retryAfter(since(clockNow, now), wait)
	return d
}

// add stores the state of a new client, sweeping the shard first if the
// map has reached sweepAt. This sweep keeps the states that became equal
// to a fresh one less than a Per ago: they change no answer, and a client
// that comes back soon finds its state and allocates nothing. So the
// memory held follows the clients of the last two or three Per.
func (sh *shard) add(name string, st state, per int64) {
	if len(sh.states) >= sh.sweepAt {
		sh.sweep(per)
	}
	sh.states[name] = st
}

// sweep drops every state that has been equal to a fresh one for more
// than grace at the shard's time. A Go map never gives back its memory,
// so when most of the states went, the rest move to a new map of their
// size.
func (sh *shard) sweep(grace int64) {
	before := len(sh.states)
	for name, st := range sh.states {
		if sh.now > addSat(st.idleAfter(), grace) {
			delete(sh.states, name)
		}
	}
	if len(sh.states) < before/4 {
		kept := make(map[string]state, len(sh.states))
		for name, st := range sh.states {
			kept[name] = st
		}
		sh.states = kept
	}
	sh.sweepAt = max(minSweep, 2*len(sh.states))
}

// count sweeps every shard at now, dropping every state equal to a fresh
// one, and returns how many are left.
func (c *clients) count(now int64) int {
	n := 0
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		sh.now = max(sh.now, now)
		sh.sweep(0)
		n += len(sh.states)
		sh.mu.Unlock()
	}
	return n
}
