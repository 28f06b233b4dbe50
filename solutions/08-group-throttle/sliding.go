// Read this first: the sliding window, a ring of B counters with a running
// total. Each counter is a bucket of time of width w = Per/(B−1), bucket i
// covering [i·w, (i+1)·w). At now, e into bucket c, the window
// (now−Per, now] holds the buckets c−B+2 … c whole and the part (w−e)/w of
// the oldest, c−B+1. Every sum stays exact: the oldest bucket's part is
// rounded up, which decides as the real number would, since everything
// else is whole, and RetryAfter is solved with a multiplication, not a
// division that would round.

package throttle

import "math"

// sliding is a SlidingWindow Limit.
type sliding struct {
	requests, per int64
	width         int64 // w, the width of a bucket
	buckets       int   // B
}

// slidingWindow is one client's or group's ring.
type slidingWindow struct {
	*sliding
	end     int64    // the last instant of the newest bucket, math.MaxInt64 if it ends past the range
	charged int64    // the last instant of the newest bucket charged
	pos     int      // the ring slot of the newest bucket
	total   int64    // the requests in the ring
	ring    []int64  // bucket i in slot i mod B
	two     [2]int64 // the ring when B = 2, the common case: in the same allocation, so in the same cache line
}

func (s *sliding) fresh(now int64) state {
	end := lastOf(now, s.width)
	w := &slidingWindow{sliding: s, end: end, charged: end}
	if s.buckets == 2 {
		w.ring = w.two[:]
	} else {
		w.ring = make([]int64, s.buckets)
	}
	return w
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

// elapsed is how far now is into the newest bucket. A bucket cut short at
// math.MaxInt64 is measured from its start.
func (w *slidingWindow) elapsed(now int64) int64 {
	if w.end < math.MaxInt64 {
		return w.width - 1 - (w.end - now)
	}
	return floorMod(now, w.width)
}

// part is ceil(oldest·(w−e)/w), the oldest bucket's part in the window, e
// into the newest bucket.
func (w *slidingWindow) part(oldest, e int64) int64 {
	if oldest == 0 || e == 0 {
		return oldest
	}
	return mulDivCeil(oldest, w.width-e, w.width)
}

func (w *slidingWindow) room(now int64) int64 {
	w.moveTo(now)
	oldest := w.ring[w.next(w.pos)]
	return max(0, w.requests-(w.total-oldest)-w.part(oldest, w.elapsed(now)))
}

func (w *slidingWindow) charge(n int64) {
	w.ring[w.pos] += n
	w.total += n
	w.charged = w.end
}

// wait lets time run on from now. While the ring stands in bucket c+j, the
// bucket c−B+1+j fades and every newer one counts whole. The first j at
// which the newer ones leave room for n is the bucket to wait in; in it,
// the request fits from the first elapsed e' with
// ceil(oldest·(w−e')/w) <= spare, that is w−e' <= floor(spare·w/oldest).
func (w *slidingWindow) wait(now, n int64) int64 {
	e := w.elapsed(now)
	newer := w.total
	for j, i := int64(0), w.next(w.pos); ; j, i = j+1, w.next(i) {
		oldest := w.ring[i]
		newer -= oldest
		if spare := w.requests - newer - n; spare >= 0 {
			enter := int64(0)
			if oldest > spare {
				enter = w.width - mulDivFloor(spare, w.width, oldest)
			}
			return j*w.width + enter - e // at most Per plus a bucket
		}
	}
}

// idleAfter is when the newest bucket charged has left the window: Per
// after its last instant.
func (w *slidingWindow) idleAfter() int64 { return addSat(w.charged, w.per) }
