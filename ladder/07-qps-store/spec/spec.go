// Package spec is level 7's conformance suite: every case of the key-value
// store with rolling QPS is written here once, and run against both the
// learner's stub in ladder/07-qps-store and the reference in
// solutions/07-qps-store.
//
// The store reads the time from a clock.Clock. The runner hands it a Fake
// clock and sets it before each step, so no case ever sleeps.
//
// # Cost claims
//
// Each cost README.md states, and the case a wrong-cost implementation
// fails:
//
//   - Get on a key that exists, and QPS, allocate nothing (parts 1 and 2):
//     "Get and QPS allocate nothing" and "QPS over an hour and a week
//     allocates nothing".
//   - The counters take a fixed amount of memory whatever the traffic
//     (part 2): "counters take under 1 MiB whatever the traffic".
//   - Get and Put are O(1) apart from the map, and QPS over a week is
//     O(window / granularity): no case times them; the benchmark rows Get,
//     Put and QPS_5m to QPS_7d show them.
//   - Parallel Puts at 0.5 or more of a plain locked map's speed: the
//     benchmark row x_mutex_map only, as a speed is no case's to assert.
package spec

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/ladder/07-qps-store/qpsop"
)

// Store is the API level 7 asks for. Op comes from package qpsop, which
// the qpsstore packages re-export with type aliases. The spec cannot
// import a qpsstore package for it: the stub's in-package test imports
// this package, so that would be an import cycle.
type Store interface {
	Get(key string) (value string, ok bool)
	Put(key, value string)
	QPS(op qpsop.Op, window time.Duration) float64
}

// Test runs every case against the stores newStore builds.
func Test[S Store](t *testing.T, newStore func(clock.Clock) S) {
	t.Helper()
	timeline.Run(t, cases(timeline.Erase[Store](newStore)))
}

// cases binds the table to a constructor.
func cases(newStore func(clock.Clock) Store) []timeline.Case[Store] {
	return timeline.Bind(clocked(newStore), table...)
}

// clocked is the binding of newStore, which takes a clock and nothing
// else: a row has no Arg.
func clocked(newStore func(clock.Clock) Store) timeline.Binding[Store, struct{}] {
	return timeline.Binding[Store, struct{}]{
		New:     func(clk clock.Clock, _ struct{}) Store { return newStore(clk) },
		Setup:   func(struct{}) string { return "New(clock) at t=0s" },
		Clocked: true,
	}
}

// The ops, written short in the tables.
type op = qpsop.Op

const get, put = qpsop.Get, qpsop.Put

// Offsets and windows in the tables are written with these.
const ns, ms, sec, minute, hour, day, week = time.Nanosecond, time.Millisecond, time.Second, time.Minute, time.Hour, 24 * time.Hour, 7 * 24 * time.Hour

// got is Get's two results as one value, written `"v", true`.
type got struct {
	Value string
	OK    bool
}

func (g got) String() string { return fmt.Sprintf("%q, %v", g.Value, g.OK) }

// words is a Want that describes a range or a panic; it prints as is.
type words string

func (w words) String() string { return string(w) }

// call is a method call and the result it should give.
type call = timeline.Call[Store]

func putCall(key, value string) call {
	return call{Method: "Put", Args: []any{key, value},
		Do: func(s Store, _ time.Time) any { s.Put(key, value); return nil }}
}

// putN makes n Puts of the same key at one instant: a burst of traffic in
// one row of the table.
func putN(n int, key string) call {
	return call{
		Method: fmt.Sprintf("%d×Put", n),
		Args:   []any{key, "v"},
		Do: func(s Store, _ time.Time) any {
			for range n {
				s.Put(key, "v")
			}
			return nil
		},
	}
}

func getCall(key, value string, ok bool) call {
	return call{Method: "Get", Args: []any{key}, Want: got{value, ok},
		Do: func(s Store, _ time.Time) any { v, ok := s.Get(key); return got{v, ok} }}
}

// getN makes n Gets of key at one instant, whatever they return.
func getN(n int, key string) call {
	return call{
		Method: fmt.Sprintf("%d×Get", n),
		Args:   []any{key},
		Do: func(s Store, _ time.Time) any {
			for range n {
				s.Get(key)
			}
			return nil
		},
	}
}

// approx forgives the last bits of a float64: n/w and n*(1/w) may differ
// in them. A count off by one differs far more.
var approx = cmpopts.EquateApprox(1e-12, 0)

// qps asks QPS(o, window) where the traffic makes the answer exact:
// Exact(window-g) and Exact(window+g) agree, g being the granularity.
func qps(o op, window time.Duration, want float64) call {
	return call{
		Method: "QPS",
		Args:   []any{o, window},
		Do:     func(s Store, _ time.Time) any { return s.QPS(o, window) },
		Want:   want,
		Opts:   []cmp.Option{approx},
	}
}

// qpsBetween asks QPS(o, window) where the bucket edges may fall either
// way: the count must lie between lo = Exact(window-g) and
// hi = Exact(window+g), g being 1s up to an hour and 1min beyond.
func qpsBetween(o op, window time.Duration, lo, hi int) call {
	w := window.Seconds()
	return call{
		Method: "QPS",
		Args:   []any{o, window},
		Do:     func(s Store, _ time.Time) any { return s.QPS(o, window) },
		Want:   words(fmt.Sprintf("from %.6g to %.6g (%d to %d calls / %vs)", float64(lo)/w, float64(hi)/w, lo, hi, w)),
		Accept: func(v any) bool {
			q, ok := v.(float64)
			return ok && q >= float64(lo)/w*(1-1e-12) && q <= float64(hi)/w*(1+1e-12)
		},
	}
}

// panicked is what qpsPanics got when the call panicked.
type panicked string

func (p panicked) String() string { return "panic: " + string(p) }

// qpsPanics asks QPS with a bad window: it must panic, and the message
// must name the window as time.Duration prints it.
func qpsPanics(o op, window time.Duration) call {
	return call{
		Method: "QPS",
		Args:   []any{o, window},
		Do: func(s Store, _ time.Time) (result any) {
			defer func() {
				if v := recover(); v != nil {
					msg := fmt.Sprint(v)
					if strings.HasPrefix(msg, "not implemented") {
						panic(v) // a stub's panic is reported as such
					}
					result = panicked(msg)
				}
			}()
			return s.QPS(o, window)
		},
		Want: words(fmt.Sprintf("a panic whose message names %v", window)),
		Accept: func(v any) bool {
			p, ok := v.(panicked)
			return ok && strings.Contains(string(p), window.String())
		},
	}
}

// every repeats c at from, from+gap, ..., up to to.
func every(from, to, gap time.Duration, c call) []step {
	var out []step
	for t := from; t <= to; t += gap {
		out = append(out, at(t, c))
	}
	return out
}

// timelineOf merges lists of steps in time order; at one instant, the
// steps of an earlier list come first.
func timelineOf(lists ...[]step) []step {
	var out []step
	for _, l := range lists {
		out = append(out, l...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

// A Put or a Get every so often, as the README's tables write them.
var (
	putEvery2s = every(2*sec, 300*sec, 2*sec, putCall("k", "v"))       // 150 Puts
	getEvery5s = every(5*sec, 300*sec, 5*sec, getCall("k", "v", true)) // 60 Gets
)

// twoHours is the README's two-hour traffic: a burst of Puts every ten
// minutes, 60 at a time in the first hour and 150 in the second.
func twoHours() []step {
	var out []step
	for m := 10 * minute; m <= 2*hour; m += 10 * minute {
		n := 60
		if m > hour {
			n = 150
		}
		out = append(out, at(m, putN(n, "k")))
	}
	return out
}

// row is a case of the table before it is bound to a constructor; its
// Arg is what New takes: nothing, since New takes only the clock. A step is one of its calls, at an
// offset from the start: at(1*sec, putCall("a", "x")).
type (
	row  = timeline.Row[Store, struct{}]
	step = timeline.Step[Store]
)

var at = timeline.At[Store]

// table holds every case of level 7, by part: the last five minutes, then
// windows up to a week, then thread safety.
var table = []row{
	// Part 1: the last five minutes.
	{
		// The README's first example, with the same numbers.
		Name: "the five-minute question", Part: 1,
		Steps: timelineOf(putEvery2s, getEvery5s, []step{
			at(300*sec, qps(put, 5*minute, 0.5)), // 150 Puts / 300s
			at(300*sec, qps(get, 5*minute, 0.2)), // 60 Gets / 300s
			at(300*sec, qps(put, minute, 0.5)),   // the 30 Puts at 242s..300s / 60s
			at(300*sec, qps(get, sec, 1)),        // the Get at 300s
			at(360*sec, qps(put, 5*minute, 0.4)), // the 120 Puts at 62s..300s / 300s
			at(360*sec, qps(get, 5*minute, 0.16)),
			at(360*sec, qps(put, minute, 0)),
		}),
	},
	{
		// The README's second example: the one-second edges.
		Name: "a call counts until one window later and not at it", Part: 1,
		Steps: []step{
			at(1*sec, putCall("a", "x")),
			at(1*sec, putCall("a", "y")),
			at(1*sec, putCall("a", "z")),
			at(1*sec, qps(put, sec, 3)),
			at(2*sec-ns, qps(put, sec, 3)),
			at(2*sec, qps(put, sec, 0)),
			at(301*sec-ns, qps(put, 5*minute, 0.01)),
			at(301*sec, qps(put, 5*minute, 0)),
		},
	},
	{
		// The README's third example: calls between whole seconds.
		Name: "calls between whole seconds are counted to the second", Part: 1,
		Steps: []step{
			at(500*ms, putCall("a", "x")),
			at(500*ms, qps(put, 5*minute, 1.0/300)),             // inside even Exact(4m59s)
			at(300*sec+200*ms, qpsBetween(put, 5*minute, 0, 1)), // Exact(4m59s) = 0, Exact(5m1s) = 1
			at(301*sec+500*ms, qps(put, 5*minute, 0)),           // outside even Exact(5m1s)
		},
	},
	{
		// The README's example of a Get on a missing key.
		Name: "a Get on a missing key counts", Part: 1,
		Steps: []step{
			at(1*sec, getCall("nope", "", false)),
			at(1*sec, qps(get, sec, 1)),
			at(2*sec, putCall("k", "v")),
			at(2*sec, getCall("k", "v", true)),
			at(2*sec, getCall("K", "", false)),
			at(2*sec, qps(get, sec, 2)),
			at(2*sec, qps(get, minute, 3.0/60)),
			at(2*sec, qps(put, minute, 1.0/60)),
		},
	},
	{
		Name: "Get and Put behave as a map", Part: 1,
		Steps: []step{
			at(0, getCall("a", "", false)),
			at(1*sec, putCall("a", "1")),
			at(1*sec, putCall("b", "2")),
			at(2*sec, getCall("a", "1", true)),
			at(3*sec, putCall("a", "3")),
			at(3*sec, getCall("a", "3", true)),
			at(3*sec, getCall("b", "2", true)),
			at(4*sec, putCall("empty", "")),
			at(4*sec, getCall("empty", "", true)), // stored, though empty
			at(4*sec, putCall("", "no name")),
			at(4*sec, getCall("", "no name", true)),
			at(5*sec, qps(put, minute, 5.0/60)),
			at(5*sec, qps(get, minute, 6.0/60)),
		},
	},
	{
		Name: "no calls, no QPS", Part: 1,
		Steps: []step{
			at(0, qps(get, sec, 0)),
			at(0, qps(put, 5*minute, 0)),
			at(10*sec, qps(put, sec, 0)),
			at(10*sec, qps(get, 5*minute, 0)),
		},
	},
	{
		Name: "a window that is not a whole number of seconds", Part: 1,
		Steps: []step{
			at(10*sec+200*ms, putN(3, "k")),
			at(10*sec+500*ms, qps(put, 1500*ms, 2)),           // 3 Puts / 1.5s
			at(12*sec+100*ms, qpsBetween(put, 1500*ms, 0, 3)), // Exact(0.5s) = 0, Exact(2.5s) = 3
			at(12*sec+800*ms, qps(put, 1500*ms, 0)),
		},
	},
	{
		// Five minutes later the ring of a five-minute counter comes back
		// to the same slot: what it held must be gone.
		Name: "the ring comes round after exactly five minutes", Part: 1,
		Steps: []step{
			at(10*sec, putN(2, "k")),
			at(310*sec-ns, qps(put, 5*minute, 2.0/300)),
			at(310*sec, qps(put, 5*minute, 0)),
			at(310*sec, putCall("k", "v")),
			at(310*sec, qps(put, sec, 1)),
			at(310*sec, qps(put, 5*minute, 1.0/300)),
		},
	},
	{
		// The README's idle example.
		Name: "idle for a month then a QPS of zero", Part: 1,
		Steps: []step{
			at(10*sec, putN(5, "k")),
			at(10*sec, getN(5, "k")),
			// A month is a whole number of hours, so the second 30d+10s
			// lands where the second 10s was, in any ring of seconds.
			at(30*day+10*sec, qps(put, sec, 0)),
			at(30*day+5*minute, qps(put, 5*minute, 0)),
			at(30*day+5*minute, qps(get, 5*minute, 0)),
			at(30*day+5*minute, putCall("k", "v")),
			at(30*day+5*minute, qps(put, sec, 1)),
			at(30*day+5*minute, qps(put, 5*minute, 1.0/300)),
			at(30*day+5*minute, getCall("k", "v", true)),
			at(30*day+5*minute, qps(get, 5*minute, 1.0/300)),
		},
	},
	{
		Name: "a bad window panics naming it", Part: 1,
		Steps: []step{
			at(0, qpsPanics(put, 0)),
			at(0, qpsPanics(get, -sec)),
			at(0, qpsPanics(put, sec-ns)),
			at(0, qpsPanics(get, week+ns)),
			at(0, qps(put, sec, 0)), // the limits themselves are fine
		},
	},
	{
		Name: "Get and QPS allocate nothing", Part: 1, InProcess: "allocations",
		Steps: []step{at(0, putCall("k", "v"))},
		Probe: func(s Store, e env) error {
			return noAllocs(s, e.Clock, true, sec, 5*minute)
		},
	},

	// Part 2: windows up to a week.
	{
		// The README's two-hour example.
		Name: "two hours of traffic asked at 5m, 1h and 2h", Part: 2,
		Steps: timelineOf(twoHours(), []step{
			at(2*hour, qps(put, 5*minute, 0.5)),             // the burst at 2h: 150 / 300s
			at(2*hour, qps(put, hour, 0.25)),                // 70m..120m: 900 / 3600s; the burst at 1h has left
			at(2*hour, qps(put, 90*minute, 0.2)),            // 40m..120m: 3×60 + 900 = 1080 / 5400s
			at(2*hour, qps(put, 2*hour, 0.175)),             // 6×60 + 900 = 1260 / 7200s
			at(2*hour, qpsBetween(put, hour+sec, 900, 960)), // Exact(59m1s) = 900, Exact(1h1m1s) = 960
			at(2*hour, qps(get, 2*hour, 0)),
		}),
	},
	{
		// The README's week example.
		Name: "eight days of traffic asked at 7 days", Part: 2,
		Steps: timelineOf(
			[]step{
				at(12*hour, putN(5000, "k")), // the oldest day
				at(day, putN(1000, "k")),     // exactly a week before the question
			},
			every(day+minute, 7*day+minute, day, putN(864, "k")), // 7 × 864 = 6048
			[]step{
				at(8*day-ns, qps(put, week, 7048.0/604800)),
				at(8*day, qps(put, week, 0.01)),
				at(8*day, qps(put, day, 0.01)), // the 864 at 7d+1m
				at(8*day, qps(put, hour, 0)),
				at(8*day+minute-ns, qps(put, week, 0.01)),
				at(8*day+minute, qps(put, week, 5184.0/604800)), // the 864 at 1d+1m have left
			},
		),
	},
	{
		Name: "the second ring comes round after exactly an hour", Part: 2,
		Steps: []step{
			at(10*sec, putN(2, "k")),
			at(hour+10*sec-ns, qps(put, hour, 2.0/3600)),
			at(hour+10*sec, qps(put, hour, 0)),
			at(hour+10*sec, putCall("k", "v")),
			at(hour+10*sec, qps(put, sec, 1)),
			at(hour+10*sec, qps(put, hour, 1.0/3600)),
		},
	},
	{
		Name: "the minute ring comes round after exactly a week", Part: 2,
		Steps: []step{
			at(minute, putN(2, "k")),
			at(week+minute-ns, qps(put, week, 2.0/604800)),
			at(week+minute, qps(put, week, 0)),
			at(week+minute, putCall("k", "v")),
			at(week+minute, qps(put, week, 1.0/604800)),
			at(week+minute, qps(put, 2*hour, 1.0/7200)),
		},
	},
	{
		Name: "idle for a month after a week of traffic", Part: 2,
		Steps: timelineOf(
			every(6*hour, week, 6*hour, putN(60, "k")), // 28 × 60 = 1680
			every(day, week, day, getN(40, "k")),       // 7 × 40 = 280
			[]step{
				at(week, qps(put, week, 1680.0/604800)),
				at(week, qps(get, week, 280.0/604800)),
				at(week+30*day, qps(put, week, 0)),
				at(week+30*day, qps(get, week, 0)),
				at(week+30*day, qps(put, hour, 0)),
				at(week+30*day, qps(put, day, 0)),
				at(week+30*day, putCall("k", "v")),
				at(week+30*day, qps(put, week, 1.0/604800)),
			},
		),
	},
	{
		Name: "counters take under 1 MiB whatever the traffic", Part: 2,
		Steps: []step{at(0, putCall("k", "v"))},
		Probe: counterMemory, InProcess: "memory",
	},
	{
		Name: "QPS over an hour and a week allocates nothing", Part: 2, InProcess: "allocations",
		Steps: []step{at(0, putCall("k", "v"))},
		Probe: func(s Store, e env) error {
			return noAllocs(s, e.Clock, false, hour, 2*hour, week)
		},
	},

	// Part 3: thread safety.
	{
		Name: "concurrent Puts and Gets lose no call", Part: 3, InProcess: "goroutines and the race detector",
		Probe: func(s Store, e env) error {
			return concurrentTotals(s, e.Clock, false)
		},
	},
	{
		Name: "concurrent calls while the clock moves lose no call", Part: 3, InProcess: "goroutines and the race detector",
		Probe: func(s Store, e env) error {
			return concurrentTotals(s, e.Clock, true)
		},
	},
}

// exactCount is Exact(x) over a list of call times: the calls at t with
// now-x < t <= now.
func exactCount(calls []time.Duration, now, x time.Duration) int {
	n := 0
	for _, t := range calls {
		if t > now-x && t <= now {
			n++
		}
	}
	return n
}

// granularity is how far QPS may round a window: to the second up to an
// hour, to the minute beyond.
func granularity(window time.Duration) time.Duration {
	if window <= hour {
		return sec
	}
	return minute
}

// countOf turns a QPS back into the count of calls it stands for.
func countOf(qps float64, window time.Duration) int {
	return int(math.Round(qps * window.Seconds()))
}
