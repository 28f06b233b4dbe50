package throttle

import (
	"hash/maphash"
	"math"
	"sync"
)

// The client table is split into numShards independently locked shards, so
// that goroutines serving different clients rarely wait for each other. A
// client's name is hashed once: the low bits pick its shard, the high 32
// bits are its tag in the shard's index.
const (
	numShards = 64 // a power of two, so that picking one is a mask
	chunkBits = 8
	chunkSize = 1 << chunkBits // entries are allocated this many at a time
)

// clientTable is every client's state under the PerClient limit.
type clientTable interface {
	// allowN decides want requests from the client name with hash h. Its
	// clock read clockNow, the Throttler's time was now, and g is the
	// client's group or nil.
	allowN(name string, h uint64, want, clockNow, now int64, g group) Decision
	// count drops every state that may be dropped at now and returns how
	// many are left.
	count(now int64) int
}

// table is the client table for an algorithm whose state is S. States are
// stored by value in the entries, so a known client costs one index probe
// and one entry, and allocates nothing.
type table[S any] struct {
	alg    algorithm[S]
	rule   rule
	seed   maphash.Seed
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
	head, tail int32 // the list, through entry.prev and entry.next; -1 when empty
	free       int32 // a dropped entry to reuse, the rest linked through next; -1 if none
	used       int32 // entries ever handed out
	live       int32 // entries held
	// index holds, for each entry, its tag in the high 32 bits and its
	// position+1 in the low 32; 0 is an empty slot. Linear probing from
	// tag & (len-1).
	index  []uint64
	chunks []*[chunkSize]entry[S]
	_      [16]byte // a shard is 128 bytes: no two shards' locks share a cache line
}

// entry is one client's state.
type entry[S any] struct {
	name       string
	prev, next int32
	st         S
}

func newTable[S any](alg algorithm[S], r rule, seed maphash.Seed) *table[S] {
	c := &table[S]{alg: alg, rule: r, seed: seed}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.now = math.MinInt64
		sh.first, sh.last = firstOf(sh.now, r.per), lastOf(sh.now, r.per)
		sh.headDrop = math.MaxInt64
		sh.head, sh.tail, sh.free = -1, -1, -1
	}
	return c
}

func (c *table[S]) allowN(name string, h uint64, want, clockNow, now int64, g group) Decision {
	sh := &c.shards[h%numShards]
	tag := uint32(h >> 32)
	// Lock order: the client's shard, then its group. Both are held for
	// the whole decision, which is what makes it all or nothing.
	sh.mu.Lock()
	now = max(now, sh.now)
	if g != nil {
		now = g.enter(now)
	}
	if now > sh.now {
		c.moveTo(sh, now)
	}

	p := sh.find(name, tag)
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
			p = sh.insert(name, tag, c.alg.fresh(now))
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
	if want > c.rule.requests || g != nil && want > g.requests() {
		if g != nil {
			g.leave()
		}
		sh.mu.Unlock()
		return d // never: RetryAfter stays 0
	}
	// Each limit, left alone, only gets better with time, so both allow
	// from the later of the two waits.
	var wait int64
	if want > room {
		wait = c.alg.wait(&e.st, now, want)
	}
	if want > groupRoom {
		wait = max(wait, g.wait(now, want))
	}
	if g != nil {
		g.leave()
	}
	sh.mu.Unlock()
	d.RetryAfter = retryAfter(since(clockNow, now), wait)
	return d
}

func (c *table[S]) count(now int64) int {
	n := 0
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		if now > sh.now {
			c.moveTo(sh, now)
		}
		n += int(sh.live)
		sh.mu.Unlock()
	}
	return n
}

// moveTo brings the shard's time forward to now and drops every entry
// that may be dropped at now. Each entry is dropped once, so this is
// amortized O(1) per charge.
func (c *table[S]) moveTo(sh *shard[S], now int64) {
	sh.now = now
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
	e := sh.at(p)
	e.prev, e.next = sh.tail, -1
	if sh.tail >= 0 {
		sh.at(sh.tail).next = p
	} else {
		sh.head = p
		sh.headDrop = c.rule.dropAfter(c.alg.stamp(&e.st))
	}
	sh.tail = p
}

// unlink takes entry p out of the list.
func (c *table[S]) unlink(sh *shard[S], p int32) {
	e := sh.at(p)
	if e.prev >= 0 {
		sh.at(e.prev).next = e.next
	} else {
		sh.head = e.next
		sh.headDrop = math.MaxInt64
		if e.next >= 0 {
			sh.headDrop = c.rule.dropAfter(c.alg.stamp(&sh.at(e.next).st))
		}
	}
	if e.next >= 0 {
		sh.at(e.next).prev = e.prev
	} else {
		sh.tail = e.prev
	}
}

func (sh *shard[S]) at(p int32) *entry[S] {
	return &sh.chunks[p>>chunkBits][p&(chunkSize-1)]
}

// find returns the position of the entry named name, or -1.
func (sh *shard[S]) find(name string, tag uint32) int32 {
	if len(sh.index) == 0 {
		return -1
	}
	mask := uint32(len(sh.index) - 1)
	for i := tag & mask; ; i = (i + 1) & mask {
		v := sh.index[i]
		if v == 0 {
			return -1
		}
		if uint32(v>>32) == tag {
			if p := int32(uint32(v)) - 1; sh.at(p).name == name {
				return p
			}
		}
	}
}

// insert adds an entry and returns its position. The index is kept at
// most three quarters full.
func (sh *shard[S]) insert(name string, tag uint32, st S) int32 {
	if 4*(int(sh.live)+1) > 3*len(sh.index) {
		sh.grow()
	}
	p := sh.free
	if p >= 0 {
		sh.free = sh.at(p).next
	} else {
		p = sh.used
		if int(p>>chunkBits) == len(sh.chunks) {
			sh.chunks = append(sh.chunks, new([chunkSize]entry[S]))
		}
		sh.used++
	}
	e := sh.at(p)
	e.name, e.st = name, st
	sh.place(uint64(tag)<<32 | uint64(p+1))
	sh.live++
	return p
}

// place puts an index value in the first empty slot from its tag.
func (sh *shard[S]) place(v uint64) {
	mask := uint32(len(sh.index) - 1)
	i := uint32(v>>32) & mask
	for sh.index[i] != 0 {
		i = (i + 1) & mask
	}
	sh.index[i] = v
}

func (sh *shard[S]) grow() {
	old := sh.index
	sh.index = make([]uint64, max(16, 2*len(old)))
	for _, v := range old {
		if v != 0 {
			sh.place(v)
		}
	}
}

// remove drops entry p, already out of the list: it leaves the index by
// backward-shift deletion, so that no tombstones are needed, and its slot
// is kept for the next new client.
func (sh *shard[S]) remove(p int32, seed maphash.Seed) {
	e := sh.at(p)
	mask := uint32(len(sh.index) - 1)
	i := uint32(maphash.String(seed, e.name)>>32) & mask
	for uint32(sh.index[i]) != uint32(p+1) {
		i = (i + 1) & mask
	}
	for j := i; ; {
		j = (j + 1) & mask
		v := sh.index[j]
		if v == 0 {
			break
		}
		// v may fill the hole at i unless its home lies cyclically in (i, j].
		if home := uint32(v>>32) & mask; (j-home)&mask >= (j-i)&mask {
			sh.index[i] = v
			i = j
		}
	}
	sh.index[i] = 0
	var zero S
	e.name, e.st, e.prev, e.next = "", zero, -1, sh.free
	sh.free = p
	sh.live--
}
