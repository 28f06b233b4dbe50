package spec

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// env is what a probe has besides the store: e.New builds another.
type env = timeline.Env[Store, struct{}]

// noAllocs checks that a Get of an existing key (with withGet) and QPS
// over each window allocate nothing, while the clock moves a second
// between calls so that the counters move too. The key "k" must exist.
func noAllocs(s Store, clk *clock.Fake, withGet bool, windows ...time.Duration) error {
	type check struct {
		text string
		f    func()
	}
	var checks []check
	if withGet {
		checks = append(checks, check{`Get("k")`, func() { clk.Advance(sec); s.Get("k") }})
	}
	for _, w := range windows {
		checks = append(checks, check{
			fmt.Sprintf("QPS(Put, %s)", timeline.Offset(w)),
			func() { clk.Advance(sec); s.QPS(put, w) },
		})
	}
	var errs []error
	for _, c := range checks {
		if n := testing.AllocsPerRun(100, c.f); n > 0 {
			errs = append(errs, fmt.Errorf("%s makes %v allocations per call, want 0", c.text, n))
		}
	}
	return errors.Join(errs...)
}

// memoryLimit is the most the counters may take: 1 MiB.
const memoryLimit = 1 << 20

// counterMemory checks part 2's memory bound. It measures the live heap
// that one store holds after eight days of light traffic on one key, with
// every window asked: that is the counters, plus a map of one entry. A
// ring of 604,800 one-second buckets per op takes 4.8 MiB per op and more
// if it holds times; a design with a ring of seconds for the hour and of
// minutes for the week takes a few hundred KiB.
func counterMemory(_ Store, e env) error {
	before := timeline.LiveHeap()
	clk := e.Clock
	s := e.New(struct{}{})
	for h := range 8 * 24 {
		clk.Set(clock.Epoch.Add(time.Duration(h) * hour))
		s.Put("k", "v")
		s.Get("k")
	}
	for _, w := range []time.Duration{sec, 5 * minute, hour, hour + sec, day, week} {
		s.QPS(put, w)
		s.QPS(get, w)
	}
	held := int64(timeline.LiveHeap()) - int64(before)
	runtime.KeepAlive(s)
	if held >= memoryLimit {
		return fmt.Errorf("one store holds %d bytes (%.1f MiB) of heap after a Put and a Get every hour for eight days, want under %d (1 MiB): "+
			"keep a ring of seconds for the last hour and a ring of minutes for the week, not seconds for the week (see part 2 of the README)",
			held, float64(held)/memoryLimit, memoryLimit)
	}
	return nil
}

// The size of the concurrent probes. Each of the goroutines makes rounds
// Puts and as many Gets, with a QPS now and then: enough calls to lose some
// on a machine with many cores if the counting is not synchronised, and
// still well under a second under the race detector. On a busy machine
// with two cores, an unsynchronised increment may lose nothing, which is
// why make test-level-7 runs these probes under -race.
const (
	goroutines = 8
	rounds     = 20_000
	tickEvery  = 500 // rounds between clock ticks, when the clock moves
)

// concurrentTotals checks part 3: Gets, Puts and QPS from many goroutines
// at once, and afterwards QPS over an hour counts every call exactly. With
// moving set, one goroutine also moves the clock a second at a time (40
// seconds in all), so the counters move to new buckets while other calls
// are under way. Run under -race, the race detector also reports any
// unsynchronised access; without it, the exact totals catch lost updates.
func concurrentTotals(s Store, clk *clock.Fake, moving bool) error {
	keys := make([]string, goroutines)
	for g := range keys {
		keys[g] = "key-" + strconv.Itoa(g)
	}
	timeline.Parallel(goroutines, func(g int) {
		key := keys[g]
		for i := range rounds {
			s.Put(key, "v")
			s.Get(key)
			if i%1000 == 0 {
				s.QPS(put, 5*minute)
				s.QPS(get, hour)
			}
			if moving && g == 0 && i%tickEvery == tickEvery-1 {
				clk.Advance(sec)
			}
		}
	})

	const want = goroutines * rounds
	var errs []error
	for _, o := range []op{put, get} {
		q := s.QPS(o, hour)
		if n := countOf(q, hour); n != want {
			errs = append(errs, fmt.Errorf("QPS(%v, 1h) = %v after %d goroutines made %d %ss each, want %v (%d calls / 3600s): %s",
				o, q, goroutines, rounds, o, float64(want)/3600, want, missingCalls(want-n)))
		}
	}
	for _, key := range keys {
		if v, ok := s.Get(key); v != "v" || !ok {
			errs = append(errs, fmt.Errorf(`Get(%q) = %q, %v after the concurrent Puts, want "v", true`, key, v, ok))
		}
	}
	return errors.Join(errs...)
}

// missingCalls says how far a count is off: "1 call went missing", "3
// calls went missing", "2 calls too many".
func missingCalls(lost int) string {
	switch {
	case lost == 1:
		return "1 call went missing"
	case lost == -1:
		return "1 call too many"
	case lost < 0:
		return fmt.Sprintf("%d calls too many", -lost)
	}
	return fmt.Sprintf("%d calls went missing", lost)
}
