package spec

import (
	"slices"
	"testing"

	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// TestMistakesTableIsCurrent keeps testdata/mistakes.json, the cases each
// mutant fails, in step with the spec and its mutants: the grader names a
// learner's mistake from it. After a change to either,
// LADDER_UPDATE_MISTAKES=1 go test -run TestMistakesTableIsCurrent . in
// this folder writes it again.
func TestMistakesTableIsCurrent(t *testing.T) {
	mutation.SkipSweepIfShort(t)
	slowUnderRace(t)
	var m protocol.Mistakes
	for _, k := range mutants {
		part := slices.Min(k.parts)
		var upTo []timeline.Outcome
		for _, o := range played(k.name, k.new, slices.Max(k.parts)) {
			if o.Part <= part {
				upTo = append(upTo, o)
			}
		}
		m.Mistakes = append(m.Mistakes, mutation.MistakeOf(k.name, part, upTo))
	}
	mutation.CheckMistakes(t, m)
}
