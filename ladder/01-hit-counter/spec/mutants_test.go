package spec

import (
	"fmt"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
)

// Wrong implementations that the spec must catch. Each is a complete
// counter with one mistake a learner makes; if an edit to the spec lets one
// of them pass, this test fails.

// queue drops hits from the front while drop says so; the mutants differ
// only in drop, or in what they record.
type queue struct {
	window time.Duration
	hits   []time.Time
	drop   func(h, now time.Time, window time.Duration) bool
	record func(now time.Time) bool
}

func (q *queue) Hit(now time.Time) {
	if q.record == nil || q.record(now) {
		q.hits = append(q.hits, now)
	}
}

func (q *queue) Count(now time.Time) int {
	for len(q.hits) > 0 && q.drop(q.hits[0], now, q.window) {
		q.hits = q.hits[1:]
	}
	return len(q.hits)
}

// rightDrop is the correct rule: a hit at or before now-window has left.
func rightDrop(h, now time.Time, w time.Duration) bool { return !h.After(now.Add(-w)) }

// mutant builds a queue that drops by the given rule. Like a right
// counter, it panics on a window that is not positive, so that only the
// mistake it stands for can catch it.
func mutant(drop func(h, now time.Time, window time.Duration) bool) func(time.Duration) Counter {
	return func(w time.Duration) Counter {
		if w <= 0 {
			panic(fmt.Sprintf("window %v", w))
		}
		return &queue{window: w, drop: drop}
	}
}

// growOnly is a ring buffer that doubles when full and never shrinks: right
// answers, no allocation in steady state, but after a burst it keeps the
// room for every hit of the burst for ever.
type growOnly struct {
	window  time.Duration
	ring    []time.Time
	head, n int
}

func newGrowOnly(w time.Duration) Counter {
	if w <= 0 {
		panic(fmt.Sprintf("window %v", w))
	}
	return &growOnly{window: w, ring: make([]time.Time, 16)}
}

func (r *growOnly) Hit(now time.Time) {
	r.Count(now)
	if r.n == len(r.ring) {
		ring := make([]time.Time, 2*len(r.ring))
		for i := range r.n {
			ring[i] = r.ring[(r.head+i)%len(r.ring)]
		}
		r.ring, r.head = ring, 0
	}
	r.ring[(r.head+r.n)%len(r.ring)] = now
	r.n++
}

func (r *growOnly) Count(now time.Time) int {
	for r.n > 0 && rightDrop(r.ring[r.head], now, r.window) {
		r.head = (r.head + 1) % len(r.ring)
		r.n--
	}
	return r.n
}

func TestSpecCatchesMutants(t *testing.T) {
	mutants := []struct {
		name string
		part int // the part whose cases must catch it
		new  func(time.Duration) Counter
	}{
		{"inclusive boundary: still counts a hit at exactly now-window", 1, mutant(func(h, now time.Time, w time.Duration) bool {
			return h.Before(now.Add(-w))
		})},
		{"never expires", 1, mutant(func(h, now time.Time, w time.Duration) bool { return false })},
		{"window one nanosecond short", 1, mutant(func(h, now time.Time, w time.Duration) bool {
			return !h.After(now.Add(-w + time.Nanosecond))
		})},
		{"whole seconds: rounds times down to the second", 1, mutant(func(h, now time.Time, w time.Duration) bool {
			return !h.Truncate(time.Second).After(now.Truncate(time.Second).Add(-w))
		})},
		{"zero means empty: loses a hit at Unix time 0", 1, func(w time.Duration) Counter {
			q := mutant(rightDrop)(w).(*queue)
			q.record = func(now time.Time) bool { return now.UnixNano() != 0 }
			return q
		}},
		{"accepts a window of zero", 1, func(w time.Duration) Counter { return &queue{window: w, drop: rightDrop} }},
		{"right answers, but a re-slicing queue that reallocates", 2, mutant(rightDrop)},
		{"right answers, but a ring that never shrinks after a burst", 2, newGrowOnly},
	}
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			caught := timeline.Catches(t, m.name, m.part, cases(m.new))
			t.Logf("caught by: %q", caught)
		})
	}
}
