// Package spec is level 3's conformance suite: every case of the token
// bucket is written here once, and run against both the learner's stub in
// ladder/03-token-bucket and the reference in solutions/03-token-bucket.
//
// # Cost claims
//
// README.md states no cost: Allow does a few multiplications whatever
// the design, and the benchmark rows all_allowed and half_denied show it.
package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
)

// Bucket is the API level 3 asks for.
type Bucket interface {
	Allow(now time.Time) bool
	AllowN(now time.Time, n int) bool
	Tokens(now time.Time) float64
	Delay(now time.Time, n int) (wait time.Duration, ok bool)
}

// Test runs every case against the buckets newBucket builds.
func Test[B Bucket](t *testing.T, newBucket func(capacity int, rate float64) B) {
	t.Helper()
	timeline.Run(t, cases(func(capacity int, rate float64) Bucket { return newBucket(capacity, rate) }))
}

// cases binds the table to a constructor.
func cases(newBucket func(capacity int, rate float64) Bucket) []timeline.Case[Bucket] {
	return timeline.Bind(unclocked(newBucket), table...)
}

// unclocked is the binding of newBucket: a row's Arg is its capacity and
// rate.
func unclocked(newBucket func(capacity int, rate float64) Bucket) timeline.Binding[Bucket, shape] {
	return timeline.Unclocked(func(s shape) Bucket { return newBucket(s.capacity, s.rate) })
}

// shape is the arguments of New, written as the report shows them: "5, 2".
type shape struct {
	capacity int
	rate     float64
}

func (s shape) String() string { return fmt.Sprintf("%d, %v", s.capacity, s.rate) }

// Offsets in the tables are written with these.
const ns, us, ms, sec, minute, hour, day = time.Nanosecond, time.Microsecond, time.Millisecond, time.Second, time.Minute, time.Hour, 24 * time.Hour

// tolerance is how far Tokens may be from the exact count. Tokens is a
// float64, and an exact bucket may still round once or twice turning its
// count into one. Above about 4 million tokens a float64 is coarser than
// 1e-9, so there the last few bits may differ instead: relTolerance of the
// count, about four units in the last place.
const (
	tolerance    = 1e-9
	relTolerance = 0x1p-50
)

// closeTo reports whether a Tokens answer is within tolerance of want.
func closeTo(got, want float64) bool {
	return math.Abs(got-want) <= tolerance+relTolerance*math.Abs(want)
}

// maxCapacity is the largest capacity a bucket takes, 2^53: the largest
// count up to which a float64 holds every whole number.
const maxCapacity = 1 << 53

// minRate is the slowest positive rate a bucket takes, in tokens a
// second: one token per 2^63 nanoseconds, longer than any time.Duration.
const minRate = 1e9 / (1 << 63)

// maxWait is the longest wait Delay can return, about 292 years.
const maxWait = time.Duration(math.MaxInt64)

func allow(want bool) timeline.Call[Bucket] {
	return timeline.Call[Bucket]{Method: "Allow", Want: want,
		Do: func(b Bucket, now time.Time) any { return b.Allow(now) }}
}

func allowN(n int, want bool) timeline.Call[Bucket] {
	return timeline.Call[Bucket]{Method: "AllowN", Args: []any{n}, Want: want,
		Do: func(b Bucket, now time.Time) any { return b.AllowN(now, n) }}
}

// approx is a Tokens answer: within tolerance of the exact count.
type approx float64

// String writes the count in full, never with an exponent: ≈9999999000.25.
func (a approx) String() string { return "≈" + strconv.FormatFloat(float64(a), 'f', -1, 64) }

// count is a Tokens result as the table shows it: in full, never with an
// exponent.
type count float64

func (c count) String() string { return strconv.FormatFloat(float64(c), 'f', -1, 64) }

func tokens(want float64) timeline.Call[Bucket] {
	return timeline.Call[Bucket]{
		Method: "Tokens",
		Do:     func(b Bucket, now time.Time) any { return count(b.Tokens(now)) },
		Want:   approx(want),
		Accept: func(got any) bool {
			g, ok := got.(count)
			return ok && closeTo(float64(g), want)
		},
	}
}

// never is what the delay calls show for ok == false.
const never = "never"

// showDelay writes a Delay result for the table: the wait, or "never".
// "Never" is ok == false with a wait of 0; anything else with ok == false
// is shown in full, so that it differs from every want.
func showDelay(wait time.Duration, ok bool) string {
	switch {
	case ok:
		return timeline.Offset(wait)
	case wait == 0:
		return never
	default:
		return fmt.Sprintf("ok=false with wait %s (want wait 0 when ok is false)", timeline.Offset(wait))
	}
}

// delay wants Delay(now, n) to be (want, true).
func delay(n int, want time.Duration) timeline.Call[Bucket] {
	c := delayCall(n, timeline.Offset(want))
	return c
}

// delayNever wants Delay(now, n) to be (0, false).
func delayNever(n int) timeline.Call[Bucket] {
	c := delayCall(n, never)
	return c
}

func delayCall(n int, want string) timeline.Call[Bucket] {
	return timeline.Call[Bucket]{Method: "Delay", Args: []any{n}, Want: want,
		Do: func(b Bucket, now time.Time) any { return showDelay(b.Delay(now, n)) }}
}

// panicNaming checks that f panics with a message that contains value.
func panicNaming(value string, f func()) string {
	switch msg, panicked := timeline.PanicMessage(f); {
	case !panicked:
		return "no panic"
	case !strings.Contains(msg, value):
		return fmt.Sprintf("panic %q, which does not name %s", msg, value)
	}
	return "panic naming " + value
}

// allowNPanics and delayPanics want a panic whose message names n.
func allowNPanics(n int) timeline.Call[Bucket] {
	return timeline.Call[Bucket]{
		Method: "AllowN",
		Args:   []any{n},
		Do: func(b Bucket, now time.Time) any {
			return panicNaming(fmt.Sprint(n), func() { b.AllowN(now, n) })
		},
		Want: fmt.Sprintf("panic naming %d", n),
	}
}

func delayPanics(n int) timeline.Call[Bucket] {
	return timeline.Call[Bucket]{
		Method: "Delay",
		Args:   []any{n},
		Do: func(b Bucket, now time.Time) any {
			return panicNaming(fmt.Sprint(n), func() { b.Delay(now, n) })
		},
		Want: fmt.Sprintf("panic naming %d", n),
	}
}

// row is a case of the table before it is bound to a constructor; its
// Arg is what New takes: the capacity and the rate. A step is one of its
// calls, at an offset from the start: at(1500*ms, tokens(0.5)).
type (
	row  = timeline.Row[Bucket, shape]
	step = timeline.Step[Bucket]
)

var at = timeline.At[Bucket]

// table holds every case of level 3. Part 1 is the bucket itself, at the
// scale of an interview: its calls come a clear margin before or after the
// instant a token is complete, or where a float64 adds up exactly (whole
// and half seconds at a rate of 1), so that a float64 count passes. Parts
// 2 and 3 keep to that scale too: part 2 is a now that goes backwards,
// part 3 Delay. Part 4 is exactness at every scale: boundaries to the
// nanosecond, no drift, counts past an int64 and the whole range of
// UnixNano.
var table = []row{
	// Part 1: lazy refill and capped bursts.
	{
		// The README's first example, with the same numbers.
		Name: "a burst of three, then one token a second", Part: 1, Arg: shape{3, 1},
		Steps: []step{
			at(0, allow(true)),
			at(0, allow(true)),
			at(0, allow(true)),
			at(0, allow(false)),
			at(0, tokens(0)),
			at(1*sec, allow(true)),
			at(1500*ms, allow(false)),
			at(1500*ms, tokens(0.5)),
			at(2*sec, allow(true)), // the denial at 1.5s took nothing away
			at(10*sec, tokens(3)),  // 8 seconds idle, but the bucket holds 3
			at(10*sec, allowN(4, false)),
			at(10*sec, allowN(3, true)),
			at(10*sec, allow(false)),
		},
	},
	{
		Name: "the first call sees a full bucket whenever it comes", Part: 1, Arg: shape{5, 10},
		Steps: []step{
			at(90*day, tokens(5)),
			at(90*day, allow(true)),
			at(90*day, allow(true)),
			at(90*day, allow(true)),
			at(90*day, allow(true)),
			at(90*day, allow(true)),
			at(90*day, allow(false)),
			at(90*day+150*ms, allow(true)), // 1.5 tokens
			at(90*day+150*ms, allow(false)),
		},
	},
	{
		Name: "a full bucket at the epoch and before it", Part: 1, Arg: shape{2, 1},
		Steps: []step{
			at(-hour, tokens(2)),
			at(-hour, allowN(2, true)),
			at(-hour, allow(false)),
			at(-hour+sec, tokens(1)),
			at(0, tokens(2)),
			at(0, allowN(2, true)),
			at(0, allow(false)),
		},
	},
	{
		Name: "refill after a partial idle period", Part: 1, Arg: shape{4, 2},
		Steps: []step{
			at(0, allowN(4, true)),
			at(500*ms, tokens(1)),
			at(1250*ms, tokens(2.5)),
			at(1250*ms, allowN(3, false)),
			at(1250*ms, allowN(2, true)),
			at(1250*ms, tokens(0.5)),
			at(1600*ms, tokens(1.2)),
			at(1600*ms, allow(true)),
			at(1600*ms, allow(false)),
		},
	},
	{
		Name: "the cap: a long idle period refills a full bucket and no more", Part: 1, Arg: shape{4, 2},
		Steps: []step{
			at(0, allowN(4, true)),
			at(2*sec, tokens(4)), // exactly full
			at(hour, tokens(4)),
			at(hour, allowN(4, true)),
			at(hour, allow(false)),
			at(hour+250*ms, allow(false)), // half a token
			at(hour+600*ms, allow(true)),  // 1.2 tokens
			at(hour+600*ms, allow(false)),
		},
	},
	{
		Name: "the cap holds while the bucket is not spent", Part: 1, Arg: shape{3, 1},
		Steps: []step{
			at(0, allowN(2, true)),
			at(1*sec, tokens(2)),
			at(2*sec, tokens(3)),
			at(5*sec, tokens(3)),
			at(5*sec, allowN(3, true)),
			at(5*sec, allow(false)),
			at(6*sec, tokens(1)),
		},
	},
	{
		Name: "AllowN with n above, at and below the capacity, and n = 0", Part: 1, Arg: shape{3, 1},
		Steps: []step{
			at(0, allowN(4, false)), // never, even from a full bucket
			at(0, tokens(3)),
			at(0, allowN(3, true)),
			at(0, allowN(0, true)), // asks for nothing, so it always gets it
			at(0, tokens(0)),
			at(100*sec, allowN(4, false)),
			at(100*sec, allowN(3, true)),
			at(101*sec, allowN(0, true)),
			at(101*sec, allowN(2, false)),
			at(101*sec, allowN(1, true)),
		},
	},
	{
		Name: "a denied AllowN spends nothing", Part: 1, Arg: shape{5, 1},
		Steps: []step{
			at(0, allowN(3, true)),
			at(0, allowN(3, false)),
			at(0, tokens(2)),
			at(0, allowN(2, true)),
			at(0, allow(false)),
			at(1*sec, allowN(2, false)),
			at(1*sec, tokens(1)),
			at(1*sec, allow(true)),
		},
	},
	{
		// The same timeline as part 4's "a denied request does not delay
		// the next token", with the allowed requests 100ms after the
		// token is complete rather than on the instant.
		Name: "denied requests do not hold back the next token", Part: 1, Arg: shape{1, 1},
		Steps: []step{
			at(0, allow(true)),
			at(300*ms, allow(false)),
			at(600*ms, allow(false)),
			at(900*ms, allow(false)),
			at(1100*ms, allow(true)), // 1.1 tokens
			at(1700*ms, allow(false)),
			at(2200*ms, allow(true)),
		},
	},
	{
		Name: "a quarter of a token a second", Part: 1, Arg: shape{2, 0.25},
		Steps: []step{
			at(0, allowN(2, true)),
			at(1*sec, tokens(0.25)),
			at(3*sec, tokens(0.75)),
			at(3500*ms, allow(false)), // 0.875 tokens
			at(4500*ms, allow(true)),  // 1.125 tokens
			at(10*sec, tokens(1.5)),
			at(12*sec, tokens(2)),
		},
	},
	{
		Name: "rate 0: one burst, then nothing ever again", Part: 1, Arg: shape{2, 0},
		Steps: []step{
			at(5*sec, tokens(2)),
			at(5*sec, allowN(2, true)),
			at(5*sec, allow(false)),
			at(1000*day, tokens(0)),
			at(1000*day, allow(false)),
			at(1000*day, allowN(0, true)),
		},
	},
	{
		Name: "a million tokens a second", Part: 1, Arg: shape{10, 1e6},
		Steps: []step{
			at(0, allowN(10, true)),
			at(900*ns, allow(false)), // 0.9 tokens
			at(1500*ns, tokens(1.5)),
			at(1500*ns, allow(true)),
			at(1500*ns, allow(false)),
			at(6200*ns, allowN(5, true)), // 5.2 tokens
			at(6200*ns, tokens(0.2)),
			at(1*sec, tokens(10)),
		},
	},
	{
		Name: "bad values written in code panic, naming the value", Part: 1, Arg: shape{1, 1},
		Steps: []step{
			at(0, allowNPanics(-1)),
			at(0, tokens(1)),
			at(0, allow(true)),
		},
		Probe: badNewPanics,
	},

	// Part 2: time going backwards.
	{
		// The README's example for part 2.
		Name: "a successful call in the past spends but does not move time back", Part: 2, Arg: shape{2, 1},
		Steps: []step{
			at(0, allowN(2, true)),
			at(2*sec, allow(true)),
			at(1*sec, tokens(1)), // no refill between 2s and 1s
			at(1*sec, allow(true)),
			at(2*sec, tokens(0)), // x/time/rate would show 1 here
			at(2*sec, allow(false)),
			at(3*sec, tokens(1)),
		},
	},
	{
		Name: "a now in the past adds no tokens and takes none away", Part: 2, Arg: shape{2, 1},
		Steps: []step{
			at(10*sec, allowN(2, true)),
			at(5*sec, tokens(0)),
			at(5*sec, allow(false)),
			at(-hour, tokens(0)),
			at(10*sec, tokens(0)),
			at(10500*ms, tokens(0.5)),
			at(11*sec, allow(true)),
		},
	},
	{
		Name: "after going back, the refill runs on from the bucket's time", Part: 2, Arg: shape{3, 1},
		Steps: []step{
			at(10*sec, allowN(3, true)),
			at(4*sec, allow(false)),
			at(4*sec, allowN(0, true)),
			at(11*sec, tokens(1)),
			at(12*sec, tokens(2)),
			at(12*sec, allow(true)),
			at(12*sec, tokens(1)),
		},
	},
	{
		Name: "a denied call at a later time does not move the bucket's time", Part: 2, Arg: shape{3, 1},
		Steps: []step{
			at(0, allowN(3, true)),
			at(2*sec, allowN(3, false)), // 2 tokens at 2s
			at(1*sec, tokens(1)),
			at(1*sec, allow(true)), // 1s is after the bucket's time, 0s
			at(1*sec, allow(false)),
		},
	},
	{
		Name: "Tokens at a later time does not move the bucket's time", Part: 2, Arg: shape{3, 1},
		Steps: []step{
			at(0, allowN(3, true)),
			at(2*sec, tokens(2)),
			at(1*sec, allow(true)), // 1s is after the bucket's time, 0s
			at(1*sec, allow(false)),
			at(2*sec, tokens(1)),
		},
	},
	{
		Name: "a bucket filled to the cap stays full when time goes back", Part: 2, Arg: shape{2, 1},
		Steps: []step{
			at(0, allowN(2, true)),
			at(5*sec, allow(true)), // full at 2s, so one left at 5s
			at(3*sec, allow(true)),
			at(3*sec, allow(false)),
			at(5*sec, allow(false)),
			at(6*sec, allow(true)),
		},
	},

	// Part 3: when to retry.
	{
		// The README's example for part 3.
		Name: "Delay rounds up to the next nanosecond", Part: 3, Arg: shape{1, 3},
		Steps: []step{
			at(0, delay(1, 0)),
			at(0, allow(true)),
			at(0, delay(1, 333333334*ns)), // a third of a second is 333,333,333.3ns
			at(333333333*ns, allow(false)),
			at(333333334*ns, allow(true)),
			at(333333334*ns, delay(0, 0)),
			at(333333334*ns, delayNever(2)),
		},
	},
	{
		Name: "Delay is 0 when the request would succeed now", Part: 3, Arg: shape{3, 1},
		Steps: []step{
			at(0, delay(3, 0)),
			at(0, delay(0, 0)),
			at(0, allowN(2, true)),
			at(0, delay(1, 0)),
			at(0, delay(2, 1*sec)),
			at(0, delay(3, 2*sec)),
			at(1*sec-ns, allowN(2, false)),
			at(1*sec, allowN(2, true)),
			at(1*sec, delay(0, 0)),
		},
	},
	{
		Name: "Delay after a partial refill", Part: 3, Arg: shape{4, 3},
		Steps: []step{
			at(0, allowN(4, true)),
			at(100*ms, tokens(0.3)),
			at(100*ms, delay(1, 233333334*ns)), // 0.7 tokens take 233,333,333.3ns
			at(333333333*ns, allow(false)),
			at(333333334*ns, allow(true)),
			at(333333334*ns, delay(3, sec)),
			at(1333333333*ns, allowN(3, false)),
			at(1333333334*ns, allowN(3, true)),
		},
	},
	{
		Name: "Delay never: more than the capacity", Part: 3, Arg: shape{3, 10},
		Steps: []step{
			at(0, delayNever(4)),
			at(0, delay(3, 0)),
			at(hour, delayNever(4)),
			at(hour, allowN(3, true)),
			at(hour, delayNever(100)),
			at(hour, delay(3, 300*ms)),
		},
	},
	{
		Name: "Delay with rate 0", Part: 3, Arg: shape{2, 0},
		Steps: []step{
			at(0, delay(2, 0)),
			at(0, allow(true)),
			at(0, delay(1, 0)), // one token is still there
			at(0, delayNever(2)),
			at(0, allow(true)),
			at(0, delayNever(1)),
			at(0, delay(0, 0)),
			at(day, delayNever(1)),
		},
	},
	{
		Name: "Delay when now is before the bucket's time", Part: 3, Arg: shape{1, 1},
		Steps: []step{
			at(10*sec, allow(true)),
			at(5*sec, delay(1, 6*sec)), // refilling starts at 10s, not at 5s
			at(10*sec, delay(1, 1*sec)),
			at(11*sec-ns, allow(false)),
			at(11*sec, allow(true)),
		},
	},
	{
		Name: "Delay for a fraction of a token a second", Part: 3, Arg: shape{4, 0.25},
		Steps: []step{
			at(0, allowN(4, true)),
			at(1*sec, delay(1, 3*sec)),
			at(1*sec, delay(4, 15*sec)),
			at(16*sec-ns, allowN(4, false)),
			at(16*sec, allowN(4, true)),
		},
	},
	{
		Name: "Delay in a fast bucket", Part: 3, Arg: shape{10, 7e6},
		Steps: []step{
			at(0, allowN(10, true)),
			at(0, delay(1, 143*ns)), // 1/7 of a microsecond is 142.857ns
			at(0, delay(3, 429*ns)),
			at(0, delay(10, 1429*ns)),
			at(142*ns, allow(false)),
			at(143*ns, allow(true)),
		},
	},
	{
		// The README's example for the longest wait: a token every 2^30
		// seconds, about 34 years. 8 tokens take 8589934592s, about 272
		// years, under the longest Duration; 9 take about 306 years.
		Name: "Delay says never when the wait is over 292 years", Part: 3, Arg: shape{10, 0x1p-30},
		Steps: []step{
			at(0, allowN(10, true)),
			at(0, delay(1, 1073741824*sec)),
			at(0, delay(8, 8589934592*sec)),
			at(0, delayNever(9)),
			at(0, delayNever(10)),
		},
	},
	{
		Name: "Delay panics for a negative n, naming it", Part: 3, Arg: shape{1, 1},
		Steps: []step{
			at(0, delayPanics(-2)),
			at(0, delay(1, 0)),
		},
	},

	// Part 4: make it exact.
	{
		// The README's boundary example: half a token a second.
		Name: "half a token a second: the token is back exactly two seconds later", Part: 4, Arg: shape{1, 0.5},
		Steps: []step{
			at(0, allow(true)),
			at(1*sec, tokens(0.5)),
			at(2*sec-ns, allow(false)),
			at(2*sec-ns, tokens(0.9999999995)),
			at(2*sec, allow(true)),
			at(2*sec, tokens(0)),
		},
	},
	{
		// A bucket that stores its refill on every call adds 0.3 + 0.3 +
		// 0.3 + 0.1 tokens by 1s, which in a float64 is
		// 0.9999999999999999, not 1.
		Name: "a denied request does not delay the next token", Part: 4, Arg: shape{1, 1},
		Steps: []step{
			at(0, allow(true)),
			at(300*ms, allow(false)),
			at(600*ms, allow(false)),
			at(900*ms, allow(false)),
			at(1*sec, allow(true)),
			at(1700*ms, allow(false)),
			at(2*sec, allow(true)),
		},
	},
	{
		// The README's example for a fraction left over. In a float64,
		// 2 + 0.4 is 2.4, 2.4 - 2 is 0.3999999999999999, and adding the
		// 0.6 tokens of the next 6ms gives 0.9999999999999999, not 1.
		Name: "a fraction of a token left over adds up to a whole one exactly", Part: 4, Arg: shape{3, 100},
		Steps: []step{
			at(0, allow(true)),        // 3 → 2
			at(4*ms, allowN(2, true)), // 2.4 → 0.4
			at(4*ms, tokens(0.4)),
			at(10*ms-ns, allow(false)),
			at(10*ms, allow(true)), // 0.4 + 0.6 is exactly 1
			at(10*ms, tokens(0)),
		},
	},
	{
		Name: "three tokens a second: tokens come every third of a second", Part: 4, Arg: shape{3, 3},
		Steps: []step{
			at(0, allowN(3, true)),
			at(333333333*ns, allow(false)), // 0.999999999 tokens
			at(333333334*ns, allow(true)),
			at(666666666*ns, allow(false)),
			at(666666667*ns, allow(true)),
			at(1*sec, allow(true)),
			at(1*sec, allow(false)),
		},
	},
	{
		// The precision requirement: the probe runs the million
		// requests on from where these steps leave the bucket. Offset 0 is
		// in 2025, where a float64 of seconds since 1970 is too coarse.
		Name: "a million requests exactly one interval apart, without drift", Part: 4, Arg: shape{10, 1000},
		Start: precisionStart,
		Steps: []step{
			at(0, allowN(10, true)),
			at(0, allow(false)),
			at(1*ms-ns, allow(false)),
			at(1*ms, allow(true)),
		},
		// A million calls take seconds across processes: the class
		// report's checker plays the steps, the student's binary the probe.
		Probe: noDrift, InProcess: "a million calls",
	},
	{
		// A token is a ten-billionth of this bucket, and a nanosecond
		// adds a billionth of a token: a count in an int64 of units that
		// small overflows, and a bucket that rounds its rate to make room
		// may round it to nothing.
		Name: "a bucket of ten billion tokens still gains one a second", Part: 4, Arg: shape{10_000_000_000, 1},
		Steps: []step{
			at(0, allowN(1000, true)),
			at(0, tokens(9_999_999_000)),
			at(250*ms, tokens(9_999_999_000.25)),
			at(1000*sec-ns, allowN(10_000_000_000, false)),
			at(1000*sec, tokens(10_000_000_000)), // the 1000 tokens are back
			at(hour, tokens(10_000_000_000)),
			at(hour, allowN(10_000_000_000, true)),
			at(hour, allow(false)),
			at(hour+sec, tokens(1)),
		},
	},
	{
		// The largest bucket at a quarter of a token a second, emptied in
		// 1677 and looked at in 1970 and 2262: the last span is twice the
		// longest time.Duration, longer than Time.Sub can measure.
		// 2^64 - 2 nanoseconds less the 4s of the first token give
		// 4611686017.4273879035 tokens.
		Name: "the largest bucket refills across the whole range of UnixNano", Part: 4, Arg: shape{maxCapacity, 0.25},
		Steps: []step{
			at(-maxWait, allowN(maxCapacity, true)),
			at(-maxWait, allow(false)),
			at(-maxWait+4*sec-ns, allow(false)),
			at(-maxWait+4*sec, allow(true)),
			at(0, tokens(2305843008.21369395175)), // 2^63 - 1 - 4e9 nanoseconds
			at(maxWait, tokens(4611686017.4273879035)),
			at(maxWait, allowN(4611686018, false)),
			at(maxWait, allowN(4611686017, true)),
			at(maxWait, tokens(0.4273879035)),
		},
	},
	{
		// The slowest rate the spec uses: a token every 2^33 seconds,
		// about 272 years.
		Name: "a token every 272 years comes exactly on time", Part: 4, Arg: shape{1, 0x1p-33},
		Steps: []step{
			at(-maxWait, allow(true)),
			at(-maxWait+8589934592*sec-ns, allow(false)),
			at(-maxWait+8589934592*sec, tokens(1)),
			at(-maxWait+8589934592*sec, allow(true)),
		},
	},
	{
		Name: "a capacity above 2^53 or a rate below a token per 2^63ns panics, naming the bound", Part: 4, Arg: shape{maxCapacity, 0x1p-33},
		Steps: []step{
			at(0, tokens(maxCapacity)),
			at(0, allowN(maxCapacity, true)),
			at(0, allow(false)),
		},
		Probe: boundsPanic,
	},
	{
		Name: "Delay on the boundary and one nanosecond before it", Part: 4, Arg: shape{2, 0.5},
		Steps: []step{
			at(0, allowN(2, true)),
			at(0, delay(1, 2*sec)),
			at(0, delay(2, 4*sec)),
			at(1*sec, delay(1, 1*sec)),
			at(2*sec-ns, delay(1, ns)),
			at(2*sec-ns, allow(false)),
			at(2*sec, delay(1, 0)),
			at(2*sec, delay(2, 2*sec)),
			at(2*sec, allow(true)),
			at(2*sec, delay(1, 2*sec)),
		},
	},
	{
		// The README's example for the longest wait.
		Name: "Delay says never only for a wait longer than the longest Duration", Part: 4, Arg: shape{10_000_000_000, 1},
		Steps: []step{
			at(0, allowN(1000, true)),
			at(0, delay(10_000_000_000, 1000*sec)), // the bucket is full again in 1000s
			at(0, delay(9_999_999_001, sec)),
			at(hour, allowN(10_000_000_000, true)),
			at(hour, delay(9_223_372_036, 9_223_372_036*sec)), // just under 2^63 - 1 nanoseconds
			at(hour, delayNever(9_223_372_037)),               // just over
			at(hour, delayNever(10_000_000_000)),              // 317 years
		},
	},
	{
		Name: "Delay at one token every 272 years", Part: 4, Arg: shape{1, 0x1p-33},
		Steps: []step{
			at(-maxWait, delay(1, 0)),
			at(-maxWait, allow(true)),
			at(-maxWait, delay(1, 8589934592*sec)),
			at(-maxWait+sec, delay(1, 8589934591*sec)),
			at(-maxWait+8589934592*sec, delay(1, 0)),
		},
	},
	{
		// A now up to 584 years before the bucket's time: the gap alone
		// can be longer than the longest Duration.
		Name: "Delay adds a gap before the bucket's time of any length", Part: 4, Arg: shape{1, 1},
		Steps: []step{
			at(maxWait, allow(true)), // the bucket's time is in 2262
			at(maxWait-10*sec, delay(1, 11*sec)),
			at(sec, delay(1, maxWait)), // the gap is 1s short of the longest Duration
			at(sec-ns, delayNever(1)),
			at(0, delayNever(1)),
			at(-maxWait, delayNever(1)),
		},
	},
}
