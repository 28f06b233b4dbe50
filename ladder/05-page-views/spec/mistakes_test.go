package spec

import (
	"testing"

	"github.com/rateladder/rateladder/harness/mutation"
	"github.com/rateladder/rateladder/harness/timeline"
)

// TestMistakesTableIsCurrent keeps testdata/mistakes.json, the cases each
// mutant fails, in step with the spec and its mutants: the grader names a
// learner's mistake from it. After a change to either,
// LADDER_UPDATE_MISTAKES=1 go test -run TestMistakesTableIsCurrent . in
// this folder writes it again.
func TestMistakesTableIsCurrent(t *testing.T) {
	var m timeline.Mistakes
	for _, k := range mutants {
		m.Mistakes = append(m.Mistakes, timeline.RecordMistake(k.name, k.part, cases(k.new)))
	}
	mutation.CheckMistakes(t, m)
}
