// Package cafe is the reference solution of level 4: the orders of the
// last window in a queue, with a count per drink kept beside it.
package cafe

import (
	"fmt"
	"time"
)

// minCapacity is the smallest ring the café keeps. It is a power of two,
// like every capacity, so that wrapping an index is a mask, not a division.
const minCapacity = 16

// order is one drink ordered at one instant.
type order struct {
	at    time.Time
	drink string
}

// Cafe counts the orders of the last window: an order at t counts at now
// when now-window < t <= now.
//
// The orders wait in a ring buffer, oldest first, and counts holds, for
// every drink with at least one order in the ring, how many it has. Every
// call first drops the orders that have left the window from the front and
// takes each off its drink's count, deleting a drink whose count reaches
// zero. So the ring's length is the total, the map's length is the number
// of different drinks, and each order is stored once and dropped once:
// amortized O(1) per call.
type Cafe struct {
	window time.Duration
	ring   []order // len is a power of two
	head   int     // index of the oldest order held
	n      int     // orders held
	counts map[string]int
}

// New returns a Cafe for the given window. It panics if window <= 0.
func New(window time.Duration) *Cafe {
	if window <= 0 {
		panic(fmt.Sprintf("cafe.New: window must be positive, got %v", window))
	}
	return &Cafe{
		window: window,
		ring:   make([]order, minCapacity),
		counts: make(map[string]int),
	}
}

// Order records one order of drink at now. Calls come in non-decreasing
// time order.
func (c *Cafe) Order(now time.Time, drink string) {
	c.expire(now)
	if c.n == len(c.ring) {
		c.resize(2 * len(c.ring))
	}
	c.ring[(c.head+c.n)&(len(c.ring)-1)] = order{at: now, drink: drink}
	c.n++
	c.counts[drink]++
}

// Count returns the orders of drink in (now-window, now].
func (c *Cafe) Count(now time.Time, drink string) int {
	c.expire(now)
	return c.counts[drink]
}

// Total returns the orders of every drink in (now-window, now].
func (c *Cafe) Total(now time.Time) int {
	c.expire(now)
	return c.n
}

// Distinct returns how many different drinks have at least one order in
// (now-window, now].
func (c *Cafe) Distinct(now time.Time) int {
	c.expire(now)
	return len(c.counts) // expire deletes every drink whose count is zero
}

// Counts returns every drink with at least one order in (now-window, now],
// with its count. The map is new, and the caller owns it: changing it does
// not change the Cafe, and later calls do not change it.
func (c *Cafe) Counts(now time.Time) map[string]int {
	c.expire(now)
	return c.copyCounts()
}

// expire drops the orders at or before now-window: the window is
// half-open, so an order exactly one window old no longer counts.
func (c *Cafe) expire(now time.Time) {
	cutoff := now.Add(-c.window)
	mask := len(c.ring) - 1
	for c.n > 0 && !c.ring[c.head].at.After(cutoff) {
		o := &c.ring[c.head]
		if left := c.counts[o.drink] - 1; left > 0 {
			c.counts[o.drink] = left
		} else {
			delete(c.counts, o.drink) // forgotten: Distinct is len(counts)
		}
		*o = order{} // let the drink's string be collected
		c.head = (c.head + 1) & mask
		c.n--
	}
	// Give memory back after a burst. Shrinking only at a quarter full
	// leaves room to grow again without resizing back and forth.
	if len(c.ring) > minCapacity && c.n <= len(c.ring)/4 {
		c.resize(len(c.ring) / 2)
		// A Go map never shrinks, and ranging over it walks its whole
		// table, so after a burst of many drinks Counts would stay slow.
		// The map holds at most n drinks; copying it now costs no more
		// than the ring's copy.
		c.counts = c.copyCounts()
	}
}

// copyCounts returns a new map with the same counts.
func (c *Cafe) copyCounts() map[string]int {
	m := make(map[string]int, len(c.counts))
	for drink, n := range c.counts {
		m[drink] = n
	}
	return m
}

// resize moves the orders, oldest first, into a ring of the given
// capacity. With copyCounts after a shrink, it is the only place that
// allocates, and it runs only when the orders in the window double or fall
// to a quarter.
func (c *Cafe) resize(capacity int) {
	ring := make([]order, capacity)
	mask := len(c.ring) - 1
	for i := range c.n {
		ring[i] = c.ring[(c.head+i)&mask]
	}
	c.ring, c.head = ring, 0
}
