package spec

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
)

// noDelay is a bucket written before part 3: Delay is still the stub's.
type noDelay struct{ Bucket }

func (noDelay) Delay(time.Time, int) (time.Duration, bool) {
	mutation.Unwritten("Bucket.Delay")
	return 0, false
}

// interviewBucket is part 1 as most candidates write it, and as
// golang.org/x/time/rate keeps its count: float64 tokens, refilled lazily.
// Every call, Tokens and a denied AllowN too, stores its refill and moves
// the time to its now, by the signed span Time.Sub gives. That is harmless
// while time only goes forward; part 2 is about what it breaks.
type interviewBucket struct {
	capacity, rate, tokens float64
	last                   time.Time
	started                bool
	// subtractFirst is a mistake: AllowN takes the tokens, then checks
	// that the count is not below zero, and leaves it there if it is.
	subtractFirst bool
}

func newInterviewBucket(capacity int, rate float64) Bucket {
	if capacity < 1 || rate < 0 || math.IsNaN(rate) || math.IsInf(rate, 0) {
		panic(fmt.Sprintf("tokenbucket: New(%d, %v): want capacity >= 1 and a finite rate >= 0", capacity, rate))
	}
	return &interviewBucket{capacity: float64(capacity), rate: rate, tokens: float64(capacity)}
}

// newSubtractFirst is the interview bucket that subtracts, then checks.
func newSubtractFirst(capacity int, rate float64) Bucket {
	b := newInterviewBucket(capacity, rate).(*interviewBucket)
	b.subtractFirst = true
	return b
}

func (b *interviewBucket) refill(now time.Time) {
	if b.started {
		b.tokens = math.Min(b.capacity, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	b.last, b.started = now, true
}

func (b *interviewBucket) Allow(now time.Time) bool { return b.AllowN(now, 1) }

func (b *interviewBucket) AllowN(now time.Time, n int) bool {
	if n < 0 {
		panic(fmt.Sprintf("tokenbucket: AllowN(%d)", n))
	}
	b.refill(now)
	if b.subtractFirst {
		b.tokens -= float64(n)
		return b.tokens >= 0
	}
	if b.tokens < float64(n) {
		return false
	}
	b.tokens -= float64(n)
	return true
}

func (b *interviewBucket) Tokens(now time.Time) float64 {
	b.refill(now)
	return b.tokens
}

func (b *interviewBucket) Delay(time.Time, int) (time.Duration, bool) {
	mutation.Unwritten("Bucket.Delay")
	return 0, false
}

// partial are buckets written for parts 1 to Part only. Parts 1 to 3 ask
// for nothing a float64 count gets wrong, so each has one: part 1's is
// interviewBucket; part 2's stores only what a spend leaves, and a now in
// the past sees the bucket as it is; part 3's adds Delay. The others are
// built from the mutants' base, exact from the start. A part 1 bucket has
// never seen time go backwards: it refills by the signed span and moves
// its time back, or moves its time back as x/time/rate does, and may store
// its refill on every call. Before part 3, Delay is the stub's.
func partial() []mutation.Impl[func(int, float64) Bucket] {
	before3 := func(m mistakes) func(int, float64) Bucket {
		return func(capacity int, rate float64) Bucket { return noDelay{newMutant(m)(capacity, rate)} }
	}
	return []mutation.Impl[func(int, float64) Bucket]{
		{Part: 1, Name: "a float64 bucket that refills on every call", New: newInterviewBucket},
		{Part: 1, Name: "a bucket that refills by the signed span", New: before3(mistakes{negativeRefill: true})},
		{Part: 1, Name: "a bucket that moves its time back", New: before3(mistakes{timeBack: true})},
		{Part: 1, Name: "a bucket that stores its refill on every call", New: before3(mistakes{commitOnDenial: true, commitOnTokens: true, negativeRefill: true})},
		{Part: 2, Name: "a float64 bucket that refills when it spends", New: func(capacity int, rate float64) Bucket {
			return noDelay{newFloatCount(capacity, rate)}
		}},
		{Part: 2, Name: "the mutants' base without Delay", New: before3(mistakes{})},
		{Part: 3, Name: "a float64 bucket with Delay", New: newFloatCount},
		{Part: 4, Name: "the mutants' base", New: newMutant(mistakes{})},
	}
}

// TestEachPartNeedsOnlyItsOwnFeatures plays the cases of each part and
// those before it, and the fuzz seeds of those parts, against the buckets
// written for those parts only.
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	suite.EachPartNeedsOnlyItsOwnFeatures(t, partial())
}

// TestFuzzKeepsPartsOneToThreeAtInterviewScale plays random timelines,
// beyond the seeds, against the float64 buckets of parts 1 to 3: every
// timeline the fuzz target labels with one of their parts must pass, or
// the fuzzer would fail a float64 bucket in a part that asks for none of
// what it gets wrong.
func TestFuzzKeepsPartsOneToThreeAtInterviewScale(t *testing.T) {
	suite.FuzzKeepsEachPartToItsScale(t, partial(), 3, 8, 120, 4)
}
