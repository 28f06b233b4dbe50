// Read this first: a group's limit is shared by its clients, so its state
// has a lock of its own, taken after the client's shard lock. A request
// is allowed only if both the client's limit and its group's allow it;
// then both are charged, or neither. Groups come from the config and are
// never deleted; a group only forgets its state once that is equal to a
// fresh one.

package throttle

import "sync"

// group is one Group's shared state, whatever its algorithm.
type group interface {
	// enter locks the group and moves its time on to now, if that is
	// later, dropping a state equal to a fresh one. It returns the
	// group's time. leave unlocks it.
	enter(now int64) int64
	leave()
	// room, charge and wait are the state's, between enter and leave.
	// requests is the Limit's Requests.
	room(now int64) int64
	charge(now, n int64)
	wait(now, n int64) int64
	// held reports whether the group holds a state at now.
	held(now int64) bool
	requests() int64
	groupName() string
}

// sharedState is a group whose limit's states are S.
type sharedState[S any] struct {
	lim  algorithm[S]
	mu   sync.Mutex
	name string
	now  int64 // the group's time, which never goes back
	st   S
	has  bool     // whether st is held; while it is not, the group is fresh
	_    [64]byte // a group hot under many clients shares no cache line
}

func (g *sharedState[S]) enter(now int64) int64 {
	g.mu.Lock()
	g.now = max(g.now, now)
	if g.has && g.now > g.lim.rule.idleAfter(g.st) {
		var fresh S
		g.st, g.has = fresh, false
	}
	return g.now
}

func (g *sharedState[S]) leave() { g.mu.Unlock() }

func (g *sharedState[S]) room(now int64) int64 {
	if !g.has {
		return g.lim.requests
	}
	return g.lim.rule.room(g.st, now)
}

func (g *sharedState[S]) charge(now, n int64) {
	if !g.has {
		g.st, g.has = g.lim.rule.fresh(now), true
	}
	g.st = g.lim.rule.charge(g.st, now, n)
}

// wait has a state to ask: a fresh one would have had room.
func (g *sharedState[S]) wait(now, n int64) int64 { return g.lim.rule.wait(g.st, now, n) }

func (g *sharedState[S]) held(now int64) bool {
	g.enter(now)
	defer g.leave()
	return g.has
}

func (g *sharedState[S]) requests() int64   { return g.lim.requests }
func (g *sharedState[S]) groupName() string { return g.name }
