// Package hitcounter is level 1 of the ladder: count the hits of the last
// window of time. Read README.md in this folder first.
package hitcounter

import "time"

// Counter counts the hits in the last window: a hit at h counts at now
// when now-window < h <= now.
type Counter struct {
	// Add the fields you need here.
}

// New returns a Counter for the given window. It panics if window <= 0,
// with a message that names the value.
func New(window time.Duration) *Counter {
	panic("not implemented: New")
}

// Hit records one hit at now. Calls come in non-decreasing time order.
func (c *Counter) Hit(now time.Time) {
	panic("not implemented: Counter.Hit")
}

// Count returns the number of hits h with now-window < h <= now.
func (c *Counter) Count(now time.Time) int {
	panic("not implemented: Counter.Count")
}
