// Read this first: a group's limit is shared by its clients, so its state
// has a lock of its own, taken after the client's shard lock. A request
// is allowed only if both the client's limit and its group's allow it;
// then both are charged, or neither. Groups come from the config and are
// never deleted; a group only forgets its state once that is equal to a
// fresh one.

package throttle

import "sync"

// group is one Group's shared state.
type group struct {
	mu       sync.Mutex
	name     string
	lim      limit
	requests int64
	now      int64    // the group's time, which never goes back
	st       state    // nil while equal to a fresh state
	_        [64]byte // a group hot under many clients shares no cache line
}

// enter locks the group and moves its time on to now, if that is later,
// dropping a state equal to a fresh one. It returns the group's time.
func (g *group) enter(now int64) int64 {
	g.mu.Lock()
	g.now = max(g.now, now)
	if g.st != nil && g.now > g.st.idleAfter() {
		g.st = nil
	}
	return g.now
}

// room, charge and wait are the state's, under the lock taken by enter.
func (g *group) room(now int64) int64 {
	if g.st == nil {
		return g.requests
	}
	return g.st.room(now)
}

func (g *group) charge(now, n int64) {
	if g.st == nil {
		g.st = g.lim.fresh(now)
	}
	g.st.charge(now, n)
}

// wait has a state to ask: a fresh one would have had room.
func (g *group) wait(now, n int64) int64 { return g.st.wait(now, n) }

// held reports whether the group holds a state at now.
func (g *group) held(now int64) bool {
	g.enter(now)
	defer g.mu.Unlock()
	return g.st != nil
}
