// Package cafe is level 4 of the ladder: how many of each drink a café
// sold in the last window of time, in all, and how many different drinks.
// Read README.md in this folder first.
package cafe

import "time"

// Cafe counts the orders of the last window: an order at t counts at now
// when now-window < t <= now.
type Cafe struct {
	// Add the fields you need here.
}

// New returns a Cafe for the given window. It panics if window <= 0,
// with a message that names the value.
func New(window time.Duration) *Cafe {
	panic("not implemented: New")
}

// Order records one order of drink at now. Calls come in non-decreasing
// time order.
func (c *Cafe) Order(now time.Time, drink string) {
	panic("not implemented: Cafe.Order")
}

// Count returns the orders of drink in (now-window, now].
func (c *Cafe) Count(now time.Time, drink string) int {
	panic("not implemented: Cafe.Count")
}

// Total returns the orders of every drink in (now-window, now].
func (c *Cafe) Total(now time.Time) int {
	panic("not implemented: Cafe.Total")
}

// Distinct returns how many different drinks have at least one order in
// (now-window, now].
func (c *Cafe) Distinct(now time.Time) int {
	panic("not implemented: Cafe.Distinct")
}

// Counts returns every drink with at least one order in (now-window, now],
// with its count. The map is new, and the caller owns it.
func (c *Cafe) Counts(now time.Time) map[string]int {
	panic("not implemented: Cafe.Counts")
}
