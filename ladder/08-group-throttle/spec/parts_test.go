package spec

import (
	"fmt"
	"slices"
	"testing"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// partial is the model as a learner's code of parts 1 to 4 leaves it:
// no lock yet, and Len still the stub's.
type partial struct{ *core }

// Len is part 5's, not written yet.
func (partial) Len() int { panic("not implemented: Throttler.Len") }

// doneThrough builds the mutants' base, the model, as a learner who has
// done parts 1 to part only would have it: New refuses what later parts
// add with an error, as code with no branch for it yet does. Part 1 takes
// only fixed windows, part 2 sliding windows too, part 3 token buckets
// too, part 4 groups; part 5 is the whole model.
func doneThrough(part int) ctor {
	return func(c clock.Clock, cfg limits.Config) (Throttler, error) {
		fields := []string{"PerClient"}
		for i := range cfg.Groups {
			fields = append(fields, fmt.Sprintf("Groups[%d].Limit", i))
		}
		for i, l := range configLimits(cfg) {
			if (l.Algorithm == limits.SlidingWindow && part < 2) || (l.Algorithm == limits.TokenBucket && part < 3) {
				return nil, fmt.Errorf("%s.Algorithm is %v, which a throttler of parts 1 to %d does not have yet", fields[i], l.Algorithm, part)
			}
		}
		if len(cfg.Groups) > 0 && part < 4 {
			return nil, fmt.Errorf("groups are part 4, and this throttler has parts 1 to %d", part)
		}
		if part >= 5 {
			return newModel(c, cfg)
		}
		m, err := newCore(c, cfg, newPlainBook)
		if err != nil {
			return nil, err
		}
		return partial{m}, nil
	}
}

// TestEachPartNeedsOnlyItsOwnFeatures checks that every case, and every
// seed of the fuzz target, is labelled with the lowest part whose
// features it needs: code written for parts 1 to K passes every case of
// those parts.
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	slowUnderRace(t)
	for part := 1; part <= 5; part++ {
		t.Run(fmt.Sprintf("parts 1 to %d", part), func(t *testing.T) {
			newT := doneThrough(part)
			cs := slices.Concat(cases(newT, 0), fuzzSeedCases(newT, 0))
			if part == 5 {
				// Parts 1 to 5 are every part: the right implementation's
				// own check, TestRightImplementationPasses, plays the
				// tables; here only the seeds.
				cs = fuzzSeedCases(newT, 0)
			}
			mutation.DoneThrough(t, fmt.Sprintf("the model, done through part %d", part), part, cs)
		})
	}
}

// TestFuzzSeedsCoverEveryAlgorithmPart checks that the seeds reach parts 2
// to 4, so that relabelling them leaves the fuzz target its variety.
func TestFuzzSeedsCoverEveryAlgorithmPart(t *testing.T) {
	seen := map[int][]string{}
	for _, c := range fuzzSeedCases(theModel, 0) {
		seen[c.Part] = append(seen[c.Part], c.Name)
	}
	for part := 2; part <= 4; part++ {
		if len(seen[part]) == 0 {
			t.Errorf("no fuzz seed is of part %d (seeds by part: %v), want at least one", part, seen)
		}
	}
}
