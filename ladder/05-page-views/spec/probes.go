package spec

import (
	"fmt"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// env is what a probe has besides the counter: e.New builds another.
type env = timeline.Env[Counter, size]

// noAllocations checks part 1: once New has made the ring, neither Add nor
// Count allocates, whatever the gaps between calls. Each run makes one call
// after each gap, from none to an hour, so that a reset that makes a fresh
// ring shows: testing.AllocsPerRun rounds down to whole allocations per run.
func noAllocations(c Counter, _ env) error {
	gaps := []time.Duration{0, 10 * ms, sec, 3 * sec, 299 * sec, 5 * minute, hour}
	now := clock.Epoch.Add(hour)
	var err error
	addAllocs := testing.AllocsPerRun(50, func() {
		for _, g := range gaps {
			now = now.Add(g)
			if e := c.Add(now, 1); e != nil && err == nil {
				err = fmt.Errorf("Add(t=%s, 1) = %v, want nil", now.Sub(clock.Epoch), e)
			}
		}
	})
	countAllocs := testing.AllocsPerRun(50, func() {
		for _, g := range gaps {
			now = now.Add(g)
			if _, e := c.Count(now); e != nil && err == nil {
				err = fmt.Errorf("Count(t=%s) gave error %v, want none", now.Sub(clock.Epoch), e)
			}
		}
	})
	switch {
	case err != nil:
		return err
	case addAllocs > 0 || countAllocs > 0:
		return fmt.Errorf("%v allocations per %d Adds and %v per %d Counts, after gaps from 0 to an hour; want 0 and 0: make the ring once, in New, and reuse it", addAllocs, len(gaps), countAllocs, len(gaps))
	}
	return nil
}

// runningTotal checks part 1 on a ring of 864,000 buckets: 200,000 Adds,
// each one bucket after the last, each followed by a Count, which must be
// the views of the last 864,000 buckets. A Count that keeps a running total
// makes this a matter of milliseconds. One that sums the ring makes it
// 1.7e11 additions, a minute or more on any machine, and the runner stops
// the case as stuck. Nothing here measures time: the margin is a factor of
// a hundred thousand, so no machine is slow enough to fail a running total,
// or fast enough to pass a sum.
func runningTotal(c Counter, _ env) error {
	const (
		n     = 864_000 // a day of 100ms buckets
		calls = 200_000
	)
	now := clock.Epoch
	for i := 1; i <= calls; i++ {
		now = now.Add(100 * ms)
		if err := c.Add(now, 1); err != nil {
			return fmt.Errorf("Add(t=%s, 1) = %v, want nil", now.Sub(clock.Epoch), err)
		}
		got, err := c.Count(now)
		if want := min(i, n); got != want || err != nil {
			return fmt.Errorf("after %d Adds of 1 view, one every 100ms: Count(t=%s) = %d, %v; want %d, nil", i, now.Sub(clock.Epoch), got, err, want)
		}
	}
	return nil
}
