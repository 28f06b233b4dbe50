// Package protocol is what the specs' test binaries and the ladder command
// share: a case's line of output, each spec's cases and known mistakes. It
// imports only the standard library, so the command builds fast.
package protocol

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// GradeEnv, set to 1 by the ladder command, makes the runner write each
// case's outcome as a line of its subtest's output (see CaseLine).
const GradeEnv = "LADDER_GRADE"

// CaseEnd is the Kind of a case's Event.
const CaseEnd = "case-end"

// A case's verdicts, from best to worst.
const (
	Pass           = "pass"            // every step gave its result
	Fail           = "fail"            // some step gave another result, or the probe failed
	NotImplemented = "not implemented" // a stub's "not implemented" panic
	Panicked       = "panicked"        // any other panic
	Exited         = "exited"          // the goroutine ended without returning: runtime.Goexit
	TimedOut       = "timed out"       // the case did not finish in time
)

// Event is a case's outcome, as the runner writes it (see CaseLine).
type Event struct {
	Kind    string `json:"e"`              // CaseEnd
	Test    string `json:"test,omitempty"` // "TestHitCounter/part_1/a_hit"
	Name    string `json:"case,omitempty"`
	Part    int    `json:"part,omitempty"`
	Fuzz    bool   `json:"fuzz,omitempty"` // built by a fuzz target
	Verdict string `json:"verdict,omitempty"`
	Step    int    `json:"step,omitempty"` // the first step, from 1, that went wrong
	Report  string `json:"report,omitempty"`
	Brief   string `json:"brief,omitempty"`   // Report cut to one screen
	Summary string `json:"summary,omitempty"` // the first wrong call, "Count(t=4s) = 3, want 5"
	Missing string `json:"missing,omitempty"` // the method a stub's panic named
	Where   string `json:"where,omitempty"`   // the stub's line
}

// caseMark starts a case's line in a subtest's output.
const caseMark = "ladder-case: "

// CaseLine is a case's outcome as one line of its subtest's output.
func CaseLine(e Event) string {
	b, _ := json.Marshal(e)
	return caseMark + string(b)
}

// FindCase returns the last case line in a subtest's output.
func FindCase(output string) (Event, bool) {
	line, _, _ := strings.Cut(output[max(strings.LastIndex(output, caseMark), 0):], "\n")
	line, found := strings.CutPrefix(line, caseMark)
	var e Event
	if !found || json.Unmarshal([]byte(line), &e) != nil || e.Kind != CaseEnd {
		return Event{}, false
	}
	return e, true
}

// Launch is how the class report's checker starts the student's child.
type Launch struct {
	Path string   `json:"path"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
}

// LaunchEnv is the environment variable that holds a Launch, as JSON.
const LaunchEnv = "LADDER_REMOTE_CHILD"

// Frame is one function of a Go traceback, and its place.
type Frame struct {
	Function string // without its import path: "(*Store).Put"
	File     string
	Line     int
}

// FrameOf reads one frame of a traceback: its function line,
// "pkg.f(0x1, 0x2)" or "created by pkg.g in goroutine 7", and the line
// under it, "\t/path/f.go:12 +0x1d".
func FrameOf(fn, loc string) Frame {
	fn, _, _ = strings.Cut(strings.TrimPrefix(strings.TrimSpace(fn), "created by "), " in goroutine ")
	if j := strings.LastIndex(fn, "("); j > 0 && strings.HasSuffix(fn, ")") {
		fn = fn[:j]
	}
	loc = strings.TrimSpace(loc)
	if j := strings.LastIndex(loc, " +0x"); j >= 0 {
		loc = loc[:j]
	}
	f := Frame{Function: ShortFunc(fn), File: loc}
	if j := strings.LastIndex(loc, ":"); j >= 0 {
		f.File = loc[:j]
		f.Line, _ = strconv.Atoi(loc[j+1:])
	}
	return f
}

// ShortFunc drops a function's import path: "(*Store).Put".
func ShortFunc(fn string) string {
	fn = fn[strings.LastIndex(fn, "/")+1:]
	if _, after, ok := strings.Cut(fn, "."); ok {
		return after
	}
	return fn
}

// CutLine is the first line of s, cut to width runes ending in "…".
func CutLine(s string, width int) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > width {
		s = string(r[:width-1]) + "…"
	}
	return s
}

// Each spec keeps its list of cases and its table of known mistakes as
// golden files: a part is done only when every listed case reported, so a
// case a flag or os.Args made vanish cannot read as done. Each variable set
// to 1 makes the spec's test rewrite its stale file.
const (
	ManifestFile      = "testdata/cases.json"
	MistakesFile      = "testdata/mistakes.json"
	UpdateManifestEnv = "LADDER_UPDATE_MANIFEST"
	UpdateMistakesEnv = "LADDER_UPDATE_MISTAKES"
)

// Manifest is the list of a spec's cases.
type Manifest struct {
	Cases []ManifestCase `json:"cases"`
}

// ManifestCase is one case a spec defines.
type ManifestCase struct {
	Part      int    `json:"part"`
	Name      string `json:"name"`
	Needs     string `json:"needs,omitempty"`     // what it needs beyond Go: "redis-server"
	InProcess string `json:"inProcess,omitempty"` // see timeline.Case
}

// Mistakes is a spec's table of known mistakes.
type Mistakes struct {
	Mistakes []Mistake `json:"mistakes"`
	// Blind lists, by part, the cases that tell the mistakes nothing (the
	// mutants' shared base fails them, their verdict varies, or the table's
	// test cannot play them); the match leaves them out.
	Blind map[int][]string `json:"blind,omitempty"`
}

// Mistake is one mutant and the cases it fails.
type Mistake struct {
	Part  int              `json:"part"` // the first part whose cases catch it
	Name  string           `json:"name"` // as the interviewer's guide cites it
	Why   string           `json:"why,omitempty"`
	Fails map[int][]string `json:"fails"` // by part up to Part, the spec cases it fails
}

// Encode writes the list as ManifestFile holds it.
func (m Manifest) Encode() []byte { return jsonLines("cases", m.Cases, nil) }

// Encode writes the table as MistakesFile holds it.
func (m Mistakes) Encode() []byte { return jsonLines("mistakes", m.Mistakes, m.Blind) }

// jsonLines writes {"key": [...]} with one item a line, so that a diff
// shows which one moved, and then blind, if any.
func jsonLines[T any](key string, items []T, blind map[int][]string) []byte {
	b := fmt.Appendf(nil, "{%q: [\n", key)
	for i, it := range items {
		line, _ := json.Marshal(it)
		b = fmt.Appendf(b, "  %s%s\n", line, map[bool]string{true: ","}[i < len(items)-1])
	}
	if b = append(b, ']'); len(blind) > 0 {
		j, _ := json.Marshal(blind)
		b = fmt.Appendf(b, ",\n\"blind\": %s", j)
	}
	return append(b, "}\n"...)
}

// ReadManifest reads a spec's list of cases.
func ReadManifest(path string) (Manifest, error) { return read[Manifest](path) }

// ReadMistakes reads a spec's table of known mistakes.
func ReadMistakes(path string) (Mistakes, error) { return read[Mistakes](path) }

// read reads path as one JSON value, refusing unknown fields: they are a
// mistake to report, never to skip.
func read[T any](path string) (v T, err error) {
	data, err := os.ReadFile(path)
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err = dec.Decode(&v); err != nil {
			err = fmt.Errorf("%s: %v", path, err)
		}
	}
	return v, err
}

// The matching rule: the overlap of the learner's failing cases F and a
// mistake's S is |F∩S| / |F∪S|; mistakes that fail the same set are one
// candidate. The best is named when its overlap is 1 and no other's is, or
// when it is at least MatchAtLeast and beats the second by MatchMargin.
const (
	MatchAtLeast = 0.8
	MatchMargin  = 0.25
)

// Candidate is the mistakes that fail one same set of a part's cases, and
// its overlap with the learner's.
type Candidate struct {
	Mistakes []Mistake
	Overlap  float64
}

// Match is the candidates for a learner's failing cases of one part, best
// first, and the one the rule names, if any.
type Match struct {
	Candidates []Candidate
	Best       int // the index of the named one, or -1
}

// Named returns the names of the named candidate's mistakes, or nil.
func (m Match) Named() []string {
	var out []string
	for i := 0; m.Best >= 0 && i < len(m.Candidates[m.Best].Mistakes); i++ {
		out = append(out, m.Candidates[m.Best].Mistakes[i].Name)
	}
	return out
}

// Names says whether the named candidate holds the mistake called name.
func (m Match) Names(name string) bool { return slices.Contains(m.Named(), name) }

// Match compares the failing cases of one part, but the blind ones, with
// each known mistake that fails some case of that part.
func (m Mistakes) Match(part int, failing []string) Match {
	out := Match{Best: -1}
	set := func(cases []string) []string { return slices.Compact(slices.Sorted(slices.Values(cases))) }
	failing = set(slices.DeleteFunc(slices.Clone(failing), func(c string) bool { return slices.Contains(m.Blind[part], c) }))
	bySet := map[string]int{}
	for _, k := range m.Mistakes {
		s := set(k.Fails[part])
		both := len(slices.DeleteFunc(slices.Clone(s), func(c string) bool { return !slices.Contains(failing, c) }))
		if i, ok := bySet[strings.Join(s, "\x00")]; ok {
			out.Candidates[i].Mistakes = append(out.Candidates[i].Mistakes, k)
		} else if both > 0 {
			bySet[strings.Join(s, "\x00")] = len(out.Candidates)
			out.Candidates = append(out.Candidates, Candidate{[]Mistake{k}, float64(both) / float64(len(failing)+len(s)-both)})
		}
	}
	slices.SortStableFunc(out.Candidates, func(a, b Candidate) int { return cmp.Compare(b.Overlap, a.Overlap) })
	var top [2]float64 // the best overlap and the second, 0 for none
	for i := range min(2, len(out.Candidates)) {
		top[i] = out.Candidates[i].Overlap
	}
	if best, second := top[0], top[1]; (best == 1 && second < 1) || (best >= MatchAtLeast && best-second >= MatchMargin) {
		out.Best = 0
	}
	return out
}
