// Package spec is level 7's conformance suite: every case of the key-value
// store with rolling QPS is written here once, and run against both the
// learner's stub in ladder/07-qps-store and the reference in
// solutions/07-qps-store.
//
// The store reads the time from a clock.Clock. The runner hands it a Fake
// clock and sets it before each step, so no case ever sleeps.
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
)

// Op is what the spec needs of the level's Op type: an int kind with Get
// as 0 and Put as 1, that prints as "Get" and "Put".
type Op interface {
	~int
	String() string
}

// Store is the API level 7 asks for; O is the level's Op type.
type Store[O Op] interface {
	Get(key string) (value string, ok bool)
	Put(key, value string)
	QPS(op O, window time.Duration) float64
}

// Test runs every case against the stores newStore builds.
func Test[O Op, S Store[O]](t *testing.T, newStore func(clock.Clock) S) {
	timeline.Run(t, cases(erase[O](newStore)))
}

// store is the API as the cases see it, with the spec's own op type, so
// that one table serves every implementation and the wrong ones in
// mutants_test.go.
type store interface {
	Get(key string) (value string, ok bool)
	Put(key, value string)
	QPS(o op, window time.Duration) float64
	// opName is the implementation's Op(o).String().
	opName(o op) string
}

// op is the spec's copy of the level's Op. Arguments in messages are
// written with its String, so a report reads well even while the
// learner's String is unfinished.
type op int

const (
	get op = iota
	put
)

func (o op) String() string {
	if o == get {
		return "Get"
	}
	return "Put"
}

// adapter turns a store of the level's types into a store.
type adapter[O Op, S Store[O]] struct{ s S }

func (a adapter[O, S]) Get(key string) (string, bool)          { return a.s.Get(key) }
func (a adapter[O, S]) Put(key, value string)                  { a.s.Put(key, value) }
func (a adapter[O, S]) QPS(o op, window time.Duration) float64 { return a.s.QPS(O(o), window) }
func (a adapter[O, S]) opName(o op) string                     { return O(o).String() }

func erase[O Op, S Store[O]](newStore func(clock.Clock) S) func(clock.Clock) store {
	return func(c clock.Clock) store { return adapter[O, S]{newStore(c)} }
}

// Offsets and windows in the tables are written with these.
const (
	ns     = time.Nanosecond
	ms     = time.Millisecond
	sec    = time.Second
	minute = time.Minute
	hour   = time.Hour
	day    = 24 * hour
	week   = 7 * day
)

type (
	step = timeline.Step[store]
	call = timeline.Call[store]
)

var at = timeline.At[store]

// got is Get's two results as one value, written `"v", true`.
type got struct {
	Value string
	OK    bool
}

func (g got) String() string { return fmt.Sprintf("%q, %v", g.Value, g.OK) }

// words is a Want that describes a range or a panic; it prints as is.
type words string

func (w words) String() string { return string(w) }

func putCall(key, value string) call {
	return call{
		Method: "Put",
		Args:   []any{key, value},
		Do:     func(s store, _ time.Time) any { s.Put(key, value); return nil },
	}
}

// putN makes n Puts of the same key at one instant: a burst of traffic in
// one row of the table.
func putN(n int, key string) call {
	return call{
		Method: fmt.Sprintf("%d×Put", n),
		Args:   []any{key, "v"},
		Do: func(s store, _ time.Time) any {
			for range n {
				s.Put(key, "v")
			}
			return nil
		},
	}
}

func getCall(key, value string, ok bool) call {
	return call{
		Method: "Get",
		Args:   []any{key},
		Do:     func(s store, _ time.Time) any { v, ok := s.Get(key); return got{v, ok} },
		Want:   got{value, ok},
	}
}

// getN makes n Gets of key at one instant, whatever they return.
func getN(n int, key string) call {
	return call{
		Method: fmt.Sprintf("%d×Get", n),
		Args:   []any{key},
		Do: func(s store, _ time.Time) any {
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
		Do:     func(s store, _ time.Time) any { return s.QPS(o, window) },
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
		Do:     func(s store, _ time.Time) any { return s.QPS(o, window) },
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
		Do: func(s store, _ time.Time) (result any) {
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

func opString(o op, want string) call {
	return call{
		Method: o.String() + ".String",
		Do:     func(s store, _ time.Time) any { return s.opName(o) },
		Want:   want,
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

// A timeline case before it is bound to a constructor.
type storeCase struct {
	name  string
	part  int
	steps []step
	probe func(s store, clk *clock.Fake, newStore func(clock.Clock) store) error
}

func cases(newStore func(clock.Clock) store) []timeline.Case[store] {
	out := make([]timeline.Case[store], len(table))
	for i, tc := range table {
		out[i] = timeline.Case[store]{
			Name:    tc.name,
			Part:    tc.part,
			Setup:   "New(clock) at t=0s",
			New:     newStore,
			Clocked: true,
			Steps:   tc.steps,
		}
		if tc.probe != nil {
			out[i].Probe = func(s store, clk *clock.Fake) error { return tc.probe(s, clk, newStore) }
		}
	}
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

// table holds every case of level 7, by part: the last five minutes, then
// windows up to a week, then thread safety.
var table = []storeCase{
	// Part 1: the last five minutes.
	{
		// The README's first example, with the same numbers.
		name: "the five-minute question", part: 1,
		steps: timelineOf(putEvery2s, getEvery5s, []step{
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
		name: "a call counts until one window later and not at it", part: 1,
		steps: []step{
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
		name: "calls between whole seconds are counted to the second", part: 1,
		steps: []step{
			at(500*ms, putCall("a", "x")),
			at(500*ms, qps(put, 5*minute, 1.0/300)),             // inside even Exact(4m59s)
			at(300*sec+200*ms, qpsBetween(put, 5*minute, 0, 1)), // Exact(4m59s) = 0, Exact(5m1s) = 1
			at(301*sec+500*ms, qps(put, 5*minute, 0)),           // outside even Exact(5m1s)
		},
	},
	{
		// The README's example of a Get on a missing key.
		name: "a Get on a missing key counts", part: 1,
		steps: []step{
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
		name: "Get and Put behave as a map", part: 1,
		steps: []step{
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
		name: "no calls, no QPS", part: 1,
		steps: []step{
			at(0, qps(get, sec, 0)),
			at(0, qps(put, 5*minute, 0)),
			at(10*sec, qps(put, sec, 0)),
			at(10*sec, qps(get, 5*minute, 0)),
		},
	},
	{
		name: "Op prints as Get and Put", part: 1,
		steps: []step{
			at(0, opString(get, "Get")),
			at(0, opString(put, "Put")),
		},
	},
	{
		name: "a window that is not a whole number of seconds", part: 1,
		steps: []step{
			at(10*sec+200*ms, putN(3, "k")),
			at(10*sec+500*ms, qps(put, 1500*ms, 2)),           // 3 Puts / 1.5s
			at(12*sec+100*ms, qpsBetween(put, 1500*ms, 0, 3)), // Exact(0.5s) = 0, Exact(2.5s) = 3
			at(12*sec+800*ms, qps(put, 1500*ms, 0)),
		},
	},
	{
		// Five minutes later the ring of a five-minute counter comes back
		// to the same slot: what it held must be gone.
		name: "the ring comes round after exactly five minutes", part: 1,
		steps: []step{
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
		name: "idle for a month then a QPS of zero", part: 1,
		steps: []step{
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
		name: "a bad window panics naming it", part: 1,
		steps: []step{
			at(0, qpsPanics(put, 0)),
			at(0, qpsPanics(get, -sec)),
			at(0, qpsPanics(put, sec-ns)),
			at(0, qpsPanics(get, week+ns)),
			at(0, qps(put, sec, 0)), // the limits themselves are fine
		},
	},
	{
		name: "Get and QPS allocate nothing", part: 1,
		steps: []step{at(0, putCall("k", "v"))},
		probe: func(s store, clk *clock.Fake, _ func(clock.Clock) store) error {
			return noAllocs(s, clk, true, sec, 5*minute)
		},
	},

	// Part 2: windows up to a week.
	{
		// The README's two-hour example.
		name: "two hours of traffic asked at 5m, 1h and 2h", part: 2,
		steps: timelineOf(twoHours(), []step{
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
		name: "eight days of traffic asked at 7 days", part: 2,
		steps: timelineOf(
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
		name: "the second ring comes round after exactly an hour", part: 2,
		steps: []step{
			at(10*sec, putN(2, "k")),
			at(hour+10*sec-ns, qps(put, hour, 2.0/3600)),
			at(hour+10*sec, qps(put, hour, 0)),
			at(hour+10*sec, putCall("k", "v")),
			at(hour+10*sec, qps(put, sec, 1)),
			at(hour+10*sec, qps(put, hour, 1.0/3600)),
		},
	},
	{
		name: "the minute ring comes round after exactly a week", part: 2,
		steps: []step{
			at(minute, putN(2, "k")),
			at(week+minute-ns, qps(put, week, 2.0/604800)),
			at(week+minute, qps(put, week, 0)),
			at(week+minute, putCall("k", "v")),
			at(week+minute, qps(put, week, 1.0/604800)),
			at(week+minute, qps(put, 2*hour, 1.0/7200)),
		},
	},
	{
		name: "idle for a month after a week of traffic", part: 2,
		steps: timelineOf(
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
		name: "counters take under 1 MiB whatever the traffic", part: 2,
		steps: []step{at(0, putCall("k", "v"))},
		probe: func(_ store, _ *clock.Fake, newStore func(clock.Clock) store) error {
			return counterMemory(newStore)
		},
	},
	{
		name: "QPS over an hour and a week allocates nothing", part: 2,
		steps: []step{at(0, putCall("k", "v"))},
		probe: func(s store, clk *clock.Fake, _ func(clock.Clock) store) error {
			return noAllocs(s, clk, false, hour, 2*hour, week)
		},
	},

	// Part 3: thread safety.
	{
		name: "concurrent Puts and Gets lose no call", part: 3,
		probe: func(s store, clk *clock.Fake, _ func(clock.Clock) store) error {
			return concurrentTotals(s, clk, false)
		},
	},
	{
		name: "concurrent calls while the clock moves lose no call", part: 3,
		probe: func(s store, clk *clock.Fake, _ func(clock.Clock) store) error {
			return concurrentTotals(s, clk, true)
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
