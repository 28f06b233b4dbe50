// Package spec is level 1's conformance suite: every case of the hit
// counter is written here once, and run against both the learner's stub in
// ladder/01-hit-counter and the reference in solutions/01-hit-counter, the
// way testing/fstest.TestFS checks any file system.
//
// # Cost claims
//
// Each cost README.md states, and the case a wrong-cost implementation
// fails:
//
//   - Hit and Count allocate nothing once warmed up (part 2): "no
//     allocation per hit once warmed up", against a re-slicing queue.
//   - Memory is O(hits in the window) and comes back after a burst (part
//     2): "memory comes back once a burst has left the window".
//   - Hit and Count are amortized O(1): no case. A Count that scans its
//     queue gives right answers; the benchmark rows 1k_per_sec and
//     1M_per_sec show the cost, and the README says so.
package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
)

// Counter is the API level 1 asks for.
type Counter interface {
	Hit(now time.Time)
	Count(now time.Time) int
}

// Test runs every case against the counters newCounter builds.
func Test[C Counter](t *testing.T, newCounter func(window time.Duration) C) {
	t.Helper()
	timeline.Run(t, cases(timeline.Erase[Counter](newCounter)))
}

// cases binds the table to a constructor.
func cases(newCounter func(window time.Duration) Counter) []timeline.Case[Counter] {
	return timeline.Bind(timeline.Unclocked(newCounter), table...)
}

// Offsets in the tables are written with these.
const ns, ms, sec, minute, day, week = time.Nanosecond, time.Millisecond, time.Second, time.Minute, 24 * time.Hour, 7 * 24 * time.Hour

// row is a case of the table before it is bound to a constructor; its
// Arg is what New takes: the window. A step is one of its calls, at an
// offset from the start: at(4*sec, count(3)).
type (
	row  = timeline.Row[Counter, time.Duration]
	step = timeline.Step[Counter]
)

var at = timeline.At[Counter]

func hit() timeline.Call[Counter] {
	return timeline.Call[Counter]{Method: "Hit",
		Do: func(c Counter, now time.Time) any { c.Hit(now); return nil }}
}

func count(want int) timeline.Call[Counter] {
	return timeline.Call[Counter]{Method: "Count", Want: want,
		Do: func(c Counter, now time.Time) any { return c.Count(now) }}
}

// table holds every case of level 1. Part 1 is the counter itself; part 2
// is the follow-up, a million hits a second, where memory must be reused.
var table = []row{
	{
		// The README's first example, with the same numbers.
		Name: "the classic 300-second counter", Part: 1, Arg: 300 * sec,
		Steps: []step{
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
		Name: "a hit counts until one window later and not at it", Part: 1, Arg: 10 * sec,
		Steps: []step{
			at(5*sec, hit()),
			at(5*sec, count(1)),
			at(15*sec-ns, count(1)),
			at(15*sec, count(0)),
		},
	},
	{
		Name: "a count before any hit is zero", Part: 1, Arg: 10 * sec,
		Steps: []step{
			at(0, count(0)),
			at(7*sec, count(0)),
			at(7*sec, hit()),
			at(7*sec, count(1)),
		},
	},
	{
		Name: "a hit exactly at the epoch", Part: 1, Arg: minute,
		Steps: []step{
			at(0, hit()),
			at(0, count(1)),
			at(minute-ns, count(1)),
			at(minute, count(0)),
		},
	},
	{
		Name: "several hits at the same instant", Part: 1, Arg: 10 * sec,
		Steps: []step{
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
		Name: "hits leave one by one in the order they came", Part: 1, Arg: 3 * sec,
		Steps: []step{
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
		Name: "an idle gap far longer than the window", Part: 1, Arg: 10 * sec,
		Steps: []step{
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
		Name: "a one-nanosecond window", Part: 1, Arg: ns,
		Steps: []step{
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
		Name: "a week-long window", Part: 1, Arg: week,
		Steps: []step{
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
		Name: "a sub-second window with millisecond hits", Part: 1, Arg: 250 * ms,
		Steps: []step{
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
		Name: "a window that is not positive panics and names it", Part: 1, Arg: sec,
		Probe: timeline.NonPositivePanics[Counter],
	},
	{
		Name: "no allocation per hit once warmed up", Part: 2, Arg: sec,
		Steps: []step{at(0, hit()), at(0, count(1))},
		Probe: steadyStateAllocs, InProcess: "allocations",
	},
	{
		Name: "memory comes back once a burst has left the window", Part: 2, Arg: sec,
		Steps: []step{at(0, hit()), at(0, count(1)), at(sec, count(0))},
		Probe: memoryComesBack, InProcess: "memory",
	},
}
