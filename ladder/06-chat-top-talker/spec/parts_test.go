package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/harness/timeline"
)

// beforeTopK is an aggregator written before part 3: TopTalkers is the stub's.
type beforeTopK struct{ *naive }

func (beforeTopK) TopTalkers(time.Time, int) []Talker {
	mutation.Unwritten("Aggregator.TopTalkers")
	return nil
}

// partOne is an aggregator written for part 1 only: TopTalker and
// TopTalkers are the stub's.
type partOne struct{ beforeTopK }

func (partOne) TopTalker(time.Time) (Talker, bool) {
	mutation.Unwritten("Aggregator.TopTalker")
	return Talker{}, false
}

// TestEachPartNeedsOnlyItsOwnFeatures plays the cases of each part and
// those before it, and the fuzz seeds of those parts, against the naive
// aggregator the mutants share, with the methods of later parts left as
// the stub's.
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	for _, p := range []struct {
		part int
		impl string
		new  func(time.Duration) Aggregator
	}{
		{1, "the naive aggregator without TopTalker and TopTalkers", func(w time.Duration) Aggregator { return partOne{beforeTopK{newNaive(w)}} }},
		{2, "the naive aggregator without TopTalkers", func(w time.Duration) Aggregator { return beforeTopK{newNaive(w)} }},
		{3, "the naive aggregator", func(w time.Duration) Aggregator { return newNaive(w) }},
	} {
		mutation.DoneThrough(t, p.impl, p.part, append(cases(p.new), seedCases(p.new)...))
	}
}

// seedCases are the fuzz target's seeds as cases, built with newAggregator.
func seedCases(newAggregator func(time.Duration) Aggregator) []timeline.Case[Aggregator] {
	return mutation.SeedCases(fuzzSeeds, func(data []byte) timeline.Case[Aggregator] { return fuzzCase(newAggregator, data) })
}
