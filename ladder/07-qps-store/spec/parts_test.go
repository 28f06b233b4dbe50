package spec

import (
	"testing"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/harness/timeline"
)

// TestEachPartNeedsOnlyItsOwnFeatures plays the cases of each part and
// those before it, and the fuzz seeds of those parts, against the mutants'
// store written for those parts only. Part 1's has one ring of five
// minutes and panics for a longer window; parts 1 and 2's have no lock,
// and panic if a call comes while another is under way, so that a case
// of theirs that calls from two goroutines fails here. Part 3 runs in a
// process of its own under -race; only its cases may start goroutines.
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	for _, p := range []struct {
		part int
		impl string
		m    mistakes
	}{
		{1, "a store of five minutes with no lock", mistakes{fiveMinutes: true, noLock: true}},
		{2, "a store with no lock", mistakes{noLock: true}},
		{3, "the mutants' store with no mistake", mistakes{}},
	} {
		newStore := newFlawed(p.m)
		mutation.DoneThrough(t, p.impl, p.part, append(cases(newStore), seedCases(newStore)...))
	}
}

// seedCases are the fuzz target's seeds as cases, built with newStore.
func seedCases(newStore func(clock.Clock) Store) []timeline.Case[Store] {
	return mutation.SeedCases(fuzzSeeds, func(data []byte) timeline.Case[Store] { return fuzzCase(newStore, data) })
}
