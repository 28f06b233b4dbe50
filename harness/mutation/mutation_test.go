package mutation

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// counter is a toy implementation: Count is the number of Hit calls, or
// with skipFirst, one fewer.
type counter struct {
	n         int
	skipFirst bool
}

func (c *counter) Hit() {
	if c.skipFirst {
		c.skipFirst = false
		return
	}
	c.n++
}

func (c *counter) Count() int { return c.n }

func hitsCase(name string, hits int, skipFirst bool) timeline.Case[*counter] {
	steps := []timeline.Step[*counter]{}
	for range hits {
		steps = append(steps, timeline.At(0, timeline.Call[*counter]{
			Method: "Hit",
			Do:     func(c *counter, _ time.Time) any { c.Hit(); return nil },
		}))
	}
	steps = append(steps, timeline.At(0, timeline.Call[*counter]{
		Method: "Count",
		Do:     func(c *counter, _ time.Time) any { return c.Count() },
		Want:   hits,
	}))
	return timeline.Case[*counter]{Name: name, Part: 1, Setup: "New()", New: func(clock.Clock) *counter { return &counter{skipFirst: skipFirst} }, Steps: steps}
}

func TestPassesARightCounter(t *testing.T) {
	Passes(t, "a right counter", 0, []timeline.Case[*counter]{hitsCase("none", 0, false), hitsCase("three", 3, false)})
}

// toy is a spec of the toy counter: a constructor is whether it skips the
// first hit, and a fuzz seed's length is its number of hits.
var toy = SpecOf(func(skipFirst bool) []timeline.Case[*counter] {
	return []timeline.Case[*counter]{hitsCase("none", 0, skipFirst), hitsCase("three", 3, skipFirst)}
}, [][]byte{{0}, {1, 2, 3}}, func(skipFirst bool, data []byte) timeline.Case[*counter] {
	return hitsCase("fuzz", len(data), skipFirst)
})

func TestCaughtRunsASubtestPerMutant(t *testing.T) {
	Caught(t, "skips the first hit", 1, []timeline.Case[*counter]{hitsCase("none", 0, true), hitsCase("three", 3, true)})
}

// CatchesMutants runs a subtest per mutant, then writes the table of the
// cases each fails.
func TestCatchesMutantsRunsASubtestPerMutant(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv(protocol.UpdateMistakesEnv, "1")
	toy.CatchesMutants(t, []Impl[bool]{{Name: "skips the first hit", Part: 1, New: true}})
	m, err := protocol.ReadMistakes(protocol.MistakesFile)
	if err != nil || len(m.Mistakes) != 1 || !slices.Equal(m.Mistakes[0].Fails[1], []string{"three"}) {
		t.Errorf("the table written = %+v, %v; want the mutant failing case \"three\"", m, err)
	}
}

// racy counts from several goroutines without a lock: the mistake
// CaughtUnderRace is for.
func racy(*testing.T) {
	c := &counter{}
	timeline.Parallel(4, func(int) {
		for range 1000 {
			c.Hit()
		}
	})
}

func TestCaughtUnderRaceSeesARace(t *testing.T) {
	CaughtUnderRace(t, "a counter without a lock", racy)
}

func TestJudgeRaceChild(t *testing.T) {
	failed := exec.Command("false").Run()
	for _, tc := range []struct {
		out             string
		err             error
		caught, problem string
		skip            bool
	}{
		{"==================\nWARNING: DATA RACE\nWrite at ...\n--- FAIL: TestX\n", failed, "race detector", "", false},
		{"fatal error: concurrent map writes\n", failed, "concurrent map", "", false},
		{"ok  \tpkg\t0.1s\n", nil, "", "no longer catches", false},
		{"--- FAIL: TestX\n", failed, "", "without a data race report", false},
		{"", errors.New(`exec: "go": not found`), "", "without a data race report", false},
		{"go: -race requires cgo; enable cgo by setting CGO_ENABLED=1\n", failed, "", "", true},
	} {
		caught, problem := judgeRaceChild([]byte(tc.out), tc.err)
		if skip := caught == "" && problem == ""; skip != tc.skip || !contains(caught, tc.caught) || !contains(problem, tc.problem) {
			t.Errorf("judgeRaceChild(%q, %v) = %q, %q, want caught ~ %q, problem ~ %q, skip %t", tc.out, tc.err, caught, problem, tc.caught, tc.problem, tc.skip)
		}
	}
}

// contains is strings.Contains, except that an empty want asks for an
// empty s.
func contains(s, want string) bool {
	if want == "" {
		return s == ""
	}
	return strings.Contains(s, want)
}

func TestRunPatternMatchesOneTest(t *testing.T) {
	if got, want := runPattern("TestSpec/part_3.x"), `^TestSpec$/^part_3\.x$`; got != want {
		t.Errorf("runPattern = %q, want %q", got, want)
	}
}

// TestCaughtPlaysOnlyItsPart: a mutant that only part 1 catches is caught
// there, passes part 2, and part 1's cases are not built for part 2; a
// stub is no mutant at all.
func TestCaughtPlaysOnlyItsPart(t *testing.T) {
	built := map[int]int{} // cases built, by part
	cases := func(skipFirst bool) []timeline.Case[*counter] {
		one, two := hitsCase("three", 3, skipFirst), hitsCase("none", 0, skipFirst)
		two.Part = 2
		for _, c := range []*timeline.Case[*counter]{&one, &two} {
			part, newC := c.Part, c.New
			c.New = func(clk clock.Clock) *counter { built[part]++; return newC(clk) }
		}
		return []timeline.Case[*counter]{one, two}
	}
	for _, tc := range []struct {
		part     int
		caught   []string
		problems int
	}{{1, []string{"three"}, 0}, {2, nil, 1}} {
		clear(built)
		rec := &recorder{TB: t}
		caught := judgePart(rec, "skips the first hit", tc.part, cases(true))
		if !slices.Equal(caught, tc.caught) || len(rec.errors) != tc.problems || len(built) != 1 || built[tc.part] != 1 {
			t.Errorf("judgePart(part %d) caught %q with problems %q, building %v cases by part; want %q, %d problems, one case of part %d built",
				tc.part, caught, rec.errors, built, tc.caught, tc.problems, tc.part)
		}
	}
	stub := hitsCase("one", 1, false)
	stub.Steps[0].Call.Do = func(*counter, time.Time) any { Unwritten("Counter.Hit"); return nil }
	rec := &recorder{TB: t}
	if judgePart(rec, "a stub", 1, []timeline.Case[*counter]{stub}); len(rec.errors) != 2 || !strings.Contains(rec.errors[0], "must be a complete implementation") {
		t.Errorf("judgePart(a stub) = problems %q, want the not-implemented case and no catch", rec.errors)
	}
}

// recorder keeps the errors reported to it instead of failing its TB.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
