// Package spec is level 5's conformance suite: every case of the page-view
// counter is written here once, and run against both the learner's stub in
// ladder/05-page-views and the reference in solutions/05-page-views.
package spec

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
)

// Counter is the API level 5 asks for.
type Counter interface {
	Add(now time.Time, views int) error
	Count(now time.Time) (int, error)
}

// Errors names the sentinel errors of the package under test, so that the
// spec can tell them apart with errors.Is. Each must be set, and no two
// may be the same.
type Errors struct {
	TimeWentBackwards error
	NegativeViews     error
	TimeOutOfRange    error
}

func (e Errors) check() error {
	named := []struct {
		name string
		err  error
	}{
		{"TimeWentBackwards", e.TimeWentBackwards},
		{"NegativeViews", e.NegativeViews},
		{"TimeOutOfRange", e.TimeOutOfRange},
	}
	for i, a := range named {
		if a.err == nil {
			return fmt.Errorf("spec.Errors.%s is nil: set it to your Err%s", a.name, a.name)
		}
		for _, b := range named[:i] {
			if errors.Is(a.err, b.err) {
				return fmt.Errorf("spec.Errors.%s and spec.Errors.%s are the same error (%q): each needs its own errors.New", b.name, a.name, a.err)
			}
		}
	}
	return nil
}

// Test runs every case against the counters newCounter builds; errs names
// the package's errors.
func Test[C Counter](t *testing.T, newCounter func(window, bucket time.Duration) C, errs Errors) {
	if err := errs.check(); err != nil {
		t.Fatal(err)
	}
	timeline.Run(t, cases(erase(newCounter), errs))
}

// erase turns a constructor of a concrete type into one of the interface,
// so that Test type-checks with pageviews.New as it is.
func erase[C Counter](newCounter func(window, bucket time.Duration) C) func(window, bucket time.Duration) Counter {
	return func(w, b time.Duration) Counter { return newCounter(w, b) }
}

// Offsets in the tables are written with these.
const (
	ns     = time.Nanosecond
	ms     = time.Millisecond
	sec    = time.Second
	minute = time.Minute
	hour   = time.Hour
	day    = 24 * hour
	// years200 is 200 years of 365.25 days: 6,311,520,000 one-second
	// buckets.
	years200 = 2 * 36525 * day
)

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
// tables compare with.
func (e Errors) name(err error) errName {
	switch {
	case errors.Is(err, e.TimeWentBackwards):
		return backwards
	case errors.Is(err, e.NegativeViews):
		return negative
	case errors.Is(err, e.TimeOutOfRange):
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
func (e Errors) show(got any) any {
	switch got := got.(type) {
	case error:
		return e.name(got)
	case counted:
		switch {
		case got.err == nil:
			return got.views
		case got.views != 0:
			return errName(fmt.Sprintf("%d, %s", got.views, e.name(got.err)))
		}
		return e.name(got.err)
	}
	return got
}

type step = timeline.Step[Counter]

var at = timeline.At[Counter]

// add is a call to Add that must succeed.
func add(views int) timeline.Call[Counter] {
	return timeline.Call[Counter]{
		Method: "Add",
		Args:   []any{views},
		Do: func(c Counter, now time.Time) any {
			if err := c.Add(now, views); err != nil {
				return err
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
			return counted{n, err}
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

// A timeline case before it is bound to a constructor and the errors.
type viewsCase struct {
	name           string
	part           int
	window, bucket time.Duration
	start          time.Time // offset 0; the zero Time means the epoch
	steps          []step
	// probe, if set, runs after the steps on the same counter.
	probe func(c Counter) error
}

func (tc viewsCase) bind(newCounter func(window, bucket time.Duration) Counter, errs Errors) timeline.Case[Counter] {
	steps := make([]step, len(tc.steps))
	for i, s := range tc.steps {
		do := s.Call.Do
		s.Call.Do = func(c Counter, now time.Time) any { return errs.show(do(c, now)) }
		steps[i] = s
	}
	out := timeline.Case[Counter]{
		Name:  tc.name,
		Part:  tc.part,
		Setup: fmt.Sprintf("New(%s, %s)", timeline.Offset(tc.window), timeline.Offset(tc.bucket)),
		New:   func(clock.Clock) Counter { return newCounter(tc.window, tc.bucket) },
		Start: tc.start,
		Steps: steps,
	}
	if tc.probe != nil {
		out.Probe = func(c Counter, _ *clock.Fake) error { return tc.probe(c) }
	}
	return out
}

func cases(newCounter func(window, bucket time.Duration) Counter, errs Errors) []timeline.Case[Counter] {
	out := make([]timeline.Case[Counter], len(table))
	for i, tc := range table {
		out[i] = tc.bind(newCounter, errs)
	}
	return out
}

// table holds every case of level 5, by part: 1 the ring and its running
// total, 2 long gaps and the range of instants, 3 bad input.
var table = []viewsCase{
	// Part 1: Ring and running total.
	{
		// The README's first example, with the same numbers.
		name: "the classic five-second counter", part: 1, window: 5 * sec, bucket: sec,
		steps: []step{
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
		name: "the window covers whole buckets", part: 1, window: 5 * sec, bucket: sec,
		steps: []step{
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
		name: "times before 1970 are floored to their bucket", part: 1, window: 2 * sec, bucket: sec,
		steps: []step{
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
		name: "a whole timeline in 1969", part: 1, window: 3 * sec, bucket: sec,
		start: time.Date(1969, time.July, 20, 20, 17, 40, 0, time.UTC),
		steps: []step{
			at(0, count(0)),
			at(0, add(1)),
			at(1*sec, add(2)),
			at(2*sec+999*ms, count(3)),
			at(3*sec, count(2)),
			at(4*sec, count(0)),
		},
	},
	{
		name: "a count before any add is zero", part: 1, window: 5 * sec, bucket: sec,
		steps: []step{
			at(0, count(0)),
			at(3*sec, count(0)),
			at(3*sec, add(2)),
			at(3*sec, count(2)),
		},
	},
	{
		name: "a count at the same instant as the latest add", part: 1, window: 5 * sec, bucket: sec,
		steps: []step{
			at(2*sec+300*ms, add(1)),
			at(2*sec+300*ms, count(1)),
			at(2*sec+300*ms, add(2)),
			at(2*sec+300*ms, add(0)),
			at(2*sec+300*ms, count(3)),
			at(2*sec+300*ms, count(3)),
		},
	},
	{
		name: "a window of one bucket", part: 1, window: sec, bucket: sec,
		steps: []step{
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
		name: "250ms buckets", part: 1, window: sec, bucket: 250 * ms,
		steps: []step{
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
		name: "one-nanosecond buckets", part: 1, window: 3 * ns, bucket: ns,
		steps: []step{
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
		name: "a batch of a million views", part: 1, window: 5 * minute, bucket: sec,
		steps: []step{
			at(minute, add(1_000_000)),
			at(minute, add(1)),
			at(6*minute-ns, count(1_000_001)),
			at(6*minute, count(0)),
		},
	},
	{
		name: "every bucket of the window in turn", part: 1, window: 4 * sec, bucket: sec,
		steps: []step{
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
		name: "no call allocates", part: 1, window: 5 * minute, bucket: sec,
		steps: []step{at(0, add(1)), at(0, count(1))},
		probe: noAllocations,
	},
	{
		name: "Count reads a running total even over 864000 buckets", part: 1, window: day, bucket: 100 * ms,
		steps: []step{at(0, count(0))},
		probe: runningTotal,
	},

	// Part 2: Long gaps in one step.
	{
		name: "gaps of n-1, n and n+1 buckets", part: 2, window: 5 * sec, bucket: sec,
		steps: []step{
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
		name: "200 years in one call", part: 2, window: 5 * minute, bucket: sec,
		steps: []step{
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
		name: "200 years of nanosecond buckets across 1970", part: 2, window: 300 * ns, bucket: ns,
		start: time.Date(1900, time.January, 1, 0, 0, 0, 0, time.UTC),
		steps: []step{
			at(0, add(2)),
			at(299*ns, count(2)),
			at(years200, count(0)), // 6.3e18 buckets later
			at(years200, add(1)),
			at(years200+299*ns, count(1)),
			at(years200+300*ns, count(0)),
		},
	},
	{
		name: "from the first accepted instant to the last in one call", part: 2, window: 3 * ns, bucket: ns,
		steps: []step{
			at(minOffset, add(4)), // 1677-09-21T00:12:43.145224192Z
			at(minOffset+2*ns, count(4)),
			at(maxOffset, count(0)), // 2^64-3 buckets later: more than an int64 holds
			at(maxOffset, add(1)),
			at(maxOffset, count(1)),
		},
	},
	{
		name: "instants before 1678 are refused", part: 2, window: 5 * sec, bucket: sec,
		start: firstInstant,
		steps: []step{
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
		name: "instants after 2262 are refused", part: 2, window: 5 * sec, bucket: sec,
		start: lastInstant,
		steps: []step{
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
		name: "errors change nothing", part: 3, window: 5 * sec, bucket: sec,
		steps: []step{
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
		name: "backwards within one bucket is still backwards", part: 3, window: 5 * sec, bucket: sec,
		steps: []step{
			at(1500*ms, add(2)),
			at(1499*ms, addFails(1, backwards)),
			at(1500*ms-ns, countFails(backwards)),
			at(1500*ms, count(2)),
		},
	},
	{
		name: "a refused time does not become the latest", part: 3, window: 5 * sec, bucket: sec,
		steps: []step{
			at(5*sec, add(1)),
			at(3*sec, countFails(backwards)),
			at(4*sec, countFails(backwards)),
			at(4*sec, addFails(1, backwards)),
			at(5*sec, count(1)),
		},
	},
	{
		name: "a count moves the latest time too", part: 3, window: 5 * sec, bucket: sec,
		steps: []step{
			at(1*sec, add(1)),
			at(5*sec, count(1)),
			at(4*sec, addFails(1, backwards)),
			at(5*sec, count(1)),
		},
	},
	{
		name: "an add of zero views moves the latest time", part: 3, window: 5 * sec, bucket: sec,
		steps: []step{
			at(5*sec, add(0)),
			at(4*sec, countFails(backwards)),
			at(5*sec, count(0)),
		},
	},
	{
		name: "a refused add far ahead empties nothing", part: 3, window: 5 * sec, bucket: sec,
		steps: []step{
			at(2*sec, add(3)),
			at(10*sec, addFails(-1, negative)),
			at(hour, addFails(-5, negative)),
			at(4*sec, count(3)),
			at(7*sec-ns, count(3)),
			at(7*sec, count(0)),
		},
	},
	{
		name: "backwards is checked before the views", part: 3, window: 5 * sec, bucket: sec,
		steps: []step{
			at(5*sec, add(1)),
			at(4*sec, addFails(-1, backwards)),
			at(5*sec, addFails(-1, negative)),
			at(5*sec, count(1)),
		},
	},
}
