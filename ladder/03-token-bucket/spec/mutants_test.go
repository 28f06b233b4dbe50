package spec

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/timeline"
)

// Wrong implementations that the spec must catch. Each is a complete
// bucket with one mistake a learner makes; if an edit to the spec lets one
// of them pass, this test fails.

// unit is how many units make a token in the mutants: every rate in the
// spec's cases is then a whole number of units a nanosecond, so their
// arithmetic is exact and each mutant has only its own mistake.
const unit = 4_000_000_000

// mistakes switches on one wrong rule in a mutant.
type mistakes struct {
	startEmpty     bool // the first call sees no tokens
	noCap          bool // the refill goes past the capacity
	spendOnDenial  bool // a denied AllowN still takes its tokens
	strictlyMore   bool // allows only with more than n tokens, not n
	eagerWhole     bool // every AllowN keeps whole tokens and moves the time to now, allowed or denied
	commitOnDenial bool // a denied AllowN stores its refill and its now
	commitOnTokens bool // Tokens stores its refill and its now
	timeBack       bool // a call in the past moves the time back to it, as x/time/rate does
	negativeRefill bool // a call in the past takes rate*elapsed away
	delayDown      bool // Delay rounds the wait down
	delayPlusOne   bool // Delay rounds up by adding 1ns to the rounded-down wait
	delayOverCap   bool // Delay gives a wait for n > capacity
	delayFromNow   bool // Delay counts the refill from now even when now is before the bucket's time
	delayRateZero  bool // Delay says never whenever the rate is 0
	neverAsMax     bool // Delay's never is (MaxInt64, false)
}

type mutant struct {
	mistakes
	capacity, perNs, units int64
	last                   time.Time
	started                bool
}

// checkNew panics for the values New must refuse, as every mutant's New does.
func checkNew(capacity int, rate float64) {
	if capacity < 1 || rate < 0 || math.IsNaN(rate) || math.IsInf(rate, 0) {
		panic(fmt.Sprintf("New(%d, %v)", capacity, rate))
	}
}

func newMutant(m mistakes) func(int, float64) Bucket {
	return func(capacity int, rate float64) Bucket {
		checkNew(capacity, rate)
		perNs := rate * unit / 1e9
		if perNs != math.Trunc(perNs) {
			panic(fmt.Sprintf("mutant: rate %v is not a whole number of units a nanosecond", rate))
		}
		b := &mutant{mistakes: m, capacity: int64(capacity), perNs: int64(perNs), units: int64(capacity) * unit}
		if m.startEmpty {
			b.units = 0
		}
		return b
	}
}

// refill returns the units at now and the time they count from.
func (b *mutant) refill(now time.Time) (int64, time.Time) {
	if !b.started {
		return b.units, now
	}
	d := int64(now.Sub(b.last))
	switch {
	case d < 0 && b.negativeRefill:
		return b.units + d*b.perNs, now
	case d < 0 && b.timeBack:
		return b.units, now
	case d < 0:
		return b.units, b.last
	}
	const most = math.MaxInt64 / 2
	u := int64(most)
	if b.perNs == 0 || d < (most-b.units)/b.perNs {
		u = b.units + d*b.perNs
	}
	if full := b.capacity * unit; !b.noCap && u > full {
		u = full
	}
	return u, now
}

func (b *mutant) store(u int64, t time.Time) { b.units, b.last, b.started = u, t, true }

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
		u = u / unit * unit
		b.store(u, t)
	}
	cost := int64(n) * unit
	ok := u >= cost
	if b.strictlyMore {
		ok = u > cost
	}
	if !ok && b.spendOnDenial {
		b.store(u-cost, t)
	}
	if !ok && b.commitOnDenial {
		b.store(u, t)
	}
	if ok {
		b.store(u-cost, t)
	}
	return ok
}

func (b *mutant) Tokens(now time.Time) float64 {
	u, t := b.refill(now)
	if b.commitOnTokens {
		b.store(u, t)
	}
	return float64(u) / unit
}

func (b *mutant) Delay(now time.Time, n int) (time.Duration, bool) {
	if n < 0 {
		panic(fmt.Sprintf("Delay(%d)", n))
	}
	neverWait := time.Duration(0)
	if b.neverAsMax {
		neverWait = math.MaxInt64
	}
	if int64(n) > b.capacity && !b.delayOverCap {
		return neverWait, false
	}
	if b.perNs == 0 && b.delayRateZero {
		return neverWait, false
	}
	u, t := b.refill(now)
	cost := int64(n) * unit
	if u >= cost {
		return 0, true
	}
	if b.perNs == 0 {
		return neverWait, false
	}
	need := cost - u
	wait := (need + b.perNs - 1) / b.perNs
	switch {
	case b.delayDown:
		wait = need / b.perNs
	case b.delayPlusOne:
		wait = need/b.perNs + 1
	}
	if !b.delayFromNow && t.After(now) {
		wait += int64(t.Sub(now))
	}
	return time.Duration(wait), true
}

// floatSeconds is a bucket in float64 tokens that reads the time as a
// float64 of seconds since 1970, the way time.time() reads it in Python.
// Every rule is right, but in 2025 such a float is only good to about 240ns.
type floatSeconds struct {
	capacity, rate, tokens, last float64
	started                      bool
}

func newFloatSeconds(capacity int, rate float64) Bucket {
	checkNew(capacity, rate)
	return &floatSeconds{capacity: float64(capacity), rate: rate, tokens: float64(capacity)}
}

func seconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

func (b *floatSeconds) at(now time.Time) float64 {
	if !b.started || seconds(now) <= b.last {
		return b.tokens
	}
	return math.Min(b.capacity, b.tokens+(seconds(now)-b.last)*b.rate)
}

func (b *floatSeconds) Allow(now time.Time) bool { return b.AllowN(now, 1) }

func (b *floatSeconds) AllowN(now time.Time, n int) bool {
	if n < 0 {
		panic(fmt.Sprintf("AllowN(%d)", n))
	}
	have := b.at(now)
	if n == 0 || have < float64(n) {
		return n == 0
	}
	b.tokens = have - float64(n)
	if !b.started || seconds(now) > b.last {
		b.last = seconds(now)
	}
	b.started = true
	return true
}

func (b *floatSeconds) Tokens(now time.Time) float64 { return b.at(now) }

func (b *floatSeconds) Delay(now time.Time, n int) (time.Duration, bool) {
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
	if b.started && b.last > seconds(now) {
		wait += (b.last - seconds(now)) * 1e9
	}
	return time.Duration(wait), true
}

func TestSpecCatchesMutants(t *testing.T) {
	mutants := []struct {
		name string
		part int // the part whose cases must catch it
		new  func(int, float64) Bucket
	}{
		{"starts empty", 1, newMutant(mistakes{startEmpty: true})},
		{"no cap on the refill", 1, newMutant(mistakes{noCap: true})},
		{"a denied AllowN still spends its tokens", 1, newMutant(mistakes{spendOnDenial: true})},
		{"allows only with more than n tokens", 1, newMutant(mistakes{strictlyMore: true})},
		{"eager refill in whole tokens, also while denying", 1, newMutant(mistakes{eagerWhole: true})},
		{"time read as float64 seconds since 1970", 1, newFloatSeconds},
		{"eager refill stored by a denied AllowN", 2, newMutant(mistakes{commitOnDenial: true})},
		{"Tokens stores its refill", 2, newMutant(mistakes{commitOnTokens: true})},
		{"refill counted twice when time goes backwards (time moved back)", 2, newMutant(mistakes{timeBack: true})},
		{"a call in the past takes tokens away", 2, newMutant(mistakes{negativeRefill: true})},
		{"Delay rounds down", 3, newMutant(mistakes{delayDown: true})},
		{"Delay rounds up by adding a nanosecond", 3, newMutant(mistakes{delayPlusOne: true})},
		{"Delay gives a wait for more than the capacity", 3, newMutant(mistakes{delayOverCap: true})},
		{"Delay counts from now when now is before the bucket's time", 3, newMutant(mistakes{delayFromNow: true})},
		{"Delay says never whenever the rate is 0", 3, newMutant(mistakes{delayRateZero: true})},
		{"Delay's never is the longest wait", 3, newMutant(mistakes{neverAsMax: true})},
	}
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			caught := timeline.Catches(t, m.name, m.part, cases(m.new))
			t.Logf("caught by: %q", caught)
		})
	}
}

// TestMutantBaseIsRight keeps the mutants honest: with no mistake switched
// on, the base passes every case, so each mutant differs by its mistake
// alone.
func TestMutantBaseIsRight(t *testing.T) {
	for _, o := range timeline.PlayAll(cases(newMutant(mistakes{}))) {
		if o.Verdict != timeline.Pass {
			t.Errorf("the mutants' base fails case %q:\n%s", o.Case, o.Report)
		}
	}
}
