package spec

import (
	"fmt"
	"runtime"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// env is what a probe has besides the counter: e.New builds another.
type env = timeline.Env[Counter, time.Duration]

// steadyStateAllocs checks part 2: a counter that has seen a full window of
// traffic reuses its memory. A queue that re-slices (q = q[1:]) and appends
// reallocates now and then; measured over many hits, that shows.
func steadyStateAllocs(_ Counter, e env) error {
	const hitsEach = 20_000
	c := e.New(time.Second)
	// 1,000 hits in every window, after 5,000 that fill it a few times over.
	allocs := timeline.SteadyStateAllocs(time.Millisecond, 5_000, hitsEach, func(now time.Time) {
		c.Hit(now)
		c.Count(now)
	})
	if allocs > 0 {
		return fmt.Errorf("%v allocations per %d hits in steady state (1,000 hits in each window), want 0: reuse the queue's memory (see part 2 of the README)", allocs, hitsEach)
	}
	return nil
}

// memoryComesBack checks part 2's promise on memory: once a burst has left
// the window, the next call gives back what the burst took. It sends a
// burst of a million hits a second for a quarter of a second, 250,000
// hits, then a Count one window later, and compares the live heap the
// counter keeps then with what an empty counter keeps.
//
// The live heap is HeapAlloc right after a full garbage collection, which
// counts every object still reachable, and nothing else. Cases run one at
// a time, so the rest of the test binary allocates next to nothing while
// the probe runs: what it does allocate (a timer, a few test records) comes
// to a few kilobytes, up or down. The allowance is four times an empty
// counter, for a counter that keeps a little spare room, plus 128 KiB, well
// above that noise and well below what 250,000 hits take: 2 MB as int64
// nanoseconds, 6 MB as time.Time. So a counter passes or fails by a wide
// margin, never by chance. (A million hits would say the same, but take
// seconds under the race detector.)
func memoryComesBack(_ Counter, e env) error {
	const (
		window = time.Second
		gap    = time.Microsecond // a million hits a second
		burst  = 250_000
		spare  = 4         // times an empty counter
		noise  = 128 << 10 // bytes
	)
	// An empty counter is weighed 64 at a time, so that the noise is
	// shared out among them.
	empties := make([]Counter, 64)
	base := int64(timeline.LiveHeap())
	for i := range empties {
		empties[i] = e.New(window)
	}
	emptySize := max((int64(timeline.LiveHeap())-base)/int64(len(empties)), 0)

	base = int64(timeline.LiveHeap())
	c := e.New(window)
	now := clock.Epoch
	for range burst {
		now = now.Add(gap)
		c.Hit(now)
	}
	burstSize := int64(timeline.LiveHeap()) - base
	now = now.Add(window)
	if got := c.Count(now); got != 0 {
		return fmt.Errorf("Count(t=%s) = %d one window after a burst of 250,000 hits, want 0", timeline.Offset(now.Sub(clock.Epoch)), got)
	}
	size := int64(timeline.LiveHeap()) - base
	runtime.KeepAlive(empties)
	runtime.KeepAlive(c)
	if limit := spare*emptySize + noise; size > limit {
		return fmt.Errorf("the counter keeps %s one window after a burst of 250,000 hits (%s during the burst), want at most %s: %d times the %s an empty counter keeps, plus %s. Give memory back once the hits have left the window (see part 2 of the README)",
			kib(size), kib(burstSize), kib(limit), spare, kib(emptySize), kib(noise))
	}
	return nil
}

// kib writes a number of bytes for a message: 23.4 MiB, 384 B.
func kib(b int64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}
