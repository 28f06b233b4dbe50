// Read this first: the sliding window. Each bucket is a span of time of
// width w = Per/(B−1), bucket i covering [i·w, (i+1)·w). At now, e into
// bucket c, the window (now−Per, now] holds the buckets c−B+2 … c whole
// and the part (w−e)/w of the oldest, c−B+1. Every sum stays exact: the
// oldest bucket's part is rounded up, which decides as the real number
// would, since everything else is whole, and RetryAfter is solved with a
// multiplication, not a division that would round.
//
// Two buckets, the common case, are two counters beside the end of the
// newer one: as small as a fixed window's state. More buckets are a ring
// of B counters with a running total.

package throttle

import "math"

// sliding is a SlidingWindow Limit.
type sliding struct {
	requests, per int64
	width         int64 // w, the width of a bucket
	buckets       int   // B
}

// elapsed is how far now is into the bucket whose last instant is end,
// now <= end. A bucket cut short at math.MaxInt64 is measured from its
// start.
func (s *sliding) elapsed(end, now int64) int64 {
	if end < math.MaxInt64 {
		return s.width - 1 - (end - now)
	}
	return floorMod(now, s.width)
}

// part is ceil(oldest·(w−e)/w), the oldest bucket's part in the window, e
// into the newest bucket.
func (s *sliding) part(oldest, e int64) int64 {
	if oldest == 0 || e == 0 {
		return oldest
	}
	return mulDivCeil(oldest, s.width-e, s.width)
}

// enter is the first e into a bucket from which a fading oldest bucket
// leaves spare >= 0 in the window: ceil(oldest·(w−e)/w) <= spare, that is
// w−e <= floor(spare·w/oldest).
func (s *sliding) enter(oldest, spare int64) int64 {
	if oldest <= spare {
		return 0
	}
	return s.width - mulDivFloor(spare, s.width, oldest)
}

// twoBuckets is one client's or group's window when B = 2: the bucket of
// its latest charge and the one before. *sliding is their rule.
type twoBuckets struct {
	end       int64 // the last instant of the bucket of the latest charge, math.MaxInt64 if it ends past the range
	prev, cur int64 // the requests in the bucket before it and in it
}

func (s *sliding) fresh(now int64) twoBuckets { return twoBuckets{end: lastOf(now, s.width)} }

// view returns the window at now: its oldest and newest buckets, and how
// far now is into the newest.
func (s *sliding) view(w twoBuckets, now int64) (oldest, newest, e int64) {
	switch {
	case now <= w.end:
		return w.prev, w.cur, s.elapsed(w.end, now)
	case since(w.end, now) <= uint64(s.width): // the next bucket
		return w.cur, 0, now - w.end - 1
	}
	return 0, 0, 0 // both buckets have left
}

func (s *sliding) room(w twoBuckets, now int64) int64 {
	oldest, newest, e := s.view(w, now)
	return max(0, s.requests-newest-s.part(oldest, e))
}

func (s *sliding) charge(w twoBuckets, now, n int64) twoBuckets {
	switch {
	case now <= w.end:
	case since(w.end, now) <= uint64(s.width):
		w.prev, w.cur, w.end = w.cur, 0, addSat(w.end, s.width)
	default:
		w = s.fresh(now)
	}
	w.cur += n
	return w
}

// wait lets the oldest bucket fade while the newest counts whole; if that
// is not enough, the newest becomes the oldest a bucket later, and fades
// in turn.
func (s *sliding) wait(w twoBuckets, now, n int64) int64 {
	oldest, newest, e := s.view(w, now)
	if spare := s.requests - newest - n; spare >= 0 {
		return s.enter(oldest, spare) - e
	}
	return s.width - e + s.enter(newest, s.requests-n)
}

// idleAfter is when the bucket of the latest charge has left the window:
// Per after its last instant.
func (s *sliding) idleAfter(w twoBuckets) int64 { return addSat(w.end, s.per) }

// rings is the rule of a SlidingWindow with B > 2. Each ring keeps its
// limit beside it: it is behind a pointer anyway, too large to copy on
// every request, and every copy of the pointer is the same ring, which
// room moves on in place.
type rings struct{ *sliding }

func (r rings) fresh(now int64) *slidingWindow {
	end := lastOf(now, r.width)
	return &slidingWindow{sliding: r.sliding, end: end, charged: end, ring: make([]int64, r.buckets)}
}

func (rings) room(w *slidingWindow, now int64) int64               { return w.room(now) }
func (rings) charge(w *slidingWindow, now, n int64) *slidingWindow { return w.charge(now, n) }
func (rings) wait(w *slidingWindow, now, n int64) int64            { return w.wait(now, n) }
func (rings) idleAfter(w *slidingWindow) int64                     { return w.idleAfter() }

// slidingWindow is one client's or group's ring when B > 2.
type slidingWindow struct {
	*sliding
	end     int64   // the last instant of the newest bucket, math.MaxInt64 if it ends past the range
	charged int64   // the last instant of the newest bucket charged
	pos     int     // the ring slot of the newest bucket
	total   int64   // the requests in the ring
	ring    []int64 // bucket i in slot i mod B
}

// next is the slot after i.
func (w *slidingWindow) next(i int) int {
	if i++; i == w.buckets {
		return 0
	}
	return i
}

// moveTo moves the ring on to the bucket that holds now, emptying each
// bucket it passes and taking it out of the total.
func (w *slidingWindow) moveTo(now int64) {
	if now <= w.end {
		return
	}
	d := uint64(floorDiv(now, w.width)) - uint64(floorDiv(w.end, w.width)) // buckets passed, exact as uint64
	if d >= uint64(w.buckets) {
		clear(w.ring)
		w.total = 0
	} else {
		for range d {
			w.pos = w.next(w.pos)
			w.total -= w.ring[w.pos]
			w.ring[w.pos] = 0
		}
	}
	w.end = lastOf(now, w.width)
}

func (w *slidingWindow) room(now int64) int64 {
	w.moveTo(now)
	oldest := w.ring[w.next(w.pos)]
	return max(0, w.requests-(w.total-oldest)-w.part(oldest, w.elapsed(w.end, now)))
}

func (w *slidingWindow) charge(now, n int64) *slidingWindow {
	w.moveTo(now)
	w.ring[w.pos] += n
	w.total += n
	w.charged = w.end
	return w
}

// wait lets time run on from now. While the ring stands in bucket c+j, the
// bucket c−B+1+j fades and every newer one counts whole. The first j at
// which the newer ones leave room for n is the bucket to wait in, and
// enter the instant in it.
func (w *slidingWindow) wait(now, n int64) int64 {
	e := w.elapsed(w.end, now)
	newer := w.total
	for j, i := int64(0), w.next(w.pos); ; j, i = j+1, w.next(i) {
		oldest := w.ring[i]
		newer -= oldest
		if spare := w.requests - newer - n; spare >= 0 {
			return j*w.width + w.enter(oldest, spare) - e // at most Per plus a bucket
		}
	}
}

// idleAfter is when the newest bucket charged has left the window: Per
// after its last instant.
func (w *slidingWindow) idleAfter() int64 { return addSat(w.charged, w.per) }
