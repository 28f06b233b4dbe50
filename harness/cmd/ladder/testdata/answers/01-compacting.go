// A learner's level 1, both parts done: its slice moves the live hits to
// the front when the dead ones fill half of it, so steady traffic
// allocates nothing, and it shrinks after a burst.
package hitcounter

import "time"

type Counter struct {
	window time.Duration
	times  []time.Time
	oldest int // times[:oldest] have left the window
}

func New(window time.Duration) *Counter {
	if window <= 0 {
		panic("hitcounter: window " + window.String() + " is not positive")
	}
	return &Counter{window: window}
}

func (c *Counter) Hit(now time.Time) {
	c.Count(now)
	if len(c.times) == cap(c.times) && 2*c.oldest >= len(c.times) && c.oldest > 0 {
		live := copy(c.times, c.times[c.oldest:])
		c.times, c.oldest = c.times[:live], 0
	}
	c.times = append(c.times, now)
}

func (c *Counter) Count(now time.Time) int {
	for c.oldest < len(c.times) && now.Sub(c.times[c.oldest]) >= c.window {
		c.oldest++
	}
	// After a burst, give the memory back.
	if live := len(c.times) - c.oldest; cap(c.times) > 64 && 4*live <= cap(c.times) {
		c.times = append(make([]time.Time, 0, 2*live+16), c.times[c.oldest:]...)
		c.oldest = 0
	}
	return len(c.times) - c.oldest
}
