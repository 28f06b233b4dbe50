package spec

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
)

// ringCafe is a right café for the parts up to upTo: the orders of the
// window in a ring that doubles when full, so that a steady stream
// allocates nothing, and a count per drink beside it. Before part 2 it
// keeps a drink whose count falls to zero, as a map that only counts
// up does, and leaves Distinct as the stub's; before part 3, Counts.
type ringCafe struct {
	upTo   int
	window time.Duration
	ring   []queued
	head   int // the oldest order's slot
	n      int // orders in the ring
	counts map[string]int
}

func newRingCafe(upTo int) func(time.Duration) Cafe {
	return func(w time.Duration) Cafe {
		if w <= 0 {
			panic(fmt.Sprintf("window must be positive, got %v", w))
		}
		return &ringCafe{upTo: upTo, window: w, ring: make([]queued, 16), counts: map[string]int{}}
	}
}

func (c *ringCafe) expire(now time.Time) {
	cutoff := now.Add(-c.window)
	for c.n > 0 && !c.ring[c.head].at.After(cutoff) {
		d := c.ring[c.head].drink
		c.ring[c.head] = queued{} // let the drink's name go
		c.head = (c.head + 1) % len(c.ring)
		c.n--
		if c.counts[d]--; c.counts[d] == 0 && c.upTo >= 2 {
			delete(c.counts, d)
		}
	}
}

func (c *ringCafe) Order(now time.Time, drink string) {
	c.expire(now)
	if c.n == len(c.ring) {
		ring := make([]queued, 2*len(c.ring))
		for i := range c.n {
			ring[i] = c.ring[(c.head+i)%len(c.ring)]
		}
		c.ring, c.head = ring, 0
	}
	c.ring[(c.head+c.n)%len(c.ring)] = queued{now, drink}
	c.n++
	c.counts[drink]++
}

func (c *ringCafe) Count(now time.Time, drink string) int {
	c.expire(now)
	return c.counts[drink]
}

func (c *ringCafe) Total(now time.Time) int {
	c.expire(now)
	return c.n
}

func (c *ringCafe) Distinct(now time.Time) int {
	if c.upTo < 2 {
		mutation.Unwritten("Cafe.Distinct")
	}
	c.expire(now)
	return len(c.counts)
}

func (c *ringCafe) Counts(now time.Time) map[string]int {
	if c.upTo < 3 {
		mutation.Unwritten("Cafe.Counts")
	}
	c.expire(now)
	return maps.Clone(c.counts)
}

// TestEachPartNeedsOnlyItsOwnFeatures plays the cases of each part and
// those before it, and the fuzz seeds of those parts, against a café
// written for those parts only.
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	suite.EachPartNeedsOnlyItsOwnFeatures(t, []mutation.Impl[func(time.Duration) Cafe]{
		{Part: 1, Name: "a ring that keeps every drink it saw, without Distinct and Counts", New: newRingCafe(1)},
		{Part: 2, Name: "a ring that forgets a drink at zero, without Counts", New: newRingCafe(2)},
		{Part: 3, Name: "a ring that forgets a drink at zero", New: newRingCafe(3)},
	})
}
