// Package protocol is what a level's test binaries and the ladder command
// tell each other, written once for both sides: the environment variables
// of the supervisor, its events and their kinds, the names of the
// verdicts, and the two files each spec keeps for the grader (its list of
// cases and its table of known mistakes).
//
// Package timeline writes all of it; the ladder command reads it. This
// package imports no "testing" and nothing outside the standard library,
// so that the command builds fast from an empty build cache: a newcomer's
// first make progress builds the command first.
package protocol

import "encoding/json"

// Environment variables of the supervisor (see timeline's supervise.go).
const (
	// ChildEnv marks the supervised child, and every process it starts.
	ChildEnv = "LADDER_CHILD"
	// EventsEnv names the child's end of the events pipe: a file
	// descriptor on Unix, a handle on Windows, in decimal.
	EventsEnv = "LADDER_EVENTS_FD"
	// ResultsEnv names a folder where the parent writes what it saw, one
	// file per test binary, for the ladder command to grade from. Output
	// printed by the learner's code cannot forge it.
	ResultsEnv = "LADDER_RESULTS"
	// SuperviseEnv set to 0 turns the supervisor off, for debugging the
	// runner itself.
	SuperviseEnv = "LADDER_SUPERVISE"
)

// SupervisorEnv lists the variables the supervisor sets for itself: the
// ladder command clears them from the environment it grades in, whatever
// its caller's holds.
var SupervisorEnv = []string{ChildEnv, EventsEnv, ResultsEnv, SuperviseEnv}

// The kinds of Event.
const (
	// RunStart and RunEnd frame one spec's run of its cases.
	RunStart = "run-start"
	RunEnd   = "run-end"
	// CaseStart and CaseEnd frame one case; CaseEnd carries its verdict.
	CaseStart = "case-start"
	CaseEnd   = "case-end"
	// Closed, on the pipe only: the runner saw stdout or stderr (in
	// Report) closed, just before the event that follows.
	Closed = "closed"
	// Race, from the supervisor: a report of the race detector, in
	// Report, with the case that was open when it came, if any.
	Race = "race"
	// Exit, from the supervisor, always last: how the child ended.
	Exit = "exit"
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

// Event is one line the runner writes to the supervisor, and one line of a
// results file.
type Event struct {
	// Kind is one of the kinds above: RunStart, CaseEnd, Exit...
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

	// For Exit: the package folder, the child's exit status or signal,
	// whether it ran to its end, and if not, why.
	Dir      string `json:"dir,omitempty"`
	Status   int    `json:"status,omitempty"`
	Signal   string `json:"signal,omitempty"`
	Complete bool   `json:"complete,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Crash is the start of what the runtime printed when the child
	// died of a fatal error or an unrecovered panic: the message, then
	// the frames of the learner's own files, as file:line.
	Crash string `json:"crash,omitempty"`
}

// Line is the event as the runner and the supervisor write it: JSON on
// one line, with its newline. An Event holds only strings, numbers and
// booleans, which always encode.
func (e Event) Line() []byte {
	b, _ := json.Marshal(e)
	return append(b, '\n')
}
