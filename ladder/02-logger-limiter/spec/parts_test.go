package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/harness/timeline"
)

// partOne is a logger written for part 1 only: it remembers every message
// forever, and Len is still the stub's, since part 1 does not check it.
type partOne struct{ *lastPrint }

func (partOne) Len() int {
	mutation.Unwritten("Logger.Len")
	return 0
}

// TestEachPartNeedsOnlyItsOwnFeatures plays the cases of each part and
// those before it, and the fuzz seeds of those parts, against a logger
// written for those parts only: for part 1, the mutants' map of last
// prints, which never forgets, without Len; for part 2, the right
// two-generation logger.
func TestEachPartNeedsOnlyItsOwnFeatures(t *testing.T) {
	for _, p := range []struct {
		part int
		impl string
		new  func(time.Duration) Logger
	}{
		{1, "a map of last prints that never forgets, without Len", func(d time.Duration) Logger {
			return partOne{remembering(rightBlocks, nil)(d).(*lastPrint)}
		}},
		{2, "a two-generation logger", newGenerations(nil)},
	} {
		mutation.DoneThrough(t, p.impl, p.part, append(cases(p.new), seedCases(p.new)...))
	}
}

// seedCases are the fuzz target's seeds as cases, built with newLogger.
func seedCases(newLogger func(time.Duration) Logger) []timeline.Case[Logger] {
	return mutation.SeedCases(fuzzSeeds, func(data []byte) timeline.Case[Logger] { return fuzzCase(newLogger, data) })
}
