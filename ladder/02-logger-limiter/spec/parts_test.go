package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/mutation"
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
	suite.EachPartNeedsOnlyItsOwnFeatures(t, []mutation.Impl[func(time.Duration) Logger]{
		{Part: 1, Name: "a map of last prints that never forgets, without Len", New: func(d time.Duration) Logger {
			return partOne{remembering(rightBlocks, nil)(d).(*lastPrint)}
		}},
		{Part: 2, Name: "a two-generation logger", New: newGenerations(nil)},
	})
}
