package fast

import (
	"hash/maphash"
	"math"
	"sync"
)

// group is one Group's shared state, under its own lock. Groups are known
// from the config and never deleted; a group only forgets its state once
// that state may be dropped.
type group interface {
	// enter locks the group and brings its time forward to now, forgetting
	// a state that may be dropped; it returns the group's time, which is
	// never before now.
	enter(now int64) int64
	leave()
	// room, charge and wait are the algorithm's, on the group's state.
	room(now int64) int64
	charge(now, n int64)
	wait(now, n int64) int64
	requests() int64
	// heldAt reports whether the group holds a state at now; it locks.
	heldAt(now int64) bool
}

// groupState is a group whose limit's state is S.
type groupState[S any] struct {
	mu   sync.Mutex
	alg  algorithm[S]
	rule rule
	now  int64
	held bool  // whether st may differ from a fresh state
	span int64 // held: the last instant of the span of the latest charge
	drop int64 // held: the instant after which st may be dropped
	st   S
	_    [64]byte // groups hot under many clients do not share a cache line
}

func newGroup[S any](alg algorithm[S], r rule) *groupState[S] {
	return &groupState[S]{alg: alg, rule: r, now: math.MinInt64}
}

func (g *groupState[S]) enter(now int64) int64 {
	g.mu.Lock()
	if now > g.now {
		g.now = now
		if g.held && now > g.drop {
			var zero S
			g.held, g.st = false, zero
		}
	}
	return g.now
}

func (g *groupState[S]) leave() { g.mu.Unlock() }

func (g *groupState[S]) room(now int64) int64 {
	if !g.held {
		return g.rule.requests
	}
	return g.alg.room(&g.st, now)
}

func (g *groupState[S]) charge(now, n int64) {
	fresh := !g.held
	if fresh {
		g.st, g.held = g.alg.fresh(now), true
	}
	g.alg.charge(&g.st, now, n)
	// The drop instant changes only with the first charge in a new span,
	// so it is worked out again only then.
	if stamp := g.alg.stamp(&g.st); fresh || stamp > g.span {
		g.span = lastOf(stamp, g.rule.per)
		g.drop = g.rule.dropAfter(stamp)
	}
}

func (g *groupState[S]) wait(now, n int64) int64 { return g.alg.wait(&g.st, now, n) }
func (g *groupState[S]) requests() int64         { return g.rule.requests }

func (g *groupState[S]) heldAt(now int64) bool {
	g.enter(now)
	defer g.leave()
	return g.held
}

// members finds a client's group: a read-only open-addressing table built
// by New, keyed by the same hash as the client table.
type members struct {
	slots []member
	seed  maphash.Seed
}

type member struct {
	hash   uint64
	client string
	g      group
}

func newMembers(seed maphash.Seed, groups map[string]group) members {
	m := members{seed: seed}
	if len(groups) == 0 {
		return m
	}
	size := 8
	for size < 2*len(groups) {
		size *= 2
	}
	m.slots = make([]member, size)
	for client, g := range groups {
		h := maphash.Comparable(seed, client)
		i := h & uint64(size-1)
		for m.slots[i].g != nil {
			i = (i + 1) & uint64(size-1)
		}
		m.slots[i] = member{h, client, g}
	}
	return m
}

// find returns the group of the client with hash h, or nil. There is at
// least one group.
func (m *members) find(client string, h uint64) group {
	mask := uint64(len(m.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &m.slots[i]
		if s.g == nil {
			return nil
		}
		if s.hash == h && s.client == client {
			return s.g
		}
	}
}
