package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/harness/timeline"
)

// TestEachPartNeedsOnlyItsOwnFeatures plays the cases of each part and
// those before it, and the fuzz seeds of those parts, against a counter
// written for those parts only. Part 1's is the queue the mutants share:
// right answers, but it re-slices, so it reallocates and keeps a burst's
// memory, which only part 2 forbids. Part 2's is the ring that shrinks.
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	for _, p := range []struct {
		part int
		impl string
		new  func(time.Duration) Counter
	}{
		{1, "a queue that re-slices", mutant(rightDrop)},
		{2, "a ring that shrinks", newRing(true)},
	} {
		mutation.DoneThrough(t, p.impl, p.part, append(cases(p.new), seedCases(p.new)...))
	}
}

// seedCases are the fuzz target's seeds as cases, built with newCounter.
func seedCases(newCounter func(time.Duration) Counter) []timeline.Case[Counter] {
	return mutation.SeedCases(fuzzSeeds, func(data []byte) timeline.Case[Counter] { return fuzzCase(newCounter, data) })
}
