package fast

import (
	"fmt"
	"math"
	"sync"
	"unsafe"
)

// The client table is split into numShards independently locked shards, so
// that goroutines serving different clients rarely wait for each other. A
// client's name is hashed once, with maphash: the low bits pick its shard,
// and the top 24 bits, with the name's length, are its key in the shard.
const numShards = 64 // a power of two, so that picking one is a mask

// A shard's slots are at most maxLoad/16 full. When an insert would pass
// that, the shard first sweeps out every state that may be dropped; if it
// is still more than growLoad/16 full, it grows by half. Between two sweeps
// come at least (maxLoad-growLoad)/16 of the slots in inserts, so sweeping
// is amortized O(1) per new client; while no state may be dropped, a shard
// is between 13/24 and 13/16 full: 39 to 59 bytes a client for 32-byte
// slots.
const (
	maxLoad  = 13
	growLoad = 11
	minSlots = 8
)

// clientTable is every client's state under the PerClient limit.
type clientTable interface {
	// allowN decides want requests from the client name with hash h. Its
	// clock read clockNow, and g is the client's group or nil.
	allowN(name string, h uint64, want, clockNow int64, g group) Decision
	// count drops every state that may be dropped at now and returns how
	// many are left.
	count(now int64) int
}

// table is the client table for an algorithm whose state is S. States are
// stored by value in the shards' slots, so that finding a known client
// costs one cache miss, not two (an index, then an entry), and allocates
// nothing.
type table[S any] struct {
	// The shards come first, so that they start on a cache line: the
	// fields below are read on every call, and if they shared a line with
	// the first shard's lock, every core would lose that line whenever
	// the lock moved.
	shards [numShards]shard[S]
	alg    algorithm[S]
	rule   rule
	time   *clockTime // the Throttler's time
}

// shard is one part of the client table: an open-addressing table with
// linear probing, its slots holding the states themselves.
//
// A state that may be dropped (equal to a fresh client's) is left in place
// until the shard sweeps: it decides exactly as a fresh state would, so
// keeping it changes no answer. Sweeps come before the shard grows and in
// Len, which therefore counts only the states that differ from a fresh one.
type shard[S any] struct {
	mu sync.Mutex
	// now is the shard's time: it never goes back, and every decision on
	// the shard is made at it.
	now   int64
	live  int // slots in use
	slots []slot[S]
	_     [80]byte // a shard is 128 bytes: no two shards' locks share a cache line
}

// slot is one client's state, or empty when key is 0.
//
// The name is kept as its bytes' address, with its length in key, so that
// a slot of a 16-byte state is 32 bytes, two to a cache line: a string
// header would leave no room for the hash bits that let a probe pass
// another client's slot without reading its name.
//
// Why the pointer is safe: a Go string's bytes never change, and a *byte
// into them is a pointer the garbage collector follows like any other, so
// the bytes stay alive, and the same, as long as the slot holds the
// pointer. unsafe.String(name, n) rebuilds the string from it only with
// the n stored in key, the length it was taken with.
type slot[S any] struct {
	name *byte
	key  uint64 // the hash's top 24 bits, then 1, then the name's length in 39 bits
	st   S
}

const (
	lenBits = 39
	hashAt  = 40 // key>>hashAt is the hash's top 24 bits
)

// keyOf returns the slot key of a name of n bytes with hash h: never 0.
func keyOf(h uint64, n int) uint64 {
	if uint64(n) >= 1<<lenBits {
		tooLong(n)
	}
	return h>>hashAt<<hashAt | 1<<lenBits | uint64(n)
}

// tooLong is out of line, so that keyOf stays small enough to inline.
//
//go:noinline
func tooLong(n int) {
	panic(fmt.Sprintf("throttle: a client name of %d bytes: names are at most 2^39-1 bytes", n))
}

// home is the first slot to probe for key among n, from its hash bits:
// stored in the key, so that moving a slot never hashes its name again.
func home(key uint64, n int) int { return int((key >> hashAt) * uint64(n) >> (64 - hashAt)) }

func newTable[S any](alg algorithm[S], r rule, time *clockTime) *table[S] {
	c := &table[S]{alg: alg, rule: r, time: time}
	for i := range c.shards {
		c.shards[i].now = math.MinInt64
		c.shards[i].slots = make([]slot[S], minSlots)
	}
	return c
}

func (c *table[S]) allowN(name string, h uint64, want, clockNow int64, g group) Decision {
	sh := &c.shards[h%numShards]
	key := keyOf(h, len(name))
	// Lock order: the client's shard, then its group. Both are held for
	// the whole decision, which is what makes it all or nothing.
	sh.mu.Lock()
	// The Throttler's time moves under the lock, so that calls for one
	// hot client pass the atomic with the lock rather than fight over both.
	now := max(c.time.advance(clockNow), sh.now)
	if g != nil {
		now = g.enter(now)
	}
	sh.now = now
	i := sh.find(name, key)
	if i < 0 || g != nil {
		return c.decide(sh, i, name, key, want, clockNow, now, g)
	}

	// A known client outside any group: one call to its algorithm.
	st := &sh.slots[i].st
	room := c.alg.take(st, now, want)
	if want <= room {
		sh.mu.Unlock()
		return Decision{Allowed: true, Remaining: int(room - want)}
	}
	d := Decision{Remaining: int(room)}
	if want <= c.rule.requests { // else never: RetryAfter stays 0
		d.RetryAfter = retryAfter(since(clockNow, now), c.alg.wait(st, now, want))
	}
	sh.mu.Unlock()
	return d
}

// decide is allowN for a new client or a client in a group, from its
// slot i in the shard (-1 if new). It unlocks the shard and the group.
func (c *table[S]) decide(sh *shard[S], i int, name string, key uint64, want, clockNow, now int64, g group) Decision {
	room := c.rule.requests // a client without state is a fresh one
	if i >= 0 {
		room = c.alg.room(&sh.slots[i].st, now)
	}
	groupRoom := int64(math.MaxInt64)
	if g != nil {
		groupRoom = g.room(now)
	}

	if want <= room && want <= groupRoom {
		if i < 0 {
			i = c.insert(sh, name, key, c.alg.fresh(now))
		}
		c.alg.charge(&sh.slots[i].st, now, want)
		if g != nil {
			g.charge(now, want)
			g.leave()
		}
		sh.mu.Unlock()
		return Decision{Allowed: true, Remaining: int(min(room, groupRoom) - want)}
	}

	d := Decision{Remaining: int(min(room, groupRoom))}
	if want <= c.rule.requests && (g == nil || want <= g.requests()) { // else never: RetryAfter stays 0
		// Each limit, left alone, only gets better with time, so both
		// allow from the later of the two waits.
		var wait int64
		if want > room {
			wait = c.alg.wait(&sh.slots[i].st, now, want)
		}
		if want > groupRoom {
			wait = max(wait, g.wait(now, want))
		}
		d.RetryAfter = retryAfter(since(clockNow, now), wait)
	}
	if g != nil {
		g.leave()
	}
	sh.mu.Unlock()
	return d
}

func (c *table[S]) count(now int64) int {
	n := 0
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		sh.now = max(sh.now, now)
		c.sweep(sh)
		n += sh.live
		sh.mu.Unlock()
	}
	return n
}

// find returns the slot of the client named name, with key key, or -1.
// A shard always has slots, and always an empty one, so the probe ends.
func (sh *shard[S]) find(name string, key uint64) int {
	n := len(sh.slots)
	for i := home(key, n); ; {
		s := &sh.slots[i]
		if s.key == key && (s.name == unsafe.StringData(name) || unsafe.String(s.name, len(name)) == name) {
			return i
		}
		if s.key == 0 {
			return -1
		}
		if i++; i == n {
			i = 0
		}
	}
}

// insert adds a client that is not in the shard, and returns its slot.
// It allocates only when the shard grows.
func (c *table[S]) insert(sh *shard[S], name string, key uint64, st S) int {
	if 16*(sh.live+1) > maxLoad*len(sh.slots) {
		c.sweep(sh)
		if 16*(sh.live+1) > growLoad*len(sh.slots) {
			sh.grow()
		}
	}
	i := sh.free(key)
	sh.slots[i] = slot[S]{name: unsafe.StringData(name), key: key, st: st}
	sh.live++
	return i
}

// free returns the first empty slot from key's home.
func (sh *shard[S]) free(key uint64) int {
	n := len(sh.slots)
	i := home(key, n)
	for sh.slots[i].key != 0 {
		if i++; i == n {
			i = 0
		}
	}
	return i
}

// grow moves the shard to half as many slots again, or more, until it is
// at most growLoad/16 full with one more client.
func (sh *shard[S]) grow() {
	n := max(minSlots, len(sh.slots)+len(sh.slots)/2)
	for 16*(sh.live+1) > growLoad*n {
		n += n / 2
	}
	old := sh.slots
	sh.slots = make([]slot[S], n)
	for i := range old {
		if old[i].key != 0 {
			sh.slots[sh.free(old[i].key)] = old[i]
		}
	}
}

// sweep drops every state that may be dropped at the shard's time.
func (c *table[S]) sweep(sh *shard[S]) {
	for i := 0; i < len(sh.slots); {
		s := &sh.slots[i]
		if s.key != 0 && sh.now > c.rule.dropAfter(c.alg.stamp(&s.st)) {
			sh.remove(i)
			continue // a later slot may have moved into i
		}
		i++
	}
}

// remove empties slot i by backward-shift deletion, so that no tombstones
// are needed: each later slot of the cluster that may move back into the
// hole does.
func (sh *shard[S]) remove(i int) {
	n := len(sh.slots)
	for j := i; ; {
		if j++; j == n {
			j = 0
		}
		s := &sh.slots[j]
		if s.key == 0 {
			break
		}
		// s may fill the hole at i unless its home lies cyclically in (i, j].
		fromHome, fromHole := j-home(s.key, n), j-i
		if fromHome < 0 {
			fromHome += n
		}
		if fromHole < 0 {
			fromHole += n
		}
		if fromHome >= fromHole {
			sh.slots[i] = *s
			i = j
		}
	}
	sh.slots[i] = slot[S]{}
	sh.live--
}
