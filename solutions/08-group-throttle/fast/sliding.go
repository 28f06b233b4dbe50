// staticcheck 0.6.1 takes the methods of a generic type that satisfy a
// generic interface for unused (its open issues 1440 and 1642); sliding2's
// are all called through algorithm[S].
//
//lint:file-ignore U1000 false positives on sliding2[C], see above

package fast

import mathbits "math/bits"

// window is what both forms of the sliding window share: B buckets of
// width w = Per/(B−1), bucket i covering [i·w, (i+1)·w). At now, in bucket
// c, elapsed e into it, the window (now−Per, now] holds buckets c−B+2 … c
// whole and the part (w−e)/w of bucket c−B+1, the oldest.
type window struct {
	rule
	buckets int64
	width   int64
}

// weighted is ceil(oldest·(w−e)/w), the oldest bucket's part in the
// window. Since the other buckets and n are whole, rounding it up decides
// exactly as the real number would.
func (a *window) weighted(oldest, e int64) int64 {
	if oldest == 0 || e == 0 {
		return oldest
	}
	return mulDivCeil(oldest, a.width-e, a.width)
}

// elapsed returns how far now is into the bucket whose last instant is
// end, now <= end. A bucket cut short at math.MaxInt64 is measured from
// its start instead.
func (a *window) elapsed(end, now int64) int64 {
	if end < maxInstant {
		return a.width - 1 - (end - now)
	}
	return floorMod(now, a.width)
}

// enter returns the first elapsed e in a bucket from which a fading oldest
// bucket fits in spare >= 0: ceil(oldest·(w−e)/w) <= spare, that is
// w−e <= floor(spare·w/oldest).
func (a *window) enter(oldest, spare int64) int64 {
	if oldest <= spare {
		return 0
	}
	return a.width - mulDivFloor(spare, a.width, oldest)
}

// sliding2 is the sliding window with two buckets, previous and current:
// the common case, kept in three words with no ring, or in two when
// Requests fits in an int32 (C), since no bucket ever holds more than
// Requests: a client's slot is then 32 bytes, half a cache line.
type sliding2[C int32 | int64] struct{ window }

// sliding2State is one client's or group's pair of buckets.
type sliding2State[C int32 | int64] struct {
	end  int64 // the last instant of the bucket of the latest charge, at most math.MaxInt64
	prev C     // the requests in the bucket before it
	cur  C     // the requests in it
}

func (a *sliding2[C]) fresh(now int64) sliding2State[C] {
	return sliding2State[C]{end: lastOf(now, a.width)}
}

// view returns the oldest and newest buckets of the window at now, and how
// far now is into the newest.
func (a *sliding2[C]) view(st *sliding2State[C], now int64) (oldest, newest, e int64) {
	switch {
	case now <= st.end:
		return int64(st.prev), int64(st.cur), a.elapsed(st.end, now)
	case since(st.end, now) <= uint64(a.width):
		return int64(st.cur), 0, now - st.end - 1
	}
	return 0, 0, 0 // both buckets have left
}

func (a *sliding2[C]) room(st *sliding2State[C], now int64) int64 {
	oldest, newest, e := a.view(st, now)
	return max(0, a.requests-newest-a.weighted(oldest, e))
}

func (a *sliding2[C]) charge(st *sliding2State[C], now, n int64) {
	switch {
	case now <= st.end:
	case since(st.end, now) <= uint64(a.width):
		st.prev, st.cur, st.end = st.cur, 0, addSat(st.end, a.width)
	default:
		*st = a.fresh(now)
	}
	st.cur += C(n)
}

func (a *sliding2[C]) take(st *sliding2State[C], now, n int64) (room, at int64) {
	switch {
	case now <= st.end:
		now = max(now, a.from(st))
		if room = max(0, a.requests-int64(st.cur)-a.weighted(int64(st.prev), a.elapsed(st.end, now))); n <= room {
			st.cur += C(n)
		}
	case since(st.end, now) <= uint64(a.width):
		if room = a.requests - a.weighted(int64(st.cur), now-st.end-1); n <= room {
			st.prev, st.cur, st.end = st.cur, C(n), addSat(st.end, a.width)
		}
	default:
		if room = a.requests; n <= room {
			*st = sliding2State[C]{end: lastOf(now, a.width), cur: C(n)}
		}
	}
	return room, now
}

// wait lets time run on from now: first the oldest bucket fades while the
// newest counts whole; if that is not enough, the newest becomes the
// oldest, one bucket later, and fades in turn.
func (a *sliding2[C]) wait(st *sliding2State[C], now, n int64) int64 {
	oldest, newest, e := a.view(st, now)
	if spare := a.requests - newest - n; spare >= 0 {
		return a.enter(oldest, spare) - e
	}
	return a.width - e + a.enter(newest, a.requests-n)
}

func (a *sliding2[C]) stamp(st *sliding2State[C]) int64 { return st.end }
func (a *sliding2[C]) from(st *sliding2State[C]) int64  { return spanStart(st.end, a.width) }

// slidingRing is the sliding window with three buckets or more, in a ring
// with a running total, so that a call costs the same whatever B is. The
// newest and oldest counts are also kept beside the ring, so that a client
// charged again in the same bucket does not touch the ring at all, and a
// bitmap of the buckets that hold requests lets wait skip the empty ones.
type slidingRing struct{ window }

// ringState is one client's or group's ring: 48 bytes, so that an entry
// with its name is one cache line.
type ringState struct {
	end    int64  // the last instant of the bucket of the latest charge, k, at most math.MaxInt64
	cur    int64  // the requests in bucket k; ring[pos] is stale until the ring moves on
	oldest int64  // the requests in bucket k−B+1, ring[(pos+1) mod B]
	total  uint64 // the requests in buckets k−B+1 … k: up to twice Requests
	pos    int64  // the slot of bucket k
	// ring holds B counters, bucket i in slot i mod B, then a bitmap of the
	// slots whose counter is not 0, in ceil(B/64) words. It is behind a
	// pointer, 8 bytes where a slice is 24, since the common case never
	// touches it.
	ring *[]int64
}

// fresh allocates the new client's ring: a new client of a ring
// allocates, a known client never does.
func (a *slidingRing) fresh(now int64) ringState {
	ring := make([]int64, a.buckets+(a.buckets+63)/64)
	return ringState{end: lastOf(now, a.width), ring: &ring}
}

// slot returns the count in slot s.
func (st *ringState) slot(s int64) int64 {
	if s == st.pos {
		return st.cur
	}
	return (*st.ring)[s]
}

// mark sets or clears slot s in the bitmap after the counters.
func (a *slidingRing) mark(st *ringState, s int64, on bool) {
	w := &(*st.ring)[a.buckets+s>>6]
	if on {
		*w |= 1 << (s & 63)
	} else {
		*w &^= 1 << (s & 63)
	}
}

// marked returns the bitmap's bits from slot s to the end of its word.
func (a *slidingRing) marked(st *ringState, s int64) uint64 {
	return uint64((*st.ring)[a.buckets+s>>6]) >> (s & 63)
}

// next is the slot after s.
func (a *slidingRing) next(s int64) int64 {
	if s++; s == a.buckets {
		return 0
	}
	return s
}

// look returns how many buckets the ring would move on to reach now (d),
// how far now is into its bucket (e), and the requests left in the window
// at now. d >= B means every bucket has left.
func (a *slidingRing) look(st *ringState, now int64) (d uint64, e int64, total uint64) {
	switch {
	case now <= st.end:
		return 0, a.elapsed(st.end, now), st.total
	case since(st.end, now) <= uint64(a.width):
		d, e = 1, now-st.end-1
	default:
		d, e = uint64(floorDiv(now, a.width)-floorDiv(st.end, a.width)), floorMod(now, a.width) // exact as uint64
		if d >= uint64(a.buckets) {
			return d, e, 0
		}
	}
	total = st.total
	for i, s := uint64(0), st.pos; i < d; i++ {
		s = a.next(s)
		total -= uint64(st.slot(s))
	}
	return d, e, total
}

// oldestAt is the count of the oldest bucket once the ring has moved on by
// d < B.
func (a *slidingRing) oldestAt(st *ringState, d uint64) int64 {
	if d == 0 {
		return st.oldest
	}
	s := st.pos + int64(d) + 1
	for s >= a.buckets {
		s -= a.buckets
	}
	return st.slot(s)
}

func (a *slidingRing) room(st *ringState, now int64) int64 {
	d, e, total := a.look(st, now)
	if d >= uint64(a.buckets) {
		return a.requests
	}
	oldest := a.oldestAt(st, d)
	whole := int64(total - uint64(oldest)) // at most Requests
	return max(0, a.requests-whole-a.weighted(oldest, e))
}

func (a *slidingRing) charge(st *ringState, now, n int64) {
	d, _, total := a.look(st, now)
	switch {
	case d >= uint64(a.buckets):
		clear(*st.ring)
		*st = ringState{end: lastOf(now, a.width), ring: st.ring}
	case d > 0:
		ring := *st.ring
		ring[st.pos] = st.cur
		for i := uint64(0); i < d; i++ {
			st.pos = a.next(st.pos)
			ring[st.pos] = 0
			a.mark(st, st.pos, false)
		}
		if d == 1 {
			st.end = addSat(st.end, a.width)
		} else {
			st.end = lastOf(now, a.width)
		}
		st.cur, st.total = 0, total
		st.oldest = ring[a.next(st.pos)]
	}
	if st.cur == 0 {
		a.mark(st, st.pos, true)
	}
	st.cur += n
	st.total += uint64(n)
}

// take is room and charge in one pass when now is in the bucket of the
// latest charge, the common case, which reads nothing but the state.
func (a *slidingRing) take(st *ringState, now, n int64) (room, at int64) {
	if now > st.end {
		if room = a.room(st, now); n <= room {
			a.charge(st, now, n)
		}
		return room, now
	}
	now = max(now, a.from(st))
	whole := int64(st.total - uint64(st.oldest)) // at most Requests
	if room = max(0, a.requests-whole-a.weighted(st.oldest, a.elapsed(st.end, now))); n <= room {
		if st.cur == 0 {
			a.mark(st, st.pos, true)
		}
		st.cur += n
		st.total += uint64(n)
	}
	return room, now
}

// wait walks the window at now from its oldest bucket: while the ring
// stands in bucket c+j, the bucket c−B+1+j fades and every newer one counts
// whole. The first j at which the newer ones leave room for n is the
// bucket to wait for; enter finds the instant in it. An empty bucket
// changes nothing, and the walk never stops at one (the request was denied
// with the oldest bucket counted), so the bitmap skips them, 64 at a time.
func (a *slidingRing) wait(st *ringState, now, n int64) int64 {
	d, e, rest := a.look(st, now)
	s := st.pos + int64(d) + 1 // the slot of the oldest bucket of the window
	for s >= a.buckets {
		s -= a.buckets
	}
	charged := a.buckets - int64(d) // the buckets of the window that are in the ring; the rest are empty
	for j := int64(0); j < charged; {
		bits := a.marked(st, s)
		if bits == 0 { // on to the next word, or to slot 0
			step := min(64-s&63, a.buckets-s)
			j, s = j+step, s+step
			if s == a.buckets {
				s = 0
			}
			continue
		}
		skip := int64(mathbits.TrailingZeros64(bits))
		if j, s = j+skip, s+skip; j >= charged {
			break
		}
		oldest := st.slot(s)
		rest -= uint64(oldest)
		if spare := a.requests - int64(rest) - n; spare >= 0 {
			return j*a.width + a.enter(oldest, spare) - e
		}
		j, s = j+1, a.next(s)
	}
	panic("throttle: unreachable: once every bucket has left, the ring has room for n <= Requests")
}

func (a *slidingRing) stamp(st *ringState) int64 { return st.end }
func (a *slidingRing) from(st *ringState) int64  { return spanStart(st.end, a.width) }
