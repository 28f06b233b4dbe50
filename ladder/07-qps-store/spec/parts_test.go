package spec

import (
	"testing"

	"github.com/rateladder/rateladder/harness/mutation"
)

// TestEachPartNeedsOnlyItsOwnFeatures plays the cases of each part and
// those before it, and the fuzz seeds of those parts, against the mutants'
// store written for those parts only. Part 1's has one ring of five
// minutes and panics for a longer window; parts 1 and 2's have no lock,
// and panic if a call comes while another is under way, so that a case
// of theirs that calls from two goroutines fails here. Part 3 runs in a
// process of its own under -race; only its cases may start goroutines.
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	suite.EachPartNeedsOnlyItsOwnFeatures(t, []mutation.Impl[mistakes]{
		{Part: 1, Name: "a store of five minutes with no lock", New: mistakes{fiveMinutes: true, noLock: true}},
		{Part: 2, Name: "a store with no lock", New: mistakes{noLock: true}},
		{Part: 3, Name: "the mutants' store with no mistake", New: mistakes{}},
	})
}
