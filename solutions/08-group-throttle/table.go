package throttle

import (
	"hash/maphash"
	"math"
	"sync"
)

// The client table is split into numShards independently locked shards, so
// that goroutines serving different clients rarely wait for each other. A
// client's name is hashed once, with maphash: the low bits pick its shard,
// bits 32 and up its home slot in the shard's index, and the top 7 bits are
// its tag there.
const (
	numShards = 64 // a power of two, so that picking one is a mask
	chunkBits = 8
	chunkSize = 1 << chunkBits // entries are allocated this many at a time
	posBits   = 25             // an index slot: a 7-bit tag, then position+1
	posMask   = 1<<posBits - 1
	maxLive   = posMask - 1 // entries a shard can hold: 2^31 clients in all
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
// stored by value in the entries, so a known client costs one index slot
// and one entry, and allocates nothing.
type table[S any] struct {
	alg    algorithm[S]
	rule   rule
	seed   maphash.Seed
	time   *clockTime // the Throttler's time
	shards [numShards]shard[S]
}

// shard is one part of the client table: an open-addressing index into
// entries that never move, and a list of the entries in the order in
// which they may be dropped.
//
// The list is ordered by span, not by request: the Per-long span
// [k·Per, (k+1)·Per) of an entry's latest charge. Every span's states may
// be dropped together after a known instant (rule.dropAfter), so expired
// entries are found at the front without a scan, and an entry moves to the
// back only on its first charge in a new span, not on every request.
type shard[S any] struct {
	mu sync.Mutex
	// now is the shard's time: it never goes back, and every decision on
	// the shard is made at it.
	now int64
	// first and last bound the span that holds now. An entry whose stamp is
	// before first was last charged in an earlier span.
	first, last int64
	// headDrop is the instant after which the list's first entry may be
	// dropped; math.MaxInt64 when the list is empty.
	headDrop   int64
	head, tail int32 // the list, through the links; -1 when empty
	free       int32 // a dropped entry to reuse, the rest linked through next; -1 if none
	used       int32 // entries ever handed out
	live       int32 // entries held
	// index holds, for each entry, its tag in the top 7 bits and its
	// position+1 in the low 25; 0 is an empty slot. Linear probing from
	// the home slot, at most three quarters full.
	index  []uint32
	chunks []chunk[S]
	_      [16]byte // a shard is 128 bytes: no two shards' locks share a cache line
}

// chunk holds chunkSize entries and their links. The links are apart from
// the entries, which they would push across cache lines, and are touched
// only when an entry moves in the list.
type chunk[S any] struct {
	entries *[chunkSize]entry[S]
	links   *[chunkSize]link
}

// entry is one client's state.
type entry[S any] struct {
	name string
	st   S
}

// link is an entry's place in the shard's list.
type link struct{ prev, next int32 }

func newTable[S any](alg algorithm[S], r rule, seed maphash.Seed, time *clockTime) *table[S] {
	c := &table[S]{alg: alg, rule: r, seed: seed, time: time}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.now = math.MinInt64
		sh.first, sh.last = firstOf(sh.now, r.per), lastOf(sh.now, r.per)
		sh.headDrop = math.MaxInt64
		sh.head, sh.tail, sh.free = -1, -1, -1
	}
	return c
}

// home and tag split a hash for the index.
func home(h uint64) uint32 { return uint32(h >> 32) }
func tag(h uint64) uint32  { return uint32(h>>57) << posBits }

func (c *table[S]) allowN(name string, h uint64, want, clockNow int64, g group) Decision {
	sh := &c.shards[h%numShards]
	// Lock order: the client's shard, then its group. Both are held for
	// the whole decision, which is what makes it all or nothing.
	sh.mu.Lock()
	// The Throttler's time moves under the lock, so that calls for one
	// hot client pass the atomic with the lock rather than fight over both.
	now := max(c.time.advance(clockNow), sh.now)
	if g != nil {
		now = g.enter(now)
	}
	if now > sh.now {
		sh.now = now
		if now > sh.last || now > sh.headDrop {
			c.moveTo(sh, now)
		}
	}
	// The home slot holds the client most of the time; find walks on from
	// there.
	p := int32(-1)
	var e *entry[S]
	if n := uint32(len(sh.index)); n > 0 {
		v := sh.index[home(h)&(n-1)]
		if v != 0 && v&^posMask == tag(h) {
			p = int32(v&posMask) - 1
			if e = sh.at(p); e.name != name {
				p, e = sh.find(name, h), nil
			}
		} else if v != 0 {
			p = sh.find(name, h)
		}
	}
	if p < 0 || g != nil {
		return c.decide(sh, p, name, h, want, clockNow, now, g)
	}

	// A known client outside any group: one call to its algorithm.
	if e == nil {
		e = sh.at(p)
	}
	room, stamp := c.alg.take(&e.st, now, want)
	if want <= room {
		if stamp < sh.first {
			c.unlink(sh, p)
			c.push(sh, p)
		}
		sh.mu.Unlock()
		return Decision{Allowed: true, Remaining: int(room - want)}
	}
	d := Decision{Remaining: int(room)}
	if want <= c.rule.requests { // else never: RetryAfter stays 0
		d.RetryAfter = retryAfter(since(clockNow, now), c.alg.wait(&e.st, now, want))
	}
	sh.mu.Unlock()
	return d
}

// decide is allowN for a new client or a client in a group, from its
// position p in the shard (-1 if new). It unlocks the shard and the group.
func (c *table[S]) decide(sh *shard[S], p int32, name string, h uint64, want, clockNow, now int64, g group) Decision {
	var e *entry[S]
	room := c.rule.requests // a client without state is a fresh one
	if p >= 0 {
		e = sh.at(p)
		room = c.alg.room(&e.st, now)
	}
	groupRoom := int64(math.MaxInt64)
	if g != nil {
		groupRoom = g.room(now)
	}

	if want <= room && want <= groupRoom {
		if e == nil {
			p = sh.insert(name, h, c.alg.fresh(now), c.seed)
			e = sh.at(p)
			c.alg.charge(&e.st, now, want)
			c.push(sh, p)
		} else {
			moved := c.alg.stamp(&e.st) < sh.first
			c.alg.charge(&e.st, now, want)
			if moved {
				c.unlink(sh, p)
				c.push(sh, p)
			}
		}
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
			wait = c.alg.wait(&e.st, now, want)
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
		if now > sh.now {
			sh.now = now
			c.moveTo(sh, now)
		}
		n += int(sh.live)
		sh.mu.Unlock()
	}
	return n
}

// moveTo follows the shard's time, just moved forward to now: it moves
// on to now's span, and drops every entry that may be dropped at now. Each
// entry is dropped once, so this is amortized O(1) per charge.
func (c *table[S]) moveTo(sh *shard[S], now int64) {
	if now > sh.last {
		sh.first, sh.last = firstOf(now, c.rule.per), lastOf(now, c.rule.per)
	}
	for now > sh.headDrop {
		p := sh.head
		c.unlink(sh, p)
		sh.remove(p, c.seed)
	}
}

// push puts entry p, just charged, at the end of the list.
func (c *table[S]) push(sh *shard[S], p int32) {
	l := sh.link(p)
	l.prev, l.next = sh.tail, -1
	if sh.tail >= 0 {
		sh.link(sh.tail).next = p
	} else {
		sh.head = p
		sh.headDrop = c.rule.dropAfter(c.alg.stamp(&sh.at(p).st))
	}
	sh.tail = p
}

// unlink takes entry p out of the list.
func (c *table[S]) unlink(sh *shard[S], p int32) {
	l := sh.link(p)
	if l.prev >= 0 {
		sh.link(l.prev).next = l.next
	} else {
		sh.head = l.next
		sh.headDrop = math.MaxInt64
		if l.next >= 0 {
			sh.headDrop = c.rule.dropAfter(c.alg.stamp(&sh.at(l.next).st))
		}
	}
	if l.next >= 0 {
		sh.link(l.next).prev = l.prev
	} else {
		sh.tail = l.prev
	}
}

func (sh *shard[S]) at(p int32) *entry[S] {
	return &sh.chunks[p>>chunkBits].entries[p&(chunkSize-1)]
}

func (sh *shard[S]) link(p int32) *link {
	return &sh.chunks[p>>chunkBits].links[p&(chunkSize-1)]
}

// find returns the position of the entry named name, with hash h, or -1.
func (sh *shard[S]) find(name string, h uint64) int32 {
	if len(sh.index) == 0 {
		return -1
	}
	mask := uint32(len(sh.index) - 1)
	t := tag(h)
	for i := home(h) & mask; ; i = (i + 1) & mask {
		v := sh.index[i]
		if v == 0 {
			return -1
		}
		if v&^posMask == t {
			if p := int32(v&posMask) - 1; sh.at(p).name == name {
				return p
			}
		}
	}
}

// insert adds an entry and returns its position.
func (sh *shard[S]) insert(name string, h uint64, st S, seed maphash.Seed) int32 {
	if sh.live == maxLive {
		panic("throttle: more than 2^31 clients hold state")
	}
	if 4*(int(sh.live)+1) > 3*len(sh.index) {
		sh.grow(seed)
	}
	p := sh.free
	if p >= 0 {
		sh.free = sh.link(p).next
	} else {
		p = sh.used
		if int(p>>chunkBits) == len(sh.chunks) {
			sh.chunks = append(sh.chunks, chunk[S]{new([chunkSize]entry[S]), new([chunkSize]link)})
		}
		sh.used++
	}
	e := sh.at(p)
	e.name, e.st = name, st
	sh.place(h, p)
	sh.live++
	return p
}

// place puts entry p, with hash h, in the first empty slot from its home.
func (sh *shard[S]) place(h uint64, p int32) {
	mask := uint32(len(sh.index) - 1)
	i := home(h) & mask
	for sh.index[i] != 0 {
		i = (i + 1) & mask
	}
	sh.index[i] = tag(h) | uint32(p+1)
}

// grow doubles the index. A slot keeps only 7 bits of its entry's hash, so
// each name is hashed again: amortized, once per insert.
func (sh *shard[S]) grow(seed maphash.Seed) {
	old := sh.index
	sh.index = make([]uint32, max(16, 2*len(old)))
	for _, v := range old {
		if v != 0 {
			p := int32(v&posMask) - 1
			sh.place(maphash.String(seed, sh.at(p).name), p)
		}
	}
}

// remove drops entry p, already out of the list: it leaves the index by
// backward-shift deletion, so that no tombstones are needed, and its slot
// is kept for the next new client. The homes of the slots shifted are
// worked out from their names again.
func (sh *shard[S]) remove(p int32, seed maphash.Seed) {
	e := sh.at(p)
	mask := uint32(len(sh.index) - 1)
	i := home(maphash.String(seed, e.name)) & mask
	for sh.index[i]&posMask != uint32(p+1) {
		i = (i + 1) & mask
	}
	for j := i; ; {
		j = (j + 1) & mask
		v := sh.index[j]
		if v == 0 {
			break
		}
		// v may fill the hole at i unless its home lies cyclically in (i, j].
		if at := home(maphash.String(seed, sh.at(int32(v&posMask)-1).name)) & mask; (j-at)&mask >= (j-i)&mask {
			sh.index[i] = v
			i = j
		}
	}
	sh.index[i] = 0
	var zero S
	e.name, e.st = "", zero
	*sh.link(p) = link{-1, sh.free}
	sh.free = p
	sh.live--
}
