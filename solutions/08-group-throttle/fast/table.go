package fast

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
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
// A known client outside any group takes no lock of the shard: it finds
// its slot and holds that slot alone (hold), so that two cores serving
// different clients write no line in common. Everything else (a new
// client, a client in a group, a denial's slow cases, sweeping, growing)
// takes the shard's mutex, and then holds the slot too. See hold for the
// rules that make this safe.
//
// A state that may be dropped (equal to a fresh client's) is left in place
// until the shard sweeps: it decides exactly as a fresh state would, so
// keeping it changes no answer. Sweeps come before the shard grows and in
// Len, which therefore counts only the states that differ from a fresh one.
type shard[S any] struct {
	mu sync.Mutex
	// now is the shard's time under the mutex: it never goes back. A call
	// that holds only a slot decides at its own time, or at the state's
	// (from), whichever is later.
	now  int64
	live int // slots in use
	// slots is read without the mutex, so it is replaced, not changed, when
	// the shard grows: the old slots stay held for ever, and a call that
	// finds one held takes the mutex and then finds the new ones.
	slots atomic.Pointer[[]slot[S]]
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
	// key is read and written with sync/atomic only: calls without the
	// shard's mutex probe it. Its bit held is the slot's own lock.
	key uint64 // the hash's top 24 bits, then 1, then held, then the name's length in 38 bits
	st  S
}

const (
	lenBits = 38
	held    = 1 << lenBits // the slot is held: its name and state are the holder's
	hashAt  = 40           // key>>hashAt is the hash's top 24 bits
)

// keyOf returns the slot key of a name of n bytes with hash h: never 0,
// and never held.
func keyOf(h uint64, n int) uint64 {
	if uint64(n) >= 1<<lenBits {
		tooLong(n)
	}
	return h>>hashAt<<hashAt | 1<<(lenBits+1) | uint64(n)
}

// tooLong is out of line, so that keyOf stays small enough to inline.
//
//go:noinline
func tooLong(n int) {
	panic(fmt.Sprintf("throttle: a client name of %d bytes: names are at most 2^38-1 bytes", n))
}

// home is the first slot to probe for key among n, from its hash bits:
// stored in the key, so that moving a slot never hashes its name again.
func home(key uint64, n int) int { return int((key >> hashAt) * uint64(n) >> (64 - hashAt)) }

func newTable[S any](alg algorithm[S], r rule, time *clockTime) *table[S] {
	c := &table[S]{alg: alg, rule: r, time: time}
	for i := range c.shards {
		c.shards[i].now = math.MinInt64
		slots := make([]slot[S], minSlots)
		c.shards[i].slots.Store(&slots)
	}
	return c
}

func (c *table[S]) allowN(name string, h uint64, want, clockNow int64, g group) Decision {
	sh := &c.shards[h%numShards]
	key := keyOf(h, len(name))
	if g == nil {
		if s := sh.hold(name, key); s != nil { // the common case: a known client outside any group
			room, now := c.alg.take(&s.st, c.time.advance(clockNow), want)
			if want <= room {
				release(s, key)
				return Decision{Allowed: true, Remaining: int(room - want)}
			}
			d := Decision{Remaining: int(room)}
			if want <= c.rule.requests { // else never: RetryAfter stays 0
				d.RetryAfter = retryAfter(since(clockNow, now), c.alg.wait(&s.st, now, want))
			}
			release(s, key)
			return d
		}
	}
	return c.locked(sh, name, key, want, clockNow, g)
}

// locked is allowN under the shard's mutex, for a new client, a client
// in a group, or a slot held by another call. It is a function of its
// own so that allowN, with no defer, stays small.
func (c *table[S]) locked(sh *shard[S], name string, key uint64, want, clockNow int64, g group) Decision {
	// Lock order: the client's shard, then its group, then the slot. All
	// are held for the whole decision, which is what makes it all or
	// nothing.
	sh.mu.Lock()
	defer sh.mu.Unlock()
	now := max(c.time.advance(clockNow), sh.now)
	if g != nil {
		now = g.enter(now)
		defer g.leave()
	}
	sh.now = now
	return c.decide(sh, name, key, want, clockNow, now, g)
}

// decide is allowN under the shard's mutex and the group's.
func (c *table[S]) decide(sh *shard[S], name string, key uint64, want, clockNow, now int64, g group) Decision {
	room := c.rule.requests // a client without state is a fresh one
	s := sh.find(name, key)
	if s != nil {
		wait(&s.key)
		defer release(s, key)
		now = max(now, c.alg.from(&s.st))
		room = c.alg.room(&s.st, now)
	}
	groupRoom := int64(math.MaxInt64)
	if g != nil {
		groupRoom = g.room(now)
	}

	if want <= room && want <= groupRoom {
		if s != nil {
			c.alg.charge(&s.st, now, want)
		} else {
			// Charged in its slot, still held: a fresh state charged
			// on the stack would escape to the heap through the
			// algorithm's interface, an allocation for each new client.
			added := c.insert(sh, name, key, c.alg.fresh(now))
			c.alg.charge(&added.st, now, want)
			release(added, key)
		}
		if g != nil {
			g.charge(now, want)
		}
		return Decision{Allowed: true, Remaining: int(min(room, groupRoom) - want)}
	}

	d := Decision{Remaining: int(min(room, groupRoom))}
	if want <= c.rule.requests && (g == nil || want <= g.requests()) { // else never: RetryAfter stays 0
		// Each limit, left alone, only gets better with time, so both
		// allow from the later of the two waits.
		var w int64
		if want > room {
			w = c.alg.wait(&s.st, now, want)
		}
		if want > groupRoom {
			w = max(w, g.wait(now, want))
		}
		d.RetryAfter = retryAfter(since(clockNow, now), w)
	}
	return d
}

func (c *table[S]) count(now int64) int {
	n := 0
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		sh.now = max(sh.now, now)
		slots := *sh.slots.Load()
		holdAll(slots)
		c.sweep(sh, slots)
		releaseAll(slots)
		n += sh.live
		sh.mu.Unlock()
	}
	return n
}

// hold finds the client's slot without the shard's mutex and holds it,
// or returns nil: for a new client, and whenever the slot is held by
// another call or the shard is moving its slots. The caller then takes
// the mutex, under which nothing is missed.
//
// Why this is safe. Under the mutex, a slot's name and key change only
// while it is held or empty, and a key is stored last: so whoever takes
// the held bit from a key that matches reads the name and state that
// went with it, and owns them until it lets go. The name is compared only
// then, since a sweep may have moved another client of the same key into
// the slot in between. Growing holds every old slot for ever, so a call
// that still reads the old slots finds them held and takes the mutex.
func (sh *shard[S]) hold(name string, key uint64) *slot[S] {
	slots := *sh.slots.Load()
	n := len(slots)
	for i := home(key, n); ; {
		s := &slots[i]
		k := atomic.LoadUint64(&s.key)
		for spin := 0; k == key|held && spin < spins; spin++ {
			k = atomic.LoadUint64(&s.key) // a hot client's slot, held by another core for a moment
		}
		switch k {
		case key:
			if !atomic.CompareAndSwapUint64(&s.key, key, key|held) {
				return nil
			}
			if s.name == unsafe.StringData(name) || unsafe.String(s.name, len(name)) == name {
				return s
			}
			release(s, key) // another client with the same key
		case 0:
			return nil
		}
		// A slot that stays held is passed over: the probe then ends at an
		// empty slot, and the caller takes the mutex.
		if i++; i == n {
			i = 0
		}
	}
}

// wait holds the slot whose key is at k, under the shard's mutex: its
// holder, if any, is a call that holds nothing else and lets go within a
// few instructions. It returns the key, or 0 for an empty slot, which
// only the mutex's holder fills.
func wait(k *uint64) uint64 {
	for spin := 0; ; spin++ {
		key := atomic.LoadUint64(k)
		if key == 0 || key&held == 0 && atomic.CompareAndSwapUint64(k, key, key|held) {
			return key
		}
		switch {
		case spin >= 2*spins:
			// The holder has lost its CPU: sleep, so that a busy
			// machine can give it back.
			time.Sleep(time.Microsecond)
		case spin >= spins:
			runtime.Gosched()
		}
	}
}

// spins is how many times a call reads a held slot again before it gives
// up (hold) or yields its CPU (wait): a slot is held for tens of
// nanoseconds, a yield costs hundreds.
const spins = 100

// release lets go of a slot held with key.
func release[S any](s *slot[S], key uint64) { atomic.StoreUint64(&s.key, key) }

// holdAll holds every slot, for the shard's mutex holder to move them.
func holdAll[S any](slots []slot[S]) {
	for i := range slots {
		wait(&slots[i].key)
	}
}

// releaseAll lets go of every slot held by holdAll.
func releaseAll[S any](slots []slot[S]) {
	for i := range slots {
		if key := atomic.LoadUint64(&slots[i].key); key != 0 {
			atomic.StoreUint64(&slots[i].key, key&^held)
		}
	}
}

// find returns the slot of the client named name, with key key, or nil,
// under the shard's mutex. A shard always has an empty slot, so the
// probe ends.
func (sh *shard[S]) find(name string, key uint64) *slot[S] {
	slots := *sh.slots.Load()
	n := len(slots)
	for i := home(key, n); ; {
		s := &slots[i]
		k := atomic.LoadUint64(&s.key) &^ held
		if k == key && (s.name == unsafe.StringData(name) || unsafe.String(s.name, len(name)) == name) {
			return s
		}
		if k == 0 {
			return nil
		}
		if i++; i == n {
			i = 0
		}
	}
}

// insert adds a client that is not in the shard, with its state, under
// the shard's mutex, and returns its slot, held: the caller lets go of it.
// It allocates only when the shard grows.
func (c *table[S]) insert(sh *shard[S], name string, key uint64, st S) *slot[S] {
	slots := *sh.slots.Load()
	if 16*(sh.live+1) > maxLoad*len(slots) {
		holdAll(slots)
		c.sweep(sh, slots)
		if 16*(sh.live+1) > growLoad*len(slots) {
			slots = sh.grow(slots) // the old slots stay held
		} else {
			releaseAll(slots)
		}
	}
	s := &slots[free(slots, key)]
	s.name, s.st = unsafe.StringData(name), st
	atomic.StoreUint64(&s.key, key|held) // last: the slot is found from now on, held
	sh.live++
	return s
}

// free returns the first empty slot from key's home.
func free[S any](slots []slot[S], key uint64) int {
	n := len(slots)
	i := home(key, n)
	for atomic.LoadUint64(&slots[i].key) != 0 {
		if i++; i == n {
			i = 0
		}
	}
	return i
}

// grow moves the shard to half as many slots again, or more, until it is
// at most growLoad/16 full with one more client, and returns the new
// slots. The old ones are all held, and stay so.
func (sh *shard[S]) grow(old []slot[S]) []slot[S] {
	n := max(minSlots, len(old)+len(old)/2)
	for 16*(sh.live+1) > growLoad*n {
		n += n / 2
	}
	slots := make([]slot[S], n)
	for i := range old {
		if key := atomic.LoadUint64(&old[i].key) &^ held; key != 0 {
			s := &slots[free(slots, key)]
			s.name, s.key, s.st = old[i].name, key, old[i].st // not yet seen by any other call
		}
	}
	sh.slots.Store(&slots)
	return slots
}

// sweep drops every state that may be dropped at the shard's time, with
// every slot held.
func (c *table[S]) sweep(sh *shard[S], slots []slot[S]) {
	for i := 0; i < len(slots); {
		s := &slots[i]
		if atomic.LoadUint64(&s.key) != 0 && sh.now > c.rule.dropAfter(c.alg.stamp(&s.st)) {
			sh.remove(slots, i)
			continue // a later slot may have moved into i
		}
		i++
	}
}

// remove empties slot i by backward-shift deletion, so that no tombstones
// are needed: each later slot of the cluster that may move back into the
// hole does. Every slot is held.
func (sh *shard[S]) remove(slots []slot[S], i int) {
	n := len(slots)
	for j := i; ; {
		if j++; j == n {
			j = 0
		}
		s := &slots[j]
		key := atomic.LoadUint64(&s.key)
		if key == 0 {
			break
		}
		// s may fill the hole at i unless its home lies cyclically in (i, j].
		fromHome, fromHole := j-home(key, n), j-i
		if fromHome < 0 {
			fromHome += n
		}
		if fromHole < 0 {
			fromHole += n
		}
		if fromHome >= fromHole {
			slots[i].name, slots[i].st = s.name, s.st
			atomic.StoreUint64(&slots[i].key, key)
			i = j
		}
	}
	var zero S
	slots[i].name, slots[i].st = nil, zero
	atomic.StoreUint64(&slots[i].key, 0)
	sh.live--
}
