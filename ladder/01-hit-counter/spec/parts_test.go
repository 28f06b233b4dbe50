package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
)

// TestEachPartNeedsOnlyItsOwnFeatures plays the cases of each part and
// those before it, and the fuzz seeds of those parts, against a counter
// written for those parts only. Part 1's is the queue the mutants share:
// right answers, but it re-slices, so it reallocates and keeps a burst's
// memory, which only part 2 forbids. Part 2's is the ring that shrinks.
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	suite.EachPartNeedsOnlyItsOwnFeatures(t, []mutation.Impl[func(time.Duration) Counter]{
		{Part: 1, Name: "a queue that re-slices", New: mutant(rightDrop)},
		{Part: 2, Name: "a ring that shrinks", New: newRing(true)},
	})
}
