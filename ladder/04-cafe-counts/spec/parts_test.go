package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
)

// earlyCafe is a café written for the parts up to part: it has not
// written Distinct before part 2, nor Counts before part 3.
type earlyCafe struct {
	Cafe
	part int
}

// upTo builds the mutants' queue with wrong, as a café for the parts up to
// part.
func upTo(part int, wrong mistakes) func(time.Duration) Cafe {
	return func(w time.Duration) Cafe { return earlyCafe{mutant(wrong)(w), part} }
}

func (c earlyCafe) Distinct(now time.Time) int {
	if c.part < 2 {
		mutation.Unwritten("Cafe.Distinct")
	}
	return c.Cafe.Distinct(now)
}

func (c earlyCafe) Counts(now time.Time) map[string]int {
	if c.part < 3 {
		mutation.Unwritten("Cafe.Counts")
	}
	return c.Cafe.Counts(now)
}

// TestEachPartNeedsOnlyItsOwnFeatures plays the cases of each part and
// those before it, and the fuzz seeds of those parts, against a café
// written for those parts only: the mutants' queue, reusing its memory as
// part 1 asks, keeping a drink whose count falls to zero before part 2
// (as a map that only counts up does).
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	suite.EachPartNeedsOnlyItsOwnFeatures(t, []mutation.Impl[func(time.Duration) Cafe]{
		{Part: 1, Name: "a queue that reuses its memory and keeps every drink it saw, without Distinct and Counts", New: upTo(1, mistakes{reuses: true, keepZeros: true})},
		{Part: 2, Name: "a queue that reuses its memory and forgets a drink at zero, without Counts", New: upTo(2, mistakes{reuses: true})},
		{Part: 3, Name: "a queue that reuses its memory and forgets a drink at zero", New: upTo(3, mistakes{reuses: true})},
	})
}
