package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/harness/timeline"
)

// TestEachPartNeedsOnlyItsOwnFeatures plays the cases of each part and
// those before it, and the fuzz seeds of those parts, against a counter
// written for those parts only: the mutants' ring with the flaws that the
// later parts correct. Part 1's loops over every bucket of a gap, and
// takes any instant, any order of times and any views; part 2's resets
// after a long gap and refuses instants out of range, but still takes
// time going backwards and negative views.
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	for _, p := range []struct {
		part int
		impl string
		f    flaw
	}{
		{1, "a ring that loops over the gap and checks nothing", loopsOverGap | noRangeCheck | noBackwardsCheck | acceptsNegative},
		{2, "a ring that checks the range only", noBackwardsCheck | acceptsNegative},
		{3, "the mutants' ring with no flaw", sound},
	} {
		newCounter := newRing(p.f)
		mutation.DoneThrough(t, p.impl, p.part, append(cases(newCounter), seedCases(newCounter)...))
	}
}

// seedCases are the fuzz target's seeds as cases, built with newCounter.
func seedCases(newCounter func(window, bucket time.Duration) Counter) []timeline.Case[Counter] {
	b := unclocked(newCounter)
	return mutation.SeedCases(fuzzSeeds, func(data []byte) timeline.Case[Counter] { return b.Case(fuzzCase(data)) })
}
