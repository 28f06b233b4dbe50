package spec

import (
	"fmt"
	"math"
	"math/bits"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
)

// Wrong implementations that the spec must catch. Each is a complete
// bucket with one mistake a learner makes; if an edit to the spec lets one
// of them pass, this test fails.

// unit is how many units make a token in the mutants, 10^9 * 2^34: every
// rate in the spec's cases, from 2^-33 to 7e6 tokens a second, is then a
// whole number of units a nanosecond, so their arithmetic is exact and each
// mutant has only its own mistake. A full bucket of 2^53 tokens holds
// about 2^117 units, so the count takes two words (wide).
const unit = 1_000_000_000 << 34

// mistakes switches on one wrong rule in a mutant.
type mistakes struct {
	startEmpty      bool // the first call sees no tokens
	noCap           bool // the refill goes past the capacity
	spendOnDenial   bool // a denied AllowN still takes its tokens, down to none
	strictlyMore    bool // allows only with more than n tokens, not n
	eagerWhole      bool // every AllowN keeps whole tokens and moves the time to now, allowed or denied
	subSpan         bool // measures the span with Time.Sub, which stops at about 292 years
	roundRate       bool // a bucket that takes longer than 2^63ns to fill from empty never refills, as if its rate rounded to 0
	noCapacityBound bool // New takes a capacity above 2^53
	noRateBound     bool // New takes a positive rate below a token per 2^63ns
	commitOnDenial  bool // a denied AllowN stores its refill and its now
	commitOnTokens  bool // Tokens stores its refill and its now
	timeBack        bool // a call in the past moves the time back to it, as x/time/rate does
	negativeRefill  bool // a call in the past takes rate*elapsed away, down to none
	delayDown       bool // Delay rounds the wait down
	delayPlusOne    bool // Delay rounds up by adding 1ns to the rounded-down wait
	delayOverCap    bool // Delay gives a wait for n > capacity
	delayFromNow    bool // Delay counts the refill from now even when now is before the bucket's time
	delayRateZero   bool // Delay says never whenever the rate is 0
	neverAsMax      bool // Delay's never is (MaxInt64, false)
	delayWraps      bool // Delay adds the gap before the bucket's time as a Duration from Time.Sub, which can overflow
}

type mutant struct {
	mistakes
	capacity, perNs uint64
	units           wide
	last            time.Time
	started         bool
}

// checkNew panics for the values New must refuse, as every mutant's New
// does, unless the mutant's mistake is to take them.
func checkNew(capacity int, rate float64, m mistakes) {
	if capacity < 1 || rate < 0 || math.IsNaN(rate) || math.IsInf(rate, 0) {
		panic(fmt.Sprintf("New(%d, %v)", capacity, rate))
	}
	if capacity > maxCapacity && !m.noCapacityBound {
		panic(fmt.Sprintf("New(%d, %v): capacity above %d", capacity, rate, maxCapacity))
	}
	if rate > 0 && rate < minRate && !m.noRateBound {
		panic(fmt.Sprintf("New(%d, %v): rate below %v", capacity, rate, minRate))
	}
}

func newMutant(m mistakes) func(int, float64) Bucket {
	return func(capacity int, rate float64) Bucket {
		checkNew(capacity, rate, m)
		perNs := rate * unit / 1e9
		if perNs != math.Trunc(perNs) && !m.noRateBound {
			panic(fmt.Sprintf("mutant: rate %v is not a whole number of units a nanosecond", rate))
		}
		if m.roundRate && rate > 0 && float64(capacity)*1e9/rate > math.MaxInt64 {
			perNs = 0
		}
		b := &mutant{mistakes: m, capacity: uint64(capacity), perNs: uint64(perNs), units: times(uint64(capacity), unit)}
		if m.startEmpty {
			b.units = wide{}
		}
		return b
	}
}

// refill returns the units at now and the time they count from.
func (b *mutant) refill(now time.Time) (wide, time.Time) {
	if !b.started {
		return b.units, now
	}
	if now.Before(b.last) {
		switch {
		case b.negativeRefill:
			return b.units.minus(spanOf(now, b.last).times(b.perNs)), now
		case b.timeBack:
			return b.units, now
		}
		return b.units, b.last
	}
	span := spanOf(b.last, now)
	if b.subSpan {
		span = wide{lo: uint64(now.Sub(b.last))}
	}
	u := b.units.plus(span.times(b.perNs))
	if full := times(b.capacity, unit); !b.noCap && full.less(u) {
		u = full
	}
	return u, now
}

func (b *mutant) store(u wide, t time.Time) { b.units, b.last, b.started = u, t, true }

func (b *mutant) Allow(now time.Time) bool { return b.AllowN(now, 1) }

func (b *mutant) AllowN(now time.Time, n int) bool {
	if n < 0 {
		panic(fmt.Sprintf("AllowN(%d)", n))
	}
	if n == 0 {
		return true
	}
	u, t := b.refill(now)
	if b.eagerWhole {
		whole, _ := u.divide(unit)
		u = times(whole, unit)
		b.store(u, t)
	}
	cost := times(uint64(n), unit)
	ok := !u.less(cost)
	if b.strictlyMore {
		ok = cost.less(u)
	}
	if !ok && b.spendOnDenial {
		b.store(u.minus(cost), t)
	}
	if !ok && b.commitOnDenial {
		b.store(u, t)
	}
	if ok {
		b.store(u.minus(cost), t)
	}
	return ok
}

func (b *mutant) Tokens(now time.Time) float64 {
	u, t := b.refill(now)
	if b.commitOnTokens {
		b.store(u, t)
	}
	whole, frac := u.divide(unit)
	return float64(whole) + float64(frac)/unit
}

func (b *mutant) Delay(now time.Time, n int) (time.Duration, bool) {
	if n < 0 {
		panic(fmt.Sprintf("Delay(%d)", n))
	}
	neverWait := time.Duration(0)
	if b.neverAsMax {
		neverWait = math.MaxInt64
	}
	if uint64(n) > b.capacity && !b.delayOverCap {
		return neverWait, false
	}
	if b.perNs == 0 && b.delayRateZero {
		return neverWait, false
	}
	u, t := b.refill(now)
	cost := times(uint64(n), unit)
	if !u.less(cost) {
		return 0, true
	}
	if b.perNs == 0 {
		return neverWait, false
	}
	wait, rem := cost.minus(u).divide(b.perNs)
	switch {
	case b.delayDown:
	case b.delayPlusOne:
		wait++
	case rem != 0:
		wait++
	}
	total := wide{lo: wait}
	if b.delayWraps && t.After(now) {
		return t.Sub(now) + time.Duration(wait), true
	}
	if !b.delayFromNow && t.After(now) {
		total = total.plus(spanOf(now, t))
	}
	if total.hi != 0 || total.lo > math.MaxInt64 {
		return neverWait, false
	}
	return time.Duration(total.lo), true
}

// wide is an unsigned 128-bit number, hi*2^64 + lo, for the mutants'
// counts. Its arithmetic saturates rather than wraps: at 0 going down, and
// at 2^128-1 going up, far above any full bucket.
type wide struct{ hi, lo uint64 }

func times(x, y uint64) wide {
	hi, lo := bits.Mul64(x, y)
	return wide{hi, lo}
}

func (x wide) less(y wide) bool { return x.hi < y.hi || x.hi == y.hi && x.lo < y.lo }

func (x wide) plus(y wide) wide {
	lo, c := bits.Add64(x.lo, y.lo, 0)
	hi, c := bits.Add64(x.hi, y.hi, c)
	if c != 0 {
		return wide{math.MaxUint64, math.MaxUint64}
	}
	return wide{hi, lo}
}

func (x wide) minus(y wide) wide {
	if x.less(y) {
		return wide{}
	}
	lo, b := bits.Sub64(x.lo, y.lo, 0)
	hi, _ := bits.Sub64(x.hi, y.hi, b)
	return wide{hi, lo}
}

func (x wide) times(y uint64) wide {
	hh, hl := bits.Mul64(x.hi, y)
	lh, ll := bits.Mul64(x.lo, y)
	hi, c := bits.Add64(hl, lh, 0)
	if hh != 0 || c != 0 {
		return wide{math.MaxUint64, math.MaxUint64}
	}
	return wide{hi, ll}
}

// divide returns x/y and x%y, with the quotient at most 2^64-1.
func (x wide) divide(y uint64) (quo, rem uint64) {
	if x.hi >= y {
		return math.MaxUint64, 0
	}
	return bits.Div64(x.hi, x.lo, y)
}

// spanOf returns the nanoseconds from one instant to a later one, exactly,
// even when they are more than 292 years apart.
func spanOf(from, to time.Time) wide {
	ns := times(uint64(to.Unix())-uint64(from.Unix()), 1e9)
	return ns.plus(wide{lo: uint64(to.Nanosecond())}).minus(wide{lo: uint64(from.Nanosecond())})
}

// floatBucket keeps its count in float64 tokens. Every rule is right, but
// the arithmetic rounds: span gives the seconds between two instants.
type floatBucket struct {
	capacity, rate, tokens float64
	last                   time.Time
	started                bool
	span                   func(from, to time.Time) float64
}

// newFloatCount reads the time exactly, as a time.Duration, but adds
// fractions of a token in a float64.
func newFloatCount(capacity int, rate float64) Bucket {
	checkNew(capacity, rate, mistakes{})
	return &floatBucket{capacity: float64(capacity), rate: rate, tokens: float64(capacity),
		span: func(from, to time.Time) float64 { return to.Sub(from).Seconds() }}
}

// newFloatSeconds also reads the time as a float64 of seconds since 1970,
// the way time.time() reads it in Python; in 2025 such a float is only
// good to about 240ns.
func newFloatSeconds(capacity int, rate float64) Bucket {
	checkNew(capacity, rate, mistakes{})
	return &floatBucket{capacity: float64(capacity), rate: rate, tokens: float64(capacity),
		span: func(from, to time.Time) float64 { return seconds(to) - seconds(from) }}
}

func seconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

func (b *floatBucket) at(now time.Time) float64 {
	if !b.started || b.span(b.last, now) <= 0 {
		return b.tokens
	}
	return math.Min(b.capacity, b.tokens+b.span(b.last, now)*b.rate)
}

func (b *floatBucket) Allow(now time.Time) bool { return b.AllowN(now, 1) }

func (b *floatBucket) AllowN(now time.Time, n int) bool {
	if n < 0 {
		panic(fmt.Sprintf("AllowN(%d)", n))
	}
	have := b.at(now)
	if n == 0 || have < float64(n) {
		return n == 0
	}
	b.tokens = have - float64(n)
	if !b.started || b.span(b.last, now) > 0 {
		b.last = now
	}
	b.started = true
	return true
}

func (b *floatBucket) Tokens(now time.Time) float64 { return b.at(now) }

func (b *floatBucket) Delay(now time.Time, n int) (time.Duration, bool) {
	if n < 0 {
		panic(fmt.Sprintf("Delay(%d)", n))
	}
	have := b.at(now)
	switch {
	case float64(n) > b.capacity:
		return 0, false
	case have >= float64(n):
		return 0, true
	case b.rate == 0:
		return 0, false
	}
	wait := math.Ceil((float64(n) - have) / b.rate * 1e9)
	if wait >= math.MaxInt64 {
		return 0, false
	}
	d := time.Duration(wait)
	if gap := b.last.Sub(now); b.started && gap > 0 {
		if d > maxWait-gap {
			return 0, false
		}
		d += gap // the refill starts at the bucket's time
	}
	return d, true
}

// suite is the spec as its own tests check it: its cases, and its fuzz
// target's seeds.
var suite = mutation.SpecOf(cases, fuzzSeeds, fuzzCase)

// mutants are the spec's wrong implementations, each with the part meant
// to catch it. TestSpecCatchesMutants checks that it does, and keeps
// testdata/mistakes.json, what each fails: after a change to the spec or
// the mutants, LADDER_UPDATE_MISTAKES=1 go test -run TestSpecCatchesMutants .
// in this folder writes it again.
var mutants = []mutation.Impl[func(int, float64) Bucket]{
	{Name: "starts empty", Part: 1, New: newMutant(mistakes{startEmpty: true})},
	{Name: "no cap on the refill", Part: 1, New: newMutant(mistakes{noCap: true})},
	{Name: "a denied AllowN still spends its tokens", Part: 1, New: newSubtractFirst},
	{Name: "a denied AllowN spends what there is, down to none", Part: 1, New: newMutant(mistakes{spendOnDenial: true})},
	{Name: "allows only with more than n tokens", Part: 1, New: newMutant(mistakes{strictlyMore: true})},
	{Name: "eager refill in whole tokens, also while denying", Part: 1, New: newMutant(mistakes{eagerWhole: true})},
	{Name: "part 1's float64 bucket: refill stored on every call, by a span that can be negative", Part: 2, New: newInterviewBucket},
	{Name: "eager refill stored by a denied AllowN", Part: 2, New: newMutant(mistakes{commitOnDenial: true})},
	{Name: "Tokens stores its refill", Part: 2, New: newMutant(mistakes{commitOnTokens: true})},
	{Name: "refill counted twice when time goes backwards (time moved back)", Part: 2, New: newMutant(mistakes{timeBack: true})},
	{Name: "a call in the past takes tokens away", Part: 2, New: newMutant(mistakes{negativeRefill: true})},
	{Name: "Delay rounds down", Part: 3, New: newMutant(mistakes{delayDown: true})},
	{Name: "Delay rounds up by adding a nanosecond", Part: 3, New: newMutant(mistakes{delayPlusOne: true})},
	{Name: "Delay gives a wait for more than the capacity", Part: 3, New: newMutant(mistakes{delayOverCap: true})},
	{Name: "Delay counts from now when now is before the bucket's time", Part: 3, New: newMutant(mistakes{delayFromNow: true})},
	{Name: "Delay says never whenever the rate is 0", Part: 3, New: newMutant(mistakes{delayRateZero: true})},
	{Name: "Delay's never is the longest wait", Part: 3, New: newMutant(mistakes{neverAsMax: true})},
	{Name: "a float64 count of tokens", Part: 4, New: newFloatCount},
	{Name: "time read as float64 seconds since 1970", Part: 4, New: newFloatSeconds},
	{Name: "the span measured with Time.Sub, which stops at 292 years", Part: 4, New: newMutant(mistakes{subSpan: true})},
	{Name: "a slow refill rounded to nothing in a large bucket", Part: 4, New: newMutant(mistakes{roundRate: true})},
	{Name: "no largest capacity", Part: 4, New: newMutant(mistakes{noCapacityBound: true})},
	{Name: "takes a rate slower than a token per 2^63ns", Part: 4, New: newMutant(mistakes{noRateBound: true})},
	{Name: "Delay's wait overflows when now is long before the bucket's time", Part: 4, New: newMutant(mistakes{delayWraps: true})},
}

func TestSpecCatchesMutants(t *testing.T) { suite.CatchesMutants(t, mutants) }

// TestRightImplementationPasses keeps the mutants honest: with no mistake
// switched on, the base passes every case, so each mutant differs by its
// mistake alone.
func TestRightImplementationPasses(t *testing.T) {
	mutation.Passes(t, "the mutants' base", 0, cases(newMutant(mistakes{})))
}
