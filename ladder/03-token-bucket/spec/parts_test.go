package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/harness/timeline"
)

// noDelay is a bucket written before part 3: Delay is still the stub's.
type noDelay struct{ Bucket }

func (noDelay) Delay(time.Time, int) (time.Duration, bool) {
	mutation.Unwritten("Bucket.Delay")
	return 0, false
}

// TestEachPartNeedsOnlyItsOwnFeatures plays the cases of each part and
// those before it, and the fuzz seeds of those parts, against buckets
// written for those parts only, built from the mutants' base. A part 1
// bucket has never seen time go backwards: it refills by the signed span
// and moves its time back, or moves its time back as x/time/rate does, and
// may store its refill on every call, which is harmless while time only
// goes forward. Before part 3, Delay is the stub's.
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	before3 := func(m mistakes) func(int, float64) Bucket {
		return func(capacity int, rate float64) Bucket { return noDelay{newMutant(m)(capacity, rate)} }
	}
	for _, p := range []struct {
		part int
		impl string
		new  func(int, float64) Bucket
	}{
		{1, "a bucket that refills by the signed span", before3(mistakes{negativeRefill: true})},
		{1, "a bucket that moves its time back", before3(mistakes{timeBack: true})},
		{1, "a bucket that stores its refill on every call", before3(mistakes{commitOnDenial: true, commitOnTokens: true, negativeRefill: true})},
		{2, "the mutants' base without Delay", before3(mistakes{})},
		{3, "the mutants' base", newMutant(mistakes{})},
	} {
		mutation.DoneThrough(t, p.impl, p.part, append(cases(p.new), seedCases(p.new)...))
	}
}

// seedCases are the fuzz target's seeds as cases, built with newBucket.
func seedCases(newBucket func(int, float64) Bucket) []timeline.Case[Bucket] {
	return mutation.SeedCases(fuzzSeeds, func(data []byte) timeline.Case[Bucket] { return fuzzCase(newBucket, data) })
}
