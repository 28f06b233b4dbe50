package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
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
	suite.EachPartNeedsOnlyItsOwnFeatures(t, []mutation.Impl[func(time.Duration) Aggregator]{
		{Part: 1, Name: "the naive aggregator without TopTalker and TopTalkers", New: func(w time.Duration) Aggregator { return partOne{beforeTopK{newNaive(w)}} }},
		{Part: 2, Name: "the naive aggregator without TopTalkers", New: func(w time.Duration) Aggregator { return beforeTopK{newNaive(w)} }},
		{Part: 3, Name: "the naive aggregator", New: func(w time.Duration) Aggregator { return newNaive(w) }},
	})
}
