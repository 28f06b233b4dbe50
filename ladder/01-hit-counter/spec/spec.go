// Package spec is level 1's conformance suite: every case of the hit
// counter is written here once, and run against both the learner's stub in
// ladder/01-hit-counter and the reference in solutions/01-hit-counter, the
// way testing/fstest.TestFS checks any file system.
package spec

import (
	"fmt"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// Counter is the API level 1 asks for.
type Counter interface {
	Hit(now time.Time)
	Count(now time.Time) int
}

// Test runs every case against the counters newCounter builds.
func Test[C Counter](t *testing.T, newCounter func(window time.Duration) C) {
	timeline.Run(t, cases(erase(newCounter)))
}

// erase turns a constructor of a concrete type into one of the interface,
// so that Test type-checks with hitcounter.New as it is.
func erase[C Counter](newCounter func(time.Duration) C) func(time.Duration) Counter {
	return func(w time.Duration) Counter { return newCounter(w) }
}

// Offsets in the tables are written with these.
const (
	ns     = time.Nanosecond
	ms     = time.Millisecond
	sec    = time.Second
	minute = time.Minute
	hour   = time.Hour
	day    = 24 * hour
	week   = 7 * day
)

type step = timeline.Step[Counter]

var at = timeline.At[Counter]

func hit() timeline.Call[Counter] {
	return timeline.Call[Counter]{
		Method: "Hit",
		Do:     func(c Counter, now time.Time) any { c.Hit(now); return nil },
	}
}

func count(want int) timeline.Call[Counter] {
	return timeline.Call[Counter]{
		Method: "Count",
		Do:     func(c Counter, now time.Time) any { return c.Count(now) },
		Want:   want,
	}
}

// A timeline case before it is bound to a constructor.
type counterCase struct {
	name   string
	part   int
	window time.Duration
	steps  []step
	probe  func(c Counter, newCounter func(time.Duration) Counter) error
}

func cases(newCounter func(time.Duration) Counter) []timeline.Case[Counter] {
	out := make([]timeline.Case[Counter], len(table))
	for i, tc := range table {
		out[i] = timeline.Case[Counter]{
			Name:  tc.name,
			Part:  tc.part,
			Setup: fmt.Sprintf("New(%s)", timeline.Offset(tc.window)),
			New:   func(clock.Clock) Counter { return newCounter(tc.window) },
			Steps: tc.steps,
		}
		if tc.probe != nil {
			out[i].Probe = func(c Counter, _ *clock.Fake) error { return tc.probe(c, newCounter) }
		}
	}
	return out
}

// table holds every case of level 1. Part 1 is the counter itself; part 2
// is the follow-up, a million hits a second, where memory must be reused.
var table = []counterCase{
	{
		// The README's first example, with the same numbers.
		name: "the classic 300-second counter", part: 1, window: 300 * sec,
		steps: []step{
			at(1*sec, hit()),
			at(2*sec, hit()),
			at(3*sec, hit()),
			at(4*sec, count(3)),
			at(300*sec, hit()),
			at(300*sec, count(4)),
			at(301*sec, count(3)), // the hit at 1s left at 1s + 300s
			at(302*sec, count(2)),
		},
	},
	{
		// The README's boundary example: (now - window, now] is half-open.
		name: "a hit counts until one window later and not at it", part: 1, window: 10 * sec,
		steps: []step{
			at(5*sec, hit()),
			at(5*sec, count(1)),
			at(15*sec-ns, count(1)),
			at(15*sec, count(0)),
		},
	},
	{
		name: "a count before any hit is zero", part: 1, window: 10 * sec,
		steps: []step{
			at(0, count(0)),
			at(7*sec, count(0)),
			at(7*sec, hit()),
			at(7*sec, count(1)),
		},
	},
	{
		name: "a hit exactly at the epoch", part: 1, window: minute,
		steps: []step{
			at(0, hit()),
			at(0, count(1)),
			at(minute-ns, count(1)),
			at(minute, count(0)),
		},
	},
	{
		name: "several hits at the same instant", part: 1, window: 10 * sec,
		steps: []step{
			at(2*sec, hit()),
			at(2*sec, hit()),
			at(2*sec, hit()),
			at(2*sec, count(3)),
			at(3*sec, hit()),
			at(12*sec-ns, count(4)),
			at(12*sec, count(1)), // all three leave together
			at(13*sec, count(0)),
		},
	},
	{
		name: "hits leave one by one in the order they came", part: 1, window: 3 * sec,
		steps: []step{
			at(0, hit()),
			at(1*sec, hit()),
			at(2*sec, hit()),
			at(2*sec, count(3)),
			at(3*sec, hit()),
			at(3*sec, count(3)),
			at(4*sec, count(2)),
			at(5*sec, count(1)),
			at(6*sec, count(0)),
		},
	},
	{
		name: "an idle gap far longer than the window", part: 1, window: 10 * sec,
		steps: []step{
			at(1*sec, hit()),
			at(2*sec, hit()),
			at(2*sec, count(2)),
			at(30*day, count(0)),
			at(30*day, hit()),
			at(30*day, count(1)),
			at(30*day+10*sec, count(0)),
		},
	},
	{
		name: "a one-nanosecond window", part: 1, window: ns,
		steps: []step{
			at(0, hit()),
			at(0, count(1)),
			at(1*ns, count(0)),
			at(5*ns, hit()),
			at(5*ns, hit()),
			at(5*ns, count(2)),
			at(6*ns, count(0)),
		},
	},
	{
		name: "a week-long window", part: 1, window: week,
		steps: []step{
			at(0, hit()),
			at(3*day, hit()),
			at(3*day, hit()),
			at(week-ns, count(3)),
			at(week, count(2)),
			at(week+3*day-ns, count(2)),
			at(week+3*day, count(0)),
		},
	},
	{
		name: "a sub-second window with millisecond hits", part: 1, window: 250 * ms,
		steps: []step{
			at(1000*ms, hit()),
			at(1100*ms, hit()),
			at(1249*ms, count(2)),
			at(1250*ms, count(1)),
			at(1350*ms-ns, count(1)),
			at(1350*ms, count(0)),
		},
	},
	{
		// A window of zero or less is a bug in the caller's code.
		name: "a window that is not positive panics and names it", part: 1, window: sec,
		probe: func(_ Counter, newCounter func(time.Duration) Counter) error {
			return timeline.EachPanicsNaming("New", []time.Duration{0, -sec}, func(w time.Duration) { newCounter(w) })
		},
	},
	{
		name: "no allocation per hit once warmed up", part: 2, window: sec,
		steps: []step{at(0, hit()), at(0, count(1))},
		probe: steadyStateAllocs,
	},
	{
		name: "memory comes back once a burst has left the window", part: 2, window: sec,
		steps: []step{at(0, hit()), at(0, count(1)), at(sec, count(0))},
		probe: memoryComesBack,
	},
}
