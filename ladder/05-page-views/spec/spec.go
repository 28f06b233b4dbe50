// Package spec is level 5's conformance suite: every case of the page-view
// counter is written here once, and run against both the learner's stub in
// ladder/05-page-views and the reference in solutions/05-page-views.
//
// # Cost claims
//
// Each cost README.md states, and the case a wrong-cost implementation
// fails:
//
//   - Count never sums the ring (part 1): "Count reads a running total even
//     over 864000 buckets", in which a Count that sums the ring does not
//     finish.
//   - After New, no call allocates, so memory is fixed (part 1): "no call
//     allocates".
//   - A gap of d buckets empties at most min(d, n) of them (part 2): "200
//     years in one call" and "200 years of nanosecond buckets across 1970",
//     where stepping through 6 billion or 2⁶³ buckets does not finish.
//     The benchmark rows random_gaps/n=300 and n=86400 show the cost.
package spec

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/ladder/05-page-views/viewerr"
)

// Counter is the API level 5 asks for.
type Counter interface {
	Add(now time.Time, views int) error
	Count(now time.Time) (int, error)
}

// Test runs every case against the counters newCounter builds.
func Test[C Counter](t *testing.T, newCounter func(window, bucket time.Duration) C) {
	t.Helper()
	timeline.Run(t, cases(func(w, b time.Duration) Counter { return newCounter(w, b) }))
}

// cases binds the table to a constructor.
func cases(newCounter func(window, bucket time.Duration) Counter) []timeline.Case[Counter] {
	return timeline.Bind(unclocked(newCounter), table...)
}

// unclocked is the binding of newCounter: a row's Arg is its two sizes.
func unclocked(newCounter func(window, bucket time.Duration) Counter) timeline.Binding[Counter, size] {
	return timeline.Unclocked(func(s size) Counter { return newCounter(s.window, s.bucket) })
}

// size is the arguments of New, written as the report shows them: "5s, 1s".
type size struct{ window, bucket time.Duration }

func (s size) String() string { return timeline.Offset(s.window) + ", " + timeline.Offset(s.bucket) }

// Offsets in the tables are written with these. years200 is 200 years of
// 365.25 days: 6,311,520,000 one-second buckets.
const ns, ms, sec, minute, hour, day, years200 = time.Nanosecond, time.Millisecond, time.Second, time.Minute, time.Hour, 24 * time.Hour, 2 * 36525 * 24 * time.Hour

// The first and last instants whose UnixNano is defined, and so the range
// the counter accepts. As offsets from the epoch they are the smallest and
// largest time.Duration.
var (
	firstInstant = time.Unix(0, math.MinInt64)
	lastInstant  = time.Unix(0, math.MaxInt64)
	minOffset    = time.Duration(math.MinInt64)
	maxOffset    = time.Duration(math.MaxInt64)
)

// errName is how a step's result names an error: "ErrTimeWentBackwards".
// A Count that succeeds gives its int; an Add that succeeds gives nil.
type errName string

func (e errName) String() string { return string(e) }

const (
	backwards  errName = "ErrTimeWentBackwards"
	negative   errName = "ErrNegativeViews"
	outOfRange errName = "ErrTimeOutOfRange"
)

// name turns an error returned by the implementation into the errName the
// tables compare with. The errors come from package viewerr, which the
// pageviews packages re-export: the spec cannot import a pageviews package
// for them, since the stub's in-package test imports this package.
func name(err error) errName {
	switch {
	case errors.Is(err, viewerr.ErrTimeWentBackwards):
		return backwards
	case errors.Is(err, viewerr.ErrNegativeViews):
		return negative
	case errors.Is(err, viewerr.ErrTimeOutOfRange):
		return outOfRange
	}
	return errName(fmt.Sprintf("unexpected error %q", err))
}

// counted is what Count gave, before it is shown.
type counted struct {
	views int
	err   error
}

// show turns what a call gave into the value its step compares: nil for an
// Add that succeeded, the views for a Count that did, the error's name
// otherwise. A Count that returns views with an error shows both.
func show(got any) any {
	switch got := got.(type) {
	case error:
		return name(got)
	case counted:
		switch {
		case got.err == nil:
			return got.views
		case got.views != 0:
			return errName(fmt.Sprintf("%d, %s", got.views, name(got.err)))
		}
		return name(got.err)
	}
	return got
}

// add is a call to Add that must succeed.
func add(views int) timeline.Call[Counter] {
	return timeline.Call[Counter]{
		Method: "Add",
		Args:   []any{views},
		Do: func(c Counter, now time.Time) any {
			if err := c.Add(now, views); err != nil {
				return show(err)
			}
			return nil
		},
	}
}

// addFails is a call to Add that must return the named error.
func addFails(views int, want errName) timeline.Call[Counter] {
	call := add(views)
	call.Want = want
	return call
}

// count is a call to Count that must give want views.
func count(want int) timeline.Call[Counter] {
	return timeline.Call[Counter]{
		Method: "Count",
		Do: func(c Counter, now time.Time) any {
			n, err := c.Count(now)
			return show(counted{n, err})
		},
		Want: want,
	}
}

// countFails is a call to Count that must return 0 and the named error.
func countFails(want errName) timeline.Call[Counter] {
	call := count(0)
	call.Want = want
	return call
}

// row is a case of the table before it is bound to a constructor; its
// Arg is what New takes: the window and the bucket. A step is one of its calls, at an
// offset from the start: at(1*sec, add(1)).
type (
	row  = timeline.Row[Counter, size]
	step = timeline.Step[Counter]
)

var at = timeline.At[Counter]

// table holds every case of level 5, by part: 1 the ring and its running
// total, 2 long gaps and the range of instants, 3 bad input.
var table = []row{
	// Part 1: Ring and running total.
	{
		// The README's first example, with the same numbers.
		Name: "the classic five-second counter", Part: 1, Arg: size{5 * sec, sec},
		Steps: []step{
			at(1*sec, add(1)),
			at(2*sec, add(4)), // a batch of four views at once
			at(4*sec, count(5)),
			at(6*sec, add(1)),   // second 6 reuses the bucket of second 1
			at(6*sec, count(5)), // seconds 2 to 6: 4 + 1
			at(7*sec, count(1)), // seconds 3 to 7: second 2 has left
			at(7*sec, add(2)),
			at(30*sec, count(0)), // a gap longer than the window
			at(30*sec, add(3)),
			at(30*sec, count(3)),
		},
	},
	{
		// The README's edge example: the window moves a whole bucket at a
		// time.
		Name: "the window covers whole buckets", Part: 1, Arg: size{5 * sec, sec},
		Steps: []step{
			at(10*sec-ns, add(1)), // bucket 9
			at(10*sec, add(2)),    // bucket 10 starts at 10s
			at(10*sec+500*ms, add(4)),
			at(10*sec+500*ms, count(7)),
			at(14*sec-ns, count(7)), // buckets 9 to 13
			at(14*sec, count(6)),    // buckets 10 to 14: bucket 9 has left
			at(15*sec-ns, count(6)),
			at(15*sec, count(0)), // the view at 10.5s leaves at 15s, not at 15.5s
		},
	},
	{
		// The README's example before the epoch.
		Name: "times before 1970 are floored to their bucket", Part: 1, Arg: size{2 * sec, sec},
		Steps: []step{
			at(-1500*ms, add(1)), // bucket -2, [-2s, -1s)
			at(-500*ms, add(2)),  // bucket -1, [-1s, 0s)
			at(-500*ms, count(3)),
			at(0, count(2)), // buckets -1 and 0: bucket -2 has left
			at(500*ms, add(4)),
			at(sec-ns, count(6)),
			at(sec, count(4)),
		},
	},
	{
		Name: "a whole timeline in 1969", Part: 1, Arg: size{3 * sec, sec},
		Start: time.Date(1969, time.July, 20, 20, 17, 40, 0, time.UTC),
		Steps: []step{
			at(0, count(0)),
			at(0, add(1)),
			at(1*sec, add(2)),
			at(2*sec+999*ms, count(3)),
			at(3*sec, count(2)),
			at(4*sec, count(0)),
		},
	},
	{
		Name: "a count before any add is zero", Part: 1, Arg: size{5 * sec, sec},
		Steps: []step{
			at(0, count(0)),
			at(3*sec, count(0)),
			at(3*sec, add(2)),
			at(3*sec, count(2)),
		},
	},
	{
		Name: "a count at the same instant as the latest add", Part: 1, Arg: size{5 * sec, sec},
		Steps: []step{
			at(2*sec+300*ms, add(1)),
			at(2*sec+300*ms, count(1)),
			at(2*sec+300*ms, add(2)),
			at(2*sec+300*ms, add(0)),
			at(2*sec+300*ms, count(3)),
			at(2*sec+300*ms, count(3)),
		},
	},
	{
		Name: "a window of one bucket", Part: 1, Arg: size{sec, sec},
		Steps: []step{
			at(500*ms, add(3)),
			at(sec-ns, count(3)),
			at(sec, count(0)),
			at(sec, add(1)),
			at(1700*ms, add(1)),
			at(1700*ms, count(2)),
			at(2*sec, count(0)),
		},
	},
	{
		Name: "250ms buckets", Part: 1, Arg: size{sec, 250 * ms},
		Steps: []step{
			at(100*ms, add(1)), // bucket 0, [0, 250ms)
			at(300*ms, add(2)), // bucket 1, [250ms, 500ms)
			at(sec-ns, count(3)),
			at(sec, count(2)), // buckets 1 to 4: bucket 0 has left
			at(1250*ms-ns, count(2)),
			at(1250*ms, count(0)),
			at(1250*ms, add(4)),
			at(2250*ms-ns, count(4)),
			at(2250*ms, count(0)),
		},
	},
	{
		Name: "one-nanosecond buckets", Part: 1, Arg: size{3 * ns, ns},
		Steps: []step{
			at(0, add(1)),
			at(1*ns, add(2)),
			at(2*ns, count(3)),
			at(3*ns, count(2)),
			at(3*ns, add(5)),
			at(4*ns, count(5)),
			at(6*ns, count(0)),
		},
	},
	{
		Name: "a batch of a million views", Part: 1, Arg: size{5 * minute, sec},
		Steps: []step{
			at(minute, add(1_000_000)),
			at(minute, add(1)),
			at(6*minute-ns, count(1_000_001)),
			at(6*minute, count(0)),
		},
	},
	{
		Name: "every bucket of the window in turn", Part: 1, Arg: size{4 * sec, sec},
		Steps: []step{
			at(0, add(1)),
			at(1*sec, add(10)),
			at(2*sec, add(100)),
			at(3*sec, add(1000)),
			at(3*sec, count(1111)),
			at(4*sec, add(10000)),
			at(4*sec, count(11110)),
			at(5*sec, count(11100)),
			at(6*sec, count(11000)),
			at(7*sec, count(10000)),
			at(8*sec, count(0)),
		},
	},
	{
		Name: "no call allocates", Part: 1, Arg: size{5 * minute, sec},
		Steps: []step{at(0, add(1)), at(0, count(1))},
		Probe: noAllocations, InProcess: "allocations",
	},
	{
		Name: "Count reads a running total even over 864000 buckets", Part: 1, Arg: size{day, 100 * ms},
		Steps: []step{at(0, count(0))},
		// 400,000 calls, and a limit in time: the class report's checker
		// plays the step, the student's binary the probe.
		Probe: runningTotal, InProcess: "timing",
	},

	// Part 2: Long gaps in one step.
	{
		Name: "gaps of n-1, n and n+1 buckets", Part: 2, Arg: size{5 * sec, sec},
		Steps: []step{
			at(10*sec, add(1)),
			at(14*sec, count(1)), // 4 buckets later: bucket 10 is still in
			at(14*sec, add(2)),
			at(19*sec, count(0)), // 5 buckets later: all gone
			at(19*sec, add(3)),
			at(25*sec, count(0)), // 6 buckets later
			at(25*sec, add(4)),
			at(29*sec+999*ms, count(4)),
		},
	},
	{
		// The README's 200-year example.
		Name: "200 years in one call", Part: 2, Arg: size{5 * minute, sec},
		Steps: []step{
			at(0, add(7)),
			at(299*sec, add(1)),
			at(299*sec, count(8)),
			at(years200, count(0)), // 6,311,520,000 buckets later
			at(years200, add(5)),
			at(years200+5*minute-ns, count(5)),
			at(years200+5*minute, count(0)),
		},
	},
	{
		Name: "200 years of nanosecond buckets across 1970", Part: 2, Arg: size{300 * ns, ns},
		Start: time.Date(1900, time.January, 1, 0, 0, 0, 0, time.UTC),
		Steps: []step{
			at(0, add(2)),
			at(299*ns, count(2)),
			at(years200, count(0)), // 6.3e18 buckets later
			at(years200, add(1)),
			at(years200+299*ns, count(1)),
			at(years200+300*ns, count(0)),
		},
	},
	{
		Name: "from the first accepted instant to the last in one call", Part: 2, Arg: size{3 * ns, ns},
		Steps: []step{
			at(minOffset, add(4)), // 1677-09-21T00:12:43.145224192Z
			at(minOffset+2*ns, count(4)),
			at(maxOffset, count(0)), // 2^64-3 buckets later: more than an int64 holds
			at(maxOffset, add(1)),
			at(maxOffset, count(1)),
		},
	},
	{
		Name: "instants before 1678 are refused", Part: 2, Arg: size{5 * sec, sec},
		Start: firstInstant,
		Steps: []step{
			at(-ns, countFails(outOfRange)),
			at(-ns, addFails(1, outOfRange)),
			at(-years200, addFails(1, outOfRange)),
			at(0, add(1)),
			at(0, count(1)),
			at(3*sec, add(2)),
			// Out of range and backwards at once: the range is checked first.
			at(-sec, addFails(-1, outOfRange)),
			at(3*sec, count(3)),
			// The first instant is 0.854775808s into its bucket, so the
			// view at offset 0 leaves 4.854775808s later, at the edge of
			// the fifth bucket after it: 1677-09-21T00:12:48Z.
			at(4854775808*ns-ns, count(3)),
			at(4854775808*ns, count(2)),
		},
	},
	{
		Name: "instants after 2262 are refused", Part: 2, Arg: size{5 * sec, sec},
		Start: lastInstant,
		Steps: []step{
			at(-3*sec, add(2)),
			at(0, add(1)),
			at(0, count(3)),
			at(ns, countFails(outOfRange)),
			at(ns, addFails(5, outOfRange)),
			at(years200, countFails(outOfRange)),
			at(0, count(3)), // the refused calls changed nothing
		},
	},

	// Part 3: Bad input, and nothing lost.
	{
		// The README's error example, with the same numbers.
		Name: "errors change nothing", Part: 3, Arg: size{5 * sec, sec},
		Steps: []step{
			at(2*sec, add(3)),
			at(3*sec, addFails(-1, negative)),
			at(2500*ms, count(3)), // the latest time is still 2s
			at(2400*ms, countFails(backwards)),
			at(2500*ms, add(1)),
			at(7*sec-ns, count(4)),
			at(2500*ms, countFails(backwards)),
			at(7*sec, count(0)),
		},
	},
	{
		Name: "backwards within one bucket is still backwards", Part: 3, Arg: size{5 * sec, sec},
		Steps: []step{
			at(1500*ms, add(2)),
			at(1499*ms, addFails(1, backwards)),
			at(1500*ms-ns, countFails(backwards)),
			at(1500*ms, count(2)),
		},
	},
	{
		Name: "a refused time does not become the latest", Part: 3, Arg: size{5 * sec, sec},
		Steps: []step{
			at(5*sec, add(1)),
			at(3*sec, countFails(backwards)),
			at(4*sec, countFails(backwards)),
			at(4*sec, addFails(1, backwards)),
			at(5*sec, count(1)),
		},
	},
	{
		Name: "a count moves the latest time too", Part: 3, Arg: size{5 * sec, sec},
		Steps: []step{
			at(1*sec, add(1)),
			at(5*sec, count(1)),
			at(4*sec, addFails(1, backwards)),
			at(5*sec, count(1)),
		},
	},
	{
		Name: "an add of zero views moves the latest time", Part: 3, Arg: size{5 * sec, sec},
		Steps: []step{
			at(5*sec, add(0)),
			at(4*sec, countFails(backwards)),
			at(5*sec, count(0)),
		},
	},
	{
		Name: "a refused add far ahead empties nothing", Part: 3, Arg: size{5 * sec, sec},
		Steps: []step{
			at(2*sec, add(3)),
			at(10*sec, addFails(-1, negative)),
			at(hour, addFails(-5, negative)),
			at(4*sec, count(3)),
			at(7*sec-ns, count(3)),
			at(7*sec, count(0)),
		},
	},
	{
		Name: "backwards is checked before the views", Part: 3, Arg: size{5 * sec, sec},
		Steps: []step{
			at(5*sec, add(1)),
			at(4*sec, addFails(-1, backwards)),
			at(5*sec, addFails(-1, negative)),
			at(5*sec, count(1)),
		},
	},
}
