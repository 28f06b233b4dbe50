package spec

import (
	"fmt"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
)

// steadyStateAllocs checks part 2: a counter that has seen a full window of
// traffic reuses its memory. A queue that re-slices (q = q[1:]) and appends
// reallocates now and then; measured over many hits, that shows.
func steadyStateAllocs(_ Counter, newCounter func(time.Duration) Counter) error {
	const (
		window   = time.Second
		gap      = time.Millisecond // 1,000 hits in every window
		hitsEach = 20_000
	)
	c := newCounter(window)
	now := clock.Epoch
	hitFor := func(n int) {
		for range n {
			now = now.Add(gap)
			c.Hit(now)
			c.Count(now)
		}
	}
	hitFor(5_000) // fill the window a few times over
	allocs := testing.AllocsPerRun(5, func() { hitFor(hitsEach) })
	if allocs > 0 {
		return fmt.Errorf("%v allocations per %d hits in steady state (1,000 hits in each window), want 0: reuse the queue's memory (see part 2 of the README)", allocs, hitsEach)
	}
	return nil
}
