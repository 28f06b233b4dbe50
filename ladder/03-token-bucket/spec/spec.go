// Package spec is level 3's conformance suite: every case of the token
// bucket is written here once, and run against both the learner's stub in
// ladder/03-token-bucket and the reference in solutions/03-token-bucket.
package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
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
	timeline.Run(t, cases(erase(newBucket)))
}

// erase turns a constructor of a concrete type into one of the interface,
// so that Test type-checks with tokenbucket.New as it is.
func erase[B Bucket](newBucket func(int, float64) B) func(int, float64) Bucket {
	return func(capacity int, rate float64) Bucket { return newBucket(capacity, rate) }
}

// Offsets in the tables are written with these.
const (
	ns     = time.Nanosecond
	us     = time.Microsecond
	ms     = time.Millisecond
	sec    = time.Second
	minute = time.Minute
	hour   = time.Hour
	day    = 24 * hour
)

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

type step = timeline.Step[Bucket]

var at = timeline.At[Bucket]

func allow(want bool) timeline.Call[Bucket] {
	return timeline.Call[Bucket]{
		Method: "Allow",
		Do:     func(b Bucket, now time.Time) any { return b.Allow(now) },
		Want:   want,
	}
}

func allowN(n int, want bool) timeline.Call[Bucket] {
	return timeline.Call[Bucket]{
		Method: "AllowN",
		Args:   []any{n},
		Do:     func(b Bucket, now time.Time) any { return b.AllowN(now, n) },
		Want:   want,
	}
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
	return timeline.Call[Bucket]{
		Method: "Delay",
		Args:   []any{n},
		Do:     func(b Bucket, now time.Time) any { return showDelay(b.Delay(now, n)) },
		Want:   want,
	}
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

// A timeline case before it is bound to a constructor.
type bucketCase struct {
	name     string
	part     int
	capacity int
	rate     float64
	start    time.Time // offset 0; the zero Time means clock.Epoch
	steps    []step
	probe    func(b Bucket, newBucket func(int, float64) Bucket) error
}

func cases(newBucket func(int, float64) Bucket) []timeline.Case[Bucket] {
	out := make([]timeline.Case[Bucket], len(table))
	for i, tc := range table {
		out[i] = timeline.Case[Bucket]{
			Name:  tc.name,
			Part:  tc.part,
			Setup: fmt.Sprintf("New(%d, %v)", tc.capacity, tc.rate),
			New:   func(clock.Clock) Bucket { return newBucket(tc.capacity, tc.rate) },
			Start: tc.start,
			Steps: tc.steps,
		}
		if tc.probe != nil {
			out[i].Probe = func(b Bucket, _ *clock.Fake) error { return tc.probe(b, newBucket) }
		}
	}
	return out
}

// table holds every case of level 3. Part 1 is the bucket itself, part 2
// a now that goes backwards, part 3 Delay.
var table = []bucketCase{
	// Part 1: lazy refill and capped bursts.
	{
		// The README's first example, with the same numbers.
		name: "a burst of three, then one token a second", part: 1, capacity: 3, rate: 1,
		steps: []step{
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
		// The README's boundary example: half a token a second.
		name: "half a token a second: the token is back exactly two seconds later", part: 1, capacity: 1, rate: 0.5,
		steps: []step{
			at(0, allow(true)),
			at(1*sec, tokens(0.5)),
			at(2*sec-ns, allow(false)),
			at(2*sec-ns, tokens(0.9999999995)),
			at(2*sec, allow(true)),
			at(2*sec, tokens(0)),
		},
	},
	{
		name: "the first call sees a full bucket whenever it comes", part: 1, capacity: 5, rate: 10,
		steps: []step{
			at(90*day, tokens(5)),
			at(90*day, allow(true)),
			at(90*day, allow(true)),
			at(90*day, allow(true)),
			at(90*day, allow(true)),
			at(90*day, allow(true)),
			at(90*day, allow(false)),
			at(90*day+100*ms, allow(true)),
			at(90*day+100*ms, allow(false)),
		},
	},
	{
		name: "a full bucket at the epoch and before it", part: 1, capacity: 2, rate: 1,
		steps: []step{
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
		name: "refill after a partial idle period", part: 1, capacity: 4, rate: 2,
		steps: []step{
			at(0, allowN(4, true)),
			at(500*ms, tokens(1)),
			at(1250*ms, tokens(2.5)),
			at(1250*ms, allowN(3, false)),
			at(1250*ms, allowN(2, true)),
			at(1250*ms, tokens(0.5)),
			at(1500*ms, tokens(1)),
			at(1500*ms, allow(true)),
			at(1500*ms, allow(false)),
		},
	},
	{
		name: "the cap: a long idle period refills a full bucket and no more", part: 1, capacity: 4, rate: 2,
		steps: []step{
			at(0, allowN(4, true)),
			at(2*sec, tokens(4)), // exactly full
			at(hour, tokens(4)),
			at(hour, allowN(4, true)),
			at(hour, allow(false)),
			at(hour+250*ms, allow(false)),
			at(hour+500*ms, allow(true)),
			at(hour+500*ms, allow(false)),
		},
	},
	{
		name: "the cap holds while the bucket is not spent", part: 1, capacity: 3, rate: 1,
		steps: []step{
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
		name: "AllowN with n above, at and below the capacity, and n = 0", part: 1, capacity: 3, rate: 1,
		steps: []step{
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
		name: "a denied AllowN spends nothing", part: 1, capacity: 5, rate: 1,
		steps: []step{
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
		name: "a denied request does not delay the next token", part: 1, capacity: 1, rate: 1,
		steps: []step{
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
		name: "a quarter of a token a second", part: 1, capacity: 2, rate: 0.25,
		steps: []step{
			at(0, allowN(2, true)),
			at(1*sec, tokens(0.25)),
			at(3*sec, tokens(0.75)),
			at(4*sec-ns, allow(false)),
			at(4*sec, allow(true)),
			at(10*sec, tokens(1.5)),
			at(12*sec, tokens(2)),
		},
	},
	{
		name: "three tokens a second: tokens come every third of a second", part: 1, capacity: 3, rate: 3,
		steps: []step{
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
		name: "rate 0: one burst, then nothing ever again", part: 1, capacity: 2, rate: 0,
		steps: []step{
			at(5*sec, tokens(2)),
			at(5*sec, allowN(2, true)),
			at(5*sec, allow(false)),
			at(1000*day, tokens(0)),
			at(1000*day, allow(false)),
			at(1000*day, allowN(0, true)),
		},
	},
	{
		name: "a million tokens a second", part: 1, capacity: 10, rate: 1e6,
		steps: []step{
			at(0, allowN(10, true)),
			at(1*us-ns, allow(false)),
			at(1*us, allow(true)),
			at(1*us, allow(false)),
			at(1500*ns, tokens(0.5)),
			at(6*us, allowN(5, true)),
			at(1*sec, tokens(10)),
		},
	},
	{
		// The README's example for a fraction left over. In a float64,
		// 2 + 0.4 is 2.4, 2.4 - 2 is 0.3999999999999999, and adding the
		// 0.6 tokens of the next 6ms gives 0.9999999999999999, not 1.
		name: "a fraction of a token left over adds up to a whole one exactly", part: 1, capacity: 3, rate: 100,
		steps: []step{
			at(0, allow(true)),        // 3 → 2
			at(4*ms, allowN(2, true)), // 2.4 → 0.4
			at(4*ms, tokens(0.4)),
			at(10*ms-ns, allow(false)),
			at(10*ms, allow(true)), // 0.4 + 0.6 is exactly 1
			at(10*ms, tokens(0)),
		},
	},
	{
		// A token is a ten-billionth of this bucket, and a nanosecond
		// adds a billionth of a token: a count in an int64 of units that
		// small overflows, and a bucket that rounds its rate to make room
		// may round it to nothing.
		name: "a bucket of ten billion tokens still gains one a second", part: 1, capacity: 10_000_000_000, rate: 1,
		steps: []step{
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
		name: "the largest bucket refills across the whole range of UnixNano", part: 1, capacity: maxCapacity, rate: 0.25,
		steps: []step{
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
		name: "a token every 272 years comes exactly on time", part: 1, capacity: 1, rate: 0x1p-33,
		steps: []step{
			at(-maxWait, allow(true)),
			at(-maxWait+8589934592*sec-ns, allow(false)),
			at(-maxWait+8589934592*sec, tokens(1)),
			at(-maxWait+8589934592*sec, allow(true)),
		},
	},
	{
		// The precision requirement: the probe runs the million
		// requests on from where these steps leave the bucket. Offset 0 is
		// in 2025, where a float64 of seconds since 1970 is too coarse.
		name: "a million requests exactly one interval apart, without drift", part: 1, capacity: 10, rate: 1000,
		start: precisionStart,
		steps: []step{
			at(0, allowN(10, true)),
			at(0, allow(false)),
			at(1*ms-ns, allow(false)),
			at(1*ms, allow(true)),
		},
		probe: noDrift,
	},
	{
		name: "bad values written in code panic, naming the value", part: 1, capacity: 1, rate: 1,
		steps: []step{
			at(0, allowNPanics(-1)),
			at(0, tokens(1)),
			at(0, allow(true)),
		},
		probe: badNewPanics,
	},

	// Part 2: time going backwards.
	{
		// The README's example for part 2.
		name: "a successful call in the past spends but does not move time back", part: 2, capacity: 2, rate: 1,
		steps: []step{
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
		name: "a now in the past adds no tokens and takes none away", part: 2, capacity: 2, rate: 1,
		steps: []step{
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
		name: "after going back, the refill runs on from the bucket's time", part: 2, capacity: 3, rate: 1,
		steps: []step{
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
		name: "a denied call at a later time does not move the bucket's time", part: 2, capacity: 3, rate: 1,
		steps: []step{
			at(0, allowN(3, true)),
			at(2*sec, allowN(3, false)), // 2 tokens at 2s
			at(1*sec, tokens(1)),
			at(1*sec, allow(true)), // 1s is after the bucket's time, 0s
			at(1*sec, allow(false)),
		},
	},
	{
		name: "Tokens at a later time does not move the bucket's time", part: 2, capacity: 3, rate: 1,
		steps: []step{
			at(0, allowN(3, true)),
			at(2*sec, tokens(2)),
			at(1*sec, allow(true)), // 1s is after the bucket's time, 0s
			at(1*sec, allow(false)),
			at(2*sec, tokens(1)),
		},
	},
	{
		name: "a bucket filled to the cap stays full when time goes back", part: 2, capacity: 2, rate: 1,
		steps: []step{
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
		name: "Delay rounds up to the next nanosecond", part: 3, capacity: 1, rate: 3,
		steps: []step{
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
		name: "Delay on the boundary and one nanosecond before it", part: 3, capacity: 2, rate: 0.5,
		steps: []step{
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
		name: "Delay is 0 when the request would succeed now", part: 3, capacity: 3, rate: 1,
		steps: []step{
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
		name: "Delay after a partial refill", part: 3, capacity: 4, rate: 3,
		steps: []step{
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
		name: "Delay never: more than the capacity", part: 3, capacity: 3, rate: 10,
		steps: []step{
			at(0, delayNever(4)),
			at(0, delay(3, 0)),
			at(hour, delayNever(4)),
			at(hour, allowN(3, true)),
			at(hour, delayNever(100)),
			at(hour, delay(3, 300*ms)),
		},
	},
	{
		name: "Delay with rate 0", part: 3, capacity: 2, rate: 0,
		steps: []step{
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
		name: "Delay when now is before the bucket's time", part: 3, capacity: 1, rate: 1,
		steps: []step{
			at(10*sec, allow(true)),
			at(5*sec, delay(1, 6*sec)), // refilling starts at 10s, not at 5s
			at(10*sec, delay(1, 1*sec)),
			at(11*sec-ns, allow(false)),
			at(11*sec, allow(true)),
		},
	},
	{
		name: "Delay for a fraction of a token a second", part: 3, capacity: 4, rate: 0.25,
		steps: []step{
			at(0, allowN(4, true)),
			at(1*sec, delay(1, 3*sec)),
			at(1*sec, delay(4, 15*sec)),
			at(16*sec-ns, allowN(4, false)),
			at(16*sec, allowN(4, true)),
		},
	},
	{
		name: "Delay in a fast bucket", part: 3, capacity: 10, rate: 7e6,
		steps: []step{
			at(0, allowN(10, true)),
			at(0, delay(1, 143*ns)), // 1/7 of a microsecond is 142.857ns
			at(0, delay(3, 429*ns)),
			at(0, delay(10, 1429*ns)),
			at(142*ns, allow(false)),
			at(143*ns, allow(true)),
		},
	},
	{
		// The README's example for the longest wait.
		name: "Delay says never only for a wait longer than the longest Duration", part: 3, capacity: 10_000_000_000, rate: 1,
		steps: []step{
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
		name: "Delay at one token every 272 years", part: 3, capacity: 1, rate: 0x1p-33,
		steps: []step{
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
		name: "Delay adds a gap before the bucket's time of any length", part: 3, capacity: 1, rate: 1,
		steps: []step{
			at(maxWait, allow(true)), // the bucket's time is in 2262
			at(maxWait-10*sec, delay(1, 11*sec)),
			at(sec, delay(1, maxWait)), // the gap is 1s short of the longest Duration
			at(sec-ns, delayNever(1)),
			at(0, delayNever(1)),
			at(-maxWait, delayNever(1)),
		},
	},
	{
		name: "Delay panics for a negative n, naming it", part: 3, capacity: 1, rate: 1,
		steps: []step{
			at(0, delayPanics(-2)),
			at(0, delay(1, 0)),
		},
	},
}
