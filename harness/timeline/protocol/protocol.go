// Package protocol is what a level's test binaries (package timeline) and
// the ladder command tell each other: a case's line in go test's output,
// the verdicts' names, and each spec's list of cases and table of known
// mistakes. It imports only the standard library, so the command builds fast.
package protocol

import (
	"encoding/json"
	"strings"
)

// GradeEnv, set to 1 by the ladder command, makes the runner write each
// case's outcome as a line of its subtest's output (see CaseLine).
const GradeEnv = "LADDER_GRADE"

// CaseEnd is the Kind of a case's Event.
const CaseEnd = "case-end"

// The names of the verdicts, from best to worst (see timeline.Verdict).
const (
	Pass           = "pass"
	Fail           = "fail"
	NotImplemented = "not implemented"
	Panicked       = "panicked"
	Exited         = "exited"
	TimedOut       = "timed out"
)

// Event is a case's outcome, as the runner writes it (see CaseLine); the
// grader keeps it as the case's verdict, and the race reports during it.
type Event struct {
	Kind    string `json:"e"`              // CaseEnd
	Test    string `json:"test,omitempty"` // "TestHitCounter/part_1/a_hit"
	Name    string `json:"case,omitempty"`
	Part    int    `json:"part,omitempty"`
	Fuzz    bool   `json:"fuzz,omitempty"` // built by a fuzz target
	Verdict string `json:"verdict,omitempty"`
	Step    int    `json:"step,omitempty"`
	Report  string `json:"report,omitempty"`
	Brief   string `json:"brief,omitempty"`   // Report cut to one screen
	Summary string `json:"summary,omitempty"` // the first wrong call, "Count(t=4s) = 3, want 5"
	// Missing is the method a stub's panic named, Where the stub's line.
	Missing string `json:"missing,omitempty"`
	Where   string `json:"where,omitempty"`
}

// RunMark is the line the runner writes as it starts a spec's cases.
const RunMark = "ladder-run: the spec's cases follow"

// caseMark starts a case's line in a subtest's output.
const caseMark = "ladder-case: "

// CaseLine is a case's outcome as one line of its subtest's output.
func CaseLine(e Event) string {
	b, _ := json.Marshal(e)
	return caseMark + string(b)
}

// FindCase returns the last case line in a subtest's output.
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
