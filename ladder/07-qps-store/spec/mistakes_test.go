package spec

import "testing"

// TestMistakesTableIsCurrent keeps testdata/mistakes.json, the cases each
// mutant fails, in step with the spec and its mutants: the grader names a
// learner's mistake from it. After a change to either,
// LADDER_UPDATE_MISTAKES=1 go test -run TestMistakesTableIsCurrent . in
// this folder writes it again.
func TestMistakesTableIsCurrent(t *testing.T) { suite.MistakesTableIsCurrent(t, mutants) }
