// Package spec is level 2's conformance suite: every case of the logger
// rate limiter is written here once, and run against both the learner's stub
// in ladder/02-logger-limiter and the reference in solutions/02-logger-limiter.
//
// # Cost claims
//
// Each cost README.md states, and the case a wrong-cost implementation
// fails:
//
//   - Memory follows the traffic of the last two intervals (part 2): "5,000
//     distinct messages at one instant, then one call two intervals later"
//     and "a steady stream of fresh messages over many intervals".
//   - Every call is amortized O(1), not a scan of the map (part 2): no case
//     times it. A timed case would judge the machine as much as the code,
//     and the class report plays every call across a pipe; make
//     bench-level-2 shows the cost beside the reference's.
//   - The reference's queue allocates nothing in steady state: said of the
//     reference, not asked of the learner; the benchmark shows it.
package spec

import (
	"fmt"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
)

// Logger is the API level 2 asks for.
type Logger interface {
	ShouldPrint(now time.Time, message string) bool
	Len() int
}

// Test runs every case against the loggers newLogger builds.
func Test[L Logger](t *testing.T, newLogger func(interval time.Duration) L) {
	t.Helper()
	timeline.Run(t, cases(timeline.Erase[Logger](newLogger)))
}

// cases binds the table to a constructor.
func cases(newLogger func(interval time.Duration) Logger) []timeline.Case[Logger] {
	return timeline.Bind(timeline.Unclocked(newLogger), table...)
}

// Offsets in the tables are written with these.
const ns, ms, sec, minute, day, week = time.Nanosecond, time.Millisecond, time.Second, time.Minute, 24 * time.Hour, 7 * 24 * time.Hour

func shouldPrint(message string, want bool) timeline.Call[Logger] {
	return timeline.Call[Logger]{Method: "ShouldPrint", Args: []any{message}, Want: want,
		Do: func(l Logger, now time.Time) any { return l.ShouldPrint(now, message) }}
}

// between is the range of lengths a Len step accepts, as its want.
type between struct{ lo, hi int }

func (b between) String() string {
	if b.lo == b.hi {
		return fmt.Sprint(b.lo)
	}
	return fmt.Sprintf("between %d and %d", b.lo, b.hi)
}

// GoString writes the range as the arguments of remembers, for a timeline
// the fuzzer found and printed as Go.
func (b between) GoString() string { return fmt.Sprintf("%d, %d", b.lo, b.hi) }

// remembers checks Len right after a ShouldPrint call, at that call's time.
// Part 2 allows any length from lo, the messages printed in the last
// interval (a logger must remember those to refuse them), to hi, the
// messages printed in the last two intervals (it may keep no older ones).
func remembers(lo, hi int) timeline.Call[Logger] {
	return timeline.Call[Logger]{
		Method: "Len",
		Do:     func(l Logger, _ time.Time) any { return l.Len() },
		Want:   between{lo, hi},
		Accept: func(got any) bool {
			n, ok := got.(int)
			return ok && lo <= n && n <= hi
		},
	}
}

// row is a case of the table before it is bound to a constructor; its
// Arg is what New takes: the interval. A step is one of its calls, at an
// offset from the start: at(2*sec, shouldPrint("disk full", true)).
type (
	row  = timeline.Row[Logger, time.Duration]
	step = timeline.Step[Logger]
)

var at = timeline.At[Logger]

// table holds every case of level 2. Part 1 is the limiter itself; part 2
// is the follow-up, where the logger must forget messages it no longer
// needs, and Len shows how many it keeps.
var table = []row{
	// Part 1: print each message at most once per interval.
	{
		// The README's first example, with the same numbers.
		Name: "interleaved messages keep their own timers", Part: 1, Arg: 10 * sec,
		Steps: []step{
			at(2*sec, shouldPrint("disk full", true)),
			at(3*sec, shouldPrint("cache miss", true)),
			at(5*sec, shouldPrint("disk full", false)),
			at(11*sec, shouldPrint("cache miss", false)), // 3s is in (1s, 11s]
			at(12*sec, shouldPrint("disk full", true)),   // 2s is not in (2s, 12s]
			at(13*sec, shouldPrint("cache miss", true)),
			at(13*sec, shouldPrint("disk full", false)), // printed again at 12s
		},
	},
	{
		// The README's boundary example: (now - interval, now] is half-open.
		Name: "a message prints again exactly one interval later and not before", Part: 1, Arg: 10 * sec,
		Steps: []step{
			at(5*sec, shouldPrint("disk full", true)),
			at(15*sec-ns, shouldPrint("disk full", false)),
			at(15*sec, shouldPrint("disk full", true)),
			at(25*sec-ns, shouldPrint("disk full", false)),
			at(25*sec, shouldPrint("disk full", true)),
		},
	},
	{
		Name: "the same message twice at the same instant", Part: 1, Arg: 10 * sec,
		Steps: []step{
			at(7*sec, shouldPrint("disk full", true)),
			at(7*sec, shouldPrint("disk full", false)),
			at(7*sec, shouldPrint("cache miss", true)),
			at(7*sec, shouldPrint("cache miss", false)),
			at(7*sec, shouldPrint("disk full", false)),
		},
	},
	{
		// The README's example of a message repeated while it is blocked.
		Name: "a refused call does not restart the timer", Part: 1, Arg: 3 * sec,
		Steps: []step{
			at(1*sec, shouldPrint("retrying", true)),
			at(2*sec, shouldPrint("retrying", false)),
			at(3*sec, shouldPrint("retrying", false)),
			at(4*sec, shouldPrint("retrying", true)), // 3s after the print at 1s
			at(5*sec, shouldPrint("retrying", false)),
			at(6*sec, shouldPrint("retrying", false)),
			at(7*sec, shouldPrint("retrying", true)),
			at(8*sec, shouldPrint("retrying", false)),
		},
	},
	{
		// The README's epoch example: t = 0 is Unix time 0, the zero-value trap.
		Name: "a first message exactly at the epoch", Part: 1, Arg: 10 * sec,
		Steps: []step{
			at(0, shouldPrint("boot", true)),
			at(0, shouldPrint("boot", false)),
			at(10*sec-ns, shouldPrint("boot", false)),
			at(10*sec, shouldPrint("boot", true)),
		},
	},
	{
		Name: "the empty string is an ordinary message", Part: 1, Arg: 10 * sec,
		Steps: []step{
			at(1*sec, shouldPrint("", true)),
			at(2*sec, shouldPrint("", false)),
			at(2*sec, shouldPrint(" ", true)),
			at(2*sec, shouldPrint("Disk full", true)),
			at(2*sec, shouldPrint("disk full", true)), // case matters too
			at(11*sec-ns, shouldPrint("", false)),
			at(11*sec, shouldPrint("", true)),
		},
	},
	{
		Name: "an idle gap far longer than the interval", Part: 1, Arg: minute,
		Steps: []step{
			at(0, shouldPrint("heartbeat", true)),
			at(30*sec, shouldPrint("heartbeat", false)),
			at(30*day, shouldPrint("heartbeat", true)),
			at(30*day+minute-ns, shouldPrint("heartbeat", false)),
			at(30*day+minute, shouldPrint("heartbeat", true)),
		},
	},
	{
		Name: "a one-nanosecond interval", Part: 1, Arg: ns,
		Steps: []step{
			at(0, shouldPrint("tick", true)),
			at(0, shouldPrint("tick", false)),
			at(1*ns, shouldPrint("tick", true)),
			at(1*ns, shouldPrint("tock", true)),
			at(1*ns, shouldPrint("tick", false)),
			at(3*ns, shouldPrint("tick", true)),
		},
	},
	{
		Name: "a week-long interval", Part: 1, Arg: week,
		Steps: []step{
			at(0, shouldPrint("weekly report", true)),
			at(6*day, shouldPrint("weekly report", false)),
			at(week-ns, shouldPrint("weekly report", false)),
			at(week, shouldPrint("weekly report", true)),
		},
	},
	{
		Name: "a sub-second interval", Part: 1, Arg: 500 * ms,
		Steps: []step{
			at(1200*ms, shouldPrint("tick", true)),
			at(1500*ms, shouldPrint("tick", false)),
			at(1700*ms-ns, shouldPrint("tick", false)),
			at(1700*ms, shouldPrint("tick", true)),
			at(2000*ms, shouldPrint("tick", false)),
		},
	},
	{
		Name: "a non-positive interval panics with its value", Part: 1, Arg: sec,
		Probe: timeline.NonPositivePanics[Logger],
	},

	// Part 2: memory that does not grow forever.
	{
		// The README's part 2 example, with the same numbers.
		Name: "the logger forgets messages two intervals old", Part: 2, Arg: 10 * sec,
		Steps: []step{
			at(0, shouldPrint("a", true)),
			at(0, remembers(1, 1)),
			at(4*sec, shouldPrint("b", true)),
			at(4*sec, remembers(2, 2)),
			at(10*sec, shouldPrint("c", true)),
			at(10*sec, remembers(2, 3)), // "a" (0s) may go: it is no longer blocked
			at(20*sec, shouldPrint("d", true)),
			at(20*sec, remembers(1, 3)), // "b" and "c" may stay until 24s and 30s
			at(30*sec, shouldPrint("d", true)),
			at(30*sec, remembers(1, 1)), // "c" was printed at 30s - 2 x 10s
		},
	},
	{
		Name: "a refused call forgets old messages too", Part: 2, Arg: 10 * sec,
		Steps: []step{
			at(0, shouldPrint("a", true)),
			at(15*sec, shouldPrint("b", true)),
			at(15*sec, remembers(1, 2)),
			at(20*sec, shouldPrint("b", false)),
			at(20*sec, remembers(1, 1)), // "a" (0s) is two intervals old
		},
	},
	{
		Name: "a message from one interval ago is gone two intervals later", Part: 2, Arg: 10 * sec,
		Steps: []step{
			at(0, shouldPrint("a", true)),
			at(19*sec, shouldPrint("b", true)),
			at(19*sec, remembers(1, 2)),
			at(25*sec, shouldPrint("c", true)),
			at(25*sec, remembers(2, 2)), // "a" (0s) is older than 25s - 2 x 10s
		},
	},
	{
		Name: "forgetting never lets a blocked message through", Part: 2, Arg: 10 * sec,
		Steps: []step{
			at(0, shouldPrint("x", true)),
			at(9*sec, shouldPrint("a", true)),
			at(11*sec, shouldPrint("a", false)),
			at(19*sec-ns, shouldPrint("a", false)),
			at(19*sec, shouldPrint("a", true)),
			at(19500*ms, shouldPrint("b", true)),
			at(20*sec, shouldPrint("b", false)),
			at(21*sec, shouldPrint("b", false)),
			at(29500*ms-ns, shouldPrint("b", false)),
			at(29500*ms, shouldPrint("b", true)),
		},
	},
	{
		Name: "5,000 distinct messages at one instant, then one call two intervals later", Part: 2, Arg: sec,
		Probe: burstThenOneCall,
	},
	{
		Name: "a steady stream of fresh messages over many intervals", Part: 2, Arg: sec,
		Probe: steadyStream,
	},
}
