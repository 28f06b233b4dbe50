package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
)

// partial are counters written for parts 1 to Part only: the mutants'
// ring with the flaws that the later parts correct. Part 1's loops over
// every bucket of a gap, and takes any instant, any order of times and any
// views; part 2's resets after a long gap and refuses instants out of
// range, but still takes time going backwards and negative views.
var partial = []mutation.Impl[func(window, bucket time.Duration) Counter]{
	{Part: 1, Name: "a ring that loops over the gap and checks nothing", New: newRing(loopsOverGap | noRangeCheck | noBackwardsCheck | acceptsNegative)},
	{Part: 2, Name: "a ring that checks the range only", New: newRing(noBackwardsCheck | acceptsNegative)},
	{Part: 3, Name: "the mutants' ring with no flaw", New: newRing(sound)},
}

// TestEachPartNeedsOnlyItsOwnFeatures plays the cases of each part and
// those before it, and the fuzz seeds of those parts, against a counter
// written for those parts only.
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	suite.EachPartNeedsOnlyItsOwnFeatures(t, partial)
}

// TestFuzzKeepsEachPartToItsScale plays random timelines, beyond the
// seeds, against the counters of parts 1 and 2: every timeline the fuzz
// target labels with one of their parts must pass, or the fuzzer would
// fail code of part 1 on a 200-year gap or an instant out of range.
func TestFuzzKeepsEachPartToItsScale(t *testing.T) {
	suite.FuzzKeepsEachPartToItsScale(t, partial, 5, 4, 60, 3)
}
