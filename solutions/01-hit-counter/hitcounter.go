// Package hitcounter is the reference solution of level 1: the hits of the
// last window, kept exactly in a queue of their times.
package hitcounter

import (
	"fmt"
	"time"
)

// minCapacity is the smallest ring the counter keeps. It is a power of two,
// like every capacity, so that wrapping an index is a mask, not a division.
const minCapacity = 16

// Counter counts the hits in the last window: a hit at h counts at now
// when now-window < h <= now.
//
// The hits wait in a ring buffer, oldest first. Every call first drops the
// hits that have left the window from the front, so memory follows the
// number of hits in the window, and each hit is stored once and dropped once:
// amortized O(1) per call.
type Counter struct {
	window time.Duration
	ring   []time.Time // len is a power of two
	head   int         // index of the oldest hit held
	n      int         // hits held
}

// New returns a Counter for the given window. It panics if window <= 0.
func New(window time.Duration) *Counter {
	if window <= 0 {
		panic(fmt.Sprintf("hitcounter.New: window must be positive, got %v", window))
	}
	return &Counter{window: window, ring: make([]time.Time, minCapacity)}
}

// Hit records one hit at now. Calls come in non-decreasing time order.
func (c *Counter) Hit(now time.Time) {
	c.expire(now)
	if c.n == len(c.ring) {
		c.resize(2 * len(c.ring))
	}
	c.ring[(c.head+c.n)&(len(c.ring)-1)] = now
	c.n++
}

// Count returns the number of hits h with now-window < h <= now.
func (c *Counter) Count(now time.Time) int {
	c.expire(now)
	return c.n
}

// expire drops the hits at or before now-window: the window is half-open,
// so a hit exactly one window old no longer counts.
func (c *Counter) expire(now time.Time) {
	cutoff := now.Add(-c.window)
	mask := len(c.ring) - 1
	for c.n > 0 && !c.ring[c.head].After(cutoff) {
		c.head = (c.head + 1) & mask
		c.n--
	}
	// Give memory back after a burst, all of it at once: a Count one
	// window after a million hits leaves a ring of minCapacity, not one of
	// half a million. Halving only at a quarter full leaves room to grow
	// again without resizing back and forth, and is the classic rule that
	// keeps Hit and Count amortized O(1); making every halving due in one
	// copy only saves work.
	if len(c.ring) > minCapacity && c.n <= len(c.ring)/4 {
		size := len(c.ring) / 2
		for size > minCapacity && c.n <= size/4 {
			size /= 2
		}
		c.resize(size)
	}
}

// resize moves the hits, oldest first, into a ring of the given capacity.
// It is the only place that allocates, and it runs only when the ring is
// full or a quarter full.
func (c *Counter) resize(capacity int) {
	ring := make([]time.Time, capacity)
	mask := len(c.ring) - 1
	for i := range c.n {
		ring[i] = c.ring[(c.head+i)&mask]
	}
	c.ring, c.head = ring, 0
}
