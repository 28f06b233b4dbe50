// Package timeline is the runner every level's spec is written for.
//
// A Case is a table: a fresh implementation, then calls made at offsets from
// a start instant, each with the result it should give. The runner drives one
// Fake clock, hands each call its time, and on failure prints the whole
// timeline with a marker on every step that differs, so a learner sees where
// their code first went its own way.
//
// A stub's "not implemented" panic is reported as such, not as a wrong answer;
// any other panic is reported with the step that caused it; a case that never
// returns is cut off after a few seconds. The rest of the suite still runs.
package timeline

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Case is one timeline, or one free-form check, against a fresh implementation.
type Case[T any] struct {
	// Name is the subtest name. It is written as words separated by spaces
	// and contains no slash, so a learner can find it in the spec file.
	// A fuzz target's case, played by RunCase, may be named "fuzz": the
	// runner then names it for its input, which may hold a path.
	Name string
	// Part is the part of the level's README that this case checks, from 1.
	Part int
	// Setup is how the implementation is built, as the failure report shows
	// it: "New(10s)".
	Setup string
	// New builds the implementation. Levels that take the time as an
	// argument ignore clk; levels 7 and 8 keep it.
	New func(clk clock.Clock) T
	// Start is the instant of offset 0. The zero Time means clock.Epoch.
	Start time.Time
	// Clocked says the implementation reads the clock rather than taking the
	// time as an argument. It changes only how calls are written in messages:
	// "at t=4s: QPS(Put, 5m)" instead of "Count(t=4s)".
	Clocked bool
	// Steps are the calls, in order. Offsets may repeat and may go
	// backwards: the runner sets the clock to each step's instant.
	Steps []Step[T]
	// Probe, if set, runs after the steps, for what a timeline cannot say:
	// allocations, memory, concurrency. It returns nil or an error that
	// explains the failure with the numbers involved.
	Probe func(impl T, clk *clock.Fake) error
	// InProcess, if set, says why the probe can only be measured inside the
	// process that runs the implementation: "allocations". The class
	// report's checker plays such a case's steps against the student's
	// child process, and leaves the probe to the student's own test
	// binary, whose verdict a forger could fake (see PlayElsewhere).
	InProcess string
}

// Step is one call at an offset from the case's start.
type Step[T any] struct {
	At   time.Duration
	Call Call[T]
}

// At is the short way to write a Step in a table: At(10*sec, count(1)).
func At[T any](offset time.Duration, call Call[T]) Step[T] {
	return Step[T]{At: offset, Call: call}
}

// Call is a method call and the result it should give.
type Call[T any] struct {
	// Method is the method's name, such as "Count".
	Method string
	// Args are shown after the time: Count(t=4s, "latte"). Strings are
	// quoted and durations written short.
	Args []any
	// Do makes the call and returns its result, or nil for a method that
	// returns nothing. Return several results as one value: a small struct
	// with exported fields, or a string.
	Do func(impl T, now time.Time) any
	// Want is the result the call must give, compared with cmp.Equal.
	Want any
	// Opts are passed to cmp.Equal and cmp.Diff.
	Opts []cmp.Option
	// Accept, if set, replaces the comparison with Want, for calls whose
	// answer may lie in a range; Want then describes the range in words.
	Accept func(got any) bool
}

// Verdict is how a case ended.
type Verdict int

// The verdicts, from best to worst.
const (
	Pass           Verdict = iota // every step gave its result
	Fail                          // some step gave another result, or the probe failed
	NotImplemented                // a stub's "not implemented" panic
	Panicked                      // any other panic
	Exited                        // the goroutine ended without returning: runtime.Goexit
	TimedOut                      // the case did not finish in time
)

var verdictNames = [...]string{protocol.Pass, protocol.Fail, protocol.NotImplemented, protocol.Panicked, protocol.Exited, protocol.TimedOut}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Outcome is what Play found.
type Outcome struct {
	Case    string
	Part    int
	Verdict Verdict
	// Step is the first step, from 1, that went wrong; 0 when no step did
	// (a probe failed, or the constructor panicked).
	Step int
	// Report explains a verdict other than Pass, ready to print.
	Report string
	// Brief is Report cut to one screen: the case, what is wrong, the
	// first wrong call and the steps around it. Summary is one line: the
	// first wrong call as "Count(t=4s) = 3, want 5", or what happened.
	Brief   string
	Summary string
	// Missing is the method a stub's panic named, and Where the line of the
	// learner's file that panicked ("ladder/01-hit-counter/hitcounter.go:21"),
	// for NotImplemented.
	Missing string
	Where   string
}

// TimeoutEnv names the environment variable that overrides DefaultTimeout
// for one case, as a Go duration such as "30s".
const TimeoutEnv = "LADDER_CASE_TIMEOUT"

// DefaultTimeout is how long a case may run before it is reported as stuck.
// A correct implementation finishes any case in a small fraction of it, even
// under the race detector on a slow machine.
const DefaultTimeout = 10 * time.Second

func caseTimeout() time.Duration {
	if s := os.Getenv(TimeoutEnv); s != "" {
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			return d
		}
	}
	return DefaultTimeout
}

// Run runs cases as subtests, grouped by part: "part 1/a hit at the
// epoch". A learner can run one part with go test -run '/part_2'. Each case
// is a subtest of its own, so that go test -json says which ran to their
// end: a test binary that dies part way leaves its case without one.
func Run[T any](t *testing.T, cases []Case[T]) {
	t.Helper()
	if err := validate(cases); err != nil {
		t.Fatalf("the spec itself is wrong: %v", err)
	}
	notePartsOfMethods(cases)
	if os.Getenv(protocol.GradeEnv) != "" {
		t.Log(protocol.RunMark)
	}
	byPart := map[int][]Case[T]{}
	var parts []int
	for _, c := range cases {
		if c.InProcess != "" && elsewhere() {
			if len(c.Steps) == 0 {
				continue
			}
			c.Probe = nil
		}
		if _, seen := byPart[c.Part]; !seen {
			parts = append(parts, c.Part)
		}
		byPart[c.Part] = append(byPart[c.Part], c)
	}
	sort.Ints(parts)
	for _, p := range parts {
		t.Run(fmt.Sprintf("part %d", p), func(t *testing.T) {
			t.Helper()
			for _, c := range byPart[p] {
				t.Run(c.Name, func(t *testing.T) {
					// Helpers all the way up, so that a failure points at
					// the learner's test file, where the spec is called.
					t.Helper()
					RunCase(t, c)
				})
			}
		})
	}
}

// RunCase plays one case in the current test and reports its outcome. Fuzz
// targets use it, so a timeline found by the fuzzer is shown like any other;
// its part is then the part of the call that went wrong, if that is later
// than the timeline's own, and a case named "fuzz" (or not named) is named
// for what it is: see fuzzName. A timeline is never charged to an earlier
// part than its own: one of part 2 that goes back in time fails at a call
// of part 1 in code written for part 1 only.
func RunCase[T any](t *testing.T, c Case[T]) {
	t.Helper()
	fuzz := strings.HasPrefix(t.Name(), "Fuzz")
	if fuzz && (c.Name == "" || c.Name == "fuzz") {
		c.Name = fuzzName(t.Name(), len(c.Steps))
	}
	o := Play(c)
	if fuzz && o.Verdict != Pass && o.Step >= 1 && o.Step <= len(c.Steps) {
		if p := partOfMethod(c.Steps[o.Step-1].Call.Method); p > o.Part {
			from, to := fmt.Sprintf("(part %d)", o.Part), fmt.Sprintf("(part %d)", p)
			o.Report = strings.Replace(o.Report, from, to, 1)
			o.Brief = strings.Replace(o.Brief, from, to, 1)
			o.Part = p
		}
	}
	if os.Getenv(protocol.GradeEnv) != "" {
		// For the ladder command, which reads go test -json: the
		// outcome as one line of this subtest's output (see
		// protocol.CaseLine). It counts only if the subtest passes too.
		line := protocol.CaseLine(protocol.Event{Kind: protocol.CaseEnd, Test: t.Name(), Case: c.Name, Part: o.Part, Fuzz: fuzz,
			Verdict: o.Verdict.String(), Step: o.Step, Report: capReport(o.Report),
			Brief: capReport(o.Brief), Summary: capReport(o.Summary), Missing: o.Missing, Where: o.Where})
		if o.Verdict != Pass {
			t.Error(line)
		} else {
			t.Log(line)
		}
		return
	}
	if o.Verdict != Pass {
		t.Error(o.Report)
	}
}

// maxReport is the most of a report a case's line carries.
const maxReport = 32 << 10

func capReport(s string) string {
	if len(s) <= maxReport {
		return s
	}
	return s[:maxReport] + "\n… (report cut)"
}

// Fuzz is the body of a spec's fuzz target: it adds the seeds to f, and
// plays with RunCase the case that decode makes of each input, built with
// newT. A spec's Fuzz is one call to it:
//
//	func Fuzz[L Logger](f *testing.F, newLogger func(interval time.Duration) L) {
//		timeline.Fuzz(f, fuzzSeeds, timeline.Erase[Logger](newLogger), fuzzCase)
//	}
func Fuzz[T, N any](f *testing.F, seeds [][]byte, newT N, decode func(newT N, data []byte) Case[T]) {
	f.Helper()
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		RunCase(t, decode(newT, data))
	})
}

// fuzzName names a fuzz case from its test's name, which says where the
// input came from: "FuzzX/seed#3" is the spec's fourth f.Add, "FuzzX/3a9f…"
// a file of the corpus, and plain "FuzzX" an input the fuzzer is trying now.
func fuzzName(test string, steps int) string {
	what := fmt.Sprintf("fuzz: random timeline of %d steps", steps)
	if steps == 1 {
		what = "fuzz: random timeline of 1 step"
	}
	target, input, ok := strings.Cut(test, "/")
	switch {
	case !ok:
		return what + " (made by the fuzzer just now)"
	case strings.HasPrefix(input, "seed#"):
		return fmt.Sprintf("%s (%s in spec/fuzz.go)", what, input)
	}
	saved := filepath.Join("testdata", "fuzz", target, input)
	if _, err := os.Stat(saved); err == nil {
		return fmt.Sprintf("%s (found by the fuzzer, saved in %s)", what, filepath.ToSlash(saved))
	}
	return fmt.Sprintf("%s (found by the fuzzer, input %s in its cache)", what, input)
}

// methodParts maps a method to the first part whose cases call it, from
// the cases Run has seen in this test binary.
var methodParts sync.Map

func notePartsOfMethods[T any](cases []Case[T]) {
	for _, c := range cases {
		for _, s := range c.Steps {
			for {
				old, loaded := methodParts.LoadOrStore(s.Call.Method, c.Part)
				if !loaded || old.(int) <= c.Part || methodParts.CompareAndSwap(s.Call.Method, old, c.Part) {
					break
				}
			}
		}
	}
}

func partOfMethod(method string) int {
	if p, ok := methodParts.Load(method); ok {
		return p.(int)
	}
	return 0
}

// PlayAll plays every case and returns their outcomes in order. Spec tests
// use it to check that a wrong implementation is caught.
func PlayAll[T any](cases []Case[T]) []Outcome {
	out := make([]Outcome, len(cases))
	for i, c := range cases {
		out[i] = Play(c)
	}
	return out
}

// Catches fails t unless a wrong implementation fails at least one case of
// the given part (0: of any part). The cases passed in must be built with
// that implementation. It is the mutation check that keeps a spec from
// growing weaker unnoticed: naming the part makes sure a mutant is caught
// by the cases meant for its mistake, not by accident elsewhere. It plays
// only the cases of that part, and returns the names of those that caught
// it.
func Catches[T any](t *testing.T, mutant string, part int, cases []Case[T]) []string {
	t.Helper()
	caught, problems := judgeMutant(mutant, part, cases)
	for _, p := range problems {
		t.Error(p)
	}
	return caught
}

// judgeMutant plays the cases of part (0: every case) and returns those
// that caught the mutant, and what is wrong: a case the mutant did not
// play to an end, or no case that caught it.
func judgeMutant[T any](mutant string, part int, cases []Case[T]) (caught, problems []string) {
	if part > 0 {
		// Only part's cases can catch it, so only they are played: a
		// mutant of part 1 need not wait for part 5's hundred thousand
		// clients.
		cases = slices.DeleteFunc(slices.Clone(cases), func(c Case[T]) bool { return c.Part != part })
	}
	return JudgeOutcomes(mutant, part, PlayAll(cases))
}

// JudgeOutcomes judges what a mutant's cases gave, as Catches does: the
// outcomes of part (0: of every part) catch it, each one to its end.
func JudgeOutcomes(mutant string, part int, outcomes []Outcome) (caught, problems []string) {
	for _, o := range outcomes {
		if part > 0 && o.Part != part {
			continue
		}
		switch o.Verdict {
		case Pass:
		case NotImplemented, TimedOut, Exited:
			problems = append(problems, fmt.Sprintf("mutant %q: case %q ended as %q; a mutant must be a complete implementation:\n%s", mutant, o.Case, o.Verdict, o.Report))
		default:
			caught = append(caught, o.Case)
		}
	}
	if len(caught) == 0 {
		where := "any case"
		if part > 0 {
			where = fmt.Sprintf("any case of part %d", part)
		}
		problems = append(problems, fmt.Sprintf("mutant %q passes %s: the spec no longer catches this wrong implementation", mutant, where))
	}
	return caught, problems
}

func validate[T any](cases []Case[T]) error {
	seen := map[string]bool{}
	for i, c := range cases {
		switch {
		case c.Name == "":
			return fmt.Errorf("case %d has no name", i)
		case strings.Contains(c.Name, "/"):
			return fmt.Errorf("case %q: a name must not contain a slash", c.Name)
		case seen[c.Name]:
			return fmt.Errorf("case %q appears twice", c.Name)
		case c.Part < 1:
			return fmt.Errorf("case %q: Part is %d, want 1 or more", c.Name, c.Part)
		case c.New == nil:
			return fmt.Errorf("case %q has no constructor", c.Name)
		case len(c.Steps) == 0 && c.Probe == nil:
			return fmt.Errorf("case %q has neither steps nor a probe", c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}
