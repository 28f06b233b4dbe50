package spec

import (
	"fmt"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
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

// ring is a ring buffer that doubles when full. With shrinks it is right:
// once most of its room is empty, it halves it, down to what holds the
// hits left. Without, it never shrinks: right answers, no allocation in
// steady state, but after a burst it keeps the room for every hit of the
// burst for ever.
type ring struct {
	window  time.Duration
	hits    []time.Time
	head, n int
	shrinks bool
}

// minRing is the room a ring starts with and never shrinks below.
const minRing = 16

func newRing(shrinks bool) func(time.Duration) Counter {
	return func(w time.Duration) Counter {
		if w <= 0 {
			panic(fmt.Sprintf("window %v", w))
		}
		return &ring{window: w, hits: make([]time.Time, minRing), shrinks: shrinks}
	}
}

// resize moves the hits to a ring of the given room, oldest first.
func (r *ring) resize(room int) {
	hits := make([]time.Time, room)
	for i := range r.n {
		hits[i] = r.hits[(r.head+i)%len(r.hits)]
	}
	r.hits, r.head = hits, 0
}

func (r *ring) Hit(now time.Time) {
	r.Count(now)
	if r.n == len(r.hits) {
		r.resize(2 * len(r.hits))
	}
	r.hits[(r.head+r.n)%len(r.hits)] = now
	r.n++
}

func (r *ring) Count(now time.Time) int {
	for r.n > 0 && rightDrop(r.hits[r.head], now, r.window) {
		r.head = (r.head + 1) % len(r.hits)
		r.n--
	}
	// A quarter, not a half: a count that hovers around half the room
	// would otherwise reallocate on every other call.
	if room := len(r.hits); r.shrinks && r.n <= room/4 && room > minRing {
		for r.n <= room/4 && room > minRing {
			room /= 2
		}
		r.resize(room)
	}
	return r.n
}

// suite is the spec as its own tests check it: its cases, and its fuzz
// target's seeds.
var suite = mutation.SpecOf(cases, fuzzSeeds, fuzzCase)

// mutants are the spec's wrong implementations, each with the part meant
// to catch it. TestSpecCatchesMutants checks that it does, and keeps
// testdata/mistakes.json, what each fails: after a change to the spec or
// the mutants, LADDER_UPDATE_MISTAKES=1 go test -run TestSpecCatchesMutants .
// in this folder writes it again.
var mutants = []mutation.Impl[func(time.Duration) Counter]{
	{Name: "inclusive boundary: still counts a hit at exactly now-window", Part: 1, New: mutant(func(h, now time.Time, w time.Duration) bool {
		return h.Before(now.Add(-w))
	})},
	{Name: "never expires", Part: 1, New: mutant(func(h, now time.Time, w time.Duration) bool { return false })},
	{Name: "window one nanosecond short", Part: 1, New: mutant(func(h, now time.Time, w time.Duration) bool {
		return !h.After(now.Add(-w + time.Nanosecond))
	})},
	{Name: "whole seconds: rounds times down to the second", Part: 1, New: mutant(func(h, now time.Time, w time.Duration) bool {
		return !h.Truncate(time.Second).After(now.Truncate(time.Second).Add(-w))
	})},
	{Name: "zero means empty: loses a hit at Unix time 0", Part: 1, New: func(w time.Duration) Counter {
		q := mutant(rightDrop)(w).(*queue)
		q.record = func(now time.Time) bool { return now.UnixNano() != 0 }
		return q
	}},
	{Name: "accepts a window of zero", Part: 1, New: func(w time.Duration) Counter { return &queue{window: w, drop: rightDrop} }},
	{Name: "right answers, but a re-slicing queue that reallocates", Part: 2, New: mutant(rightDrop)},
	{Name: "right answers, but a ring that never shrinks after a burst", Part: 2, New: newRing(false)},
}

func TestSpecCatchesMutants(t *testing.T) { suite.CatchesMutants(t, mutants) }

// TestRightImplementationPasses plays every case against a ring that
// shrinks: right answers and the memory part 2 asks for, so that the spec
// passes a right counter, and the ring mutant differs from it by its
// mistake alone. (The queue mutants' base is right for part 1 only: it
// reallocates.)
func TestRightImplementationPasses(t *testing.T) {
	mutation.Passes(t, "a ring that shrinks", 0, cases(newRing(true)))
}
