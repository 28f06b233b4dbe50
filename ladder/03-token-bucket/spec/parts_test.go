package spec

import (
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
	suite.EachPartNeedsOnlyItsOwnFeatures(t, []mutation.Impl[func(int, float64) Bucket]{
		{Part: 1, Name: "a bucket that refills by the signed span", New: before3(mistakes{negativeRefill: true})},
		{Part: 1, Name: "a bucket that moves its time back", New: before3(mistakes{timeBack: true})},
		{Part: 1, Name: "a bucket that stores its refill on every call", New: before3(mistakes{commitOnDenial: true, commitOnTokens: true, negativeRefill: true})},
		{Part: 2, Name: "the mutants' base without Delay", New: before3(mistakes{})},
		{Part: 3, Name: "the mutants' base", New: newMutant(mistakes{})},
	})
}
