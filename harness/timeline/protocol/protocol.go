// Package protocol is what a level's test binaries and the ladder command
// tell each other, written once for both sides: how a case's outcome is
// written into go test's output, the names of the verdicts, and the two
// files each spec keeps for the grader (its list of cases and its table
// of known mistakes).
//
// Package timeline writes all of it; the ladder command reads it. This
// package imports no "testing" and nothing outside the standard library,
// so that the command builds fast from an empty build cache: a newcomer's
// first make progress builds the command first.
package protocol

import (
	"encoding/json"
	"strings"
)

// GradeEnv, set to 1 by the ladder command, makes the runner write each
// case's outcome as a line of its subtest's output (see CaseLine), for
// the command to read from go test -json. Without it a failing case
// prints its report for a person.
const GradeEnv = "LADDER_GRADE"

// The kinds of Event: a case's outcome, and the grader's word on how a
// test binary ended.
const (
	CaseEnd = "case-end"
	Exit    = "exit"
)

// The names of the verdicts, as Event.Verdict gives them, from best to
// worst (see timeline.Verdict).
const (
	Pass           = "pass"
	Fail           = "fail"
	NotImplemented = "not implemented"
	Panicked       = "panicked"
	Exited         = "exited"
	TimedOut       = "timed out"
)

// Event is a case's outcome, as the runner writes it (see CaseLine).
type Event struct {
	// Kind is CaseEnd, or Exit for the grader's word on a whole test
	// binary.
	Kind string `json:"e"`
	// Test is the full test name: "TestHitCounter/part_1/a_hit".
	Test string `json:"test,omitempty"`
	// Case and Part name the spec case.
	Case string `json:"case,omitempty"`
	Part int    `json:"part,omitempty"`
	// Fuzz marks a case that a fuzz target built.
	Fuzz bool `json:"fuzz,omitempty"`
	// Verdict, Step and Report are the case's outcome; Verdict is one of
	// the names above.
	Verdict string `json:"verdict,omitempty"`
	Step    int    `json:"step,omitempty"`
	Report  string `json:"report,omitempty"`
	// Brief is the Report cut to one screen, and Summary its one line:
	// the first wrong call, "Count(t=4s) = 3, want 5".
	Brief   string `json:"brief,omitempty"`
	Summary string `json:"summary,omitempty"`
	// Missing is the method a stub's panic named, and Where the line of
	// the stub that panicked, for NotImplemented.
	Missing string `json:"missing,omitempty"`
	Where   string `json:"where,omitempty"`

	// For Exit: whether the test binary ran to its end, and if not, why,
	// with the start of what the runtime printed if it crashed.
	Complete bool   `json:"complete,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Crash    string `json:"crash,omitempty"`
}

// RunMark is the line the runner writes as it starts a spec's cases, for
// the ladder command: a test binary that never wrote it did not run its
// cases through the ladder's runner.
const RunMark = "ladder-run: the spec's cases follow"

// caseMark starts a case's line in a subtest's output.
const caseMark = "ladder-case: "

// CaseLine is a case's outcome as the runner writes it into its subtest's
// output: one line, which a learner's own prints cannot split, since an
// Event holds only strings, numbers and booleans, which always encode.
func CaseLine(e Event) string {
	b, _ := json.Marshal(e)
	return caseMark + string(b)
}

// FindCase returns the last case line in a subtest's output, whatever go
// test put before it on its line ("    hitcounter_test.go:10: ").
func FindCase(output string) (Event, bool) {
	i := strings.LastIndex(output, caseMark)
	if i < 0 {
		return Event{}, false
	}
	line, _, _ := strings.Cut(output[i+len(caseMark):], "\n")
	var e Event
	if json.Unmarshal([]byte(line), &e) != nil || e.Kind != CaseEnd {
		return Event{}, false
	}
	return e, true
}
