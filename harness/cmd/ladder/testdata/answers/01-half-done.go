// A learner's level 1 with part 1 done: right answers, with the
// re-slicing queue that part 2 rejects.
package hitcounter

import "time"

type Counter struct {
	window time.Duration
	hits   []time.Time
}

func New(window time.Duration) *Counter {
	if window <= 0 {
		panic("bad window " + window.String())
	}
	return &Counter{window: window}
}

func (c *Counter) Hit(now time.Time) { c.Count(now); c.hits = append(c.hits, now) }

func (c *Counter) Count(now time.Time) int {
	for len(c.hits) > 0 && !c.hits[0].After(now.Add(-c.window)) {
		c.hits = c.hits[1:]
	}
	return len(c.hits)
}
