package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/guide"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/levels"
)

// syntaxError is a candidate's fixture level that does not compile.
const syntaxError = "package tally\n\nfunc New( {\n"

// testInterview is an interview of level l in root, with a fake clock that
// starts at a whole second of today, no terminal, and the real grader.
func testInterview(t *testing.T, root string, l levels.Level, out *bytes.Buffer) (*interview.Interview, *clock.Fake, chan struct{}) {
	t.Helper()
	fake := clock.NewFake()
	// Today, not the epoch: make hint-N in the same test reads the real
	// clock to know whether the interview is still on.
	fake.Set(time.Now().Truncate(time.Second))
	changes := make(chan struct{}, 1)
	iv := &interview.Interview{
		Terminal: interview.Terminal{Out: out, Changes: changes},
		Root:     root, Level: l, Budget: interview.DefaultBudget, Clock: fake,
		Grade: func(upTo int) (grade.Level, error) { return gradeUpTo(root, l, upTo) },
		Reset: func() int { t.Fatal("reset offered for a fresh stub"); return 1 },
	}
	return iv, fake, changes
}

func TestInterviewPlaysALevelPartByPart(t *testing.T) {
	slow(t, "runs the fixture level's tests four times on a copy of the ladder", "go")
	root, l := fixtureLadder(t)
	stub := filepath.Join(root, l.Dir, "tally.go")
	var out bytes.Buffer
	iv, fake, changes := testInterview(t, root, l, &out)
	start := fake.Now()

	save := func(src string, after time.Duration) {
		t.Helper()
		require.NoError(t, os.WriteFile(stub, []byte(src), 0o644))
		fake.Advance(after)
		changes <- struct{}{}
	}
	noPart2 := func(when string) {
		t.Helper()
		for _, secret := range []string{"## Part 2", "Start again", "start again", "Reset", "## Run it", "## Hint"} {
			if strings.Contains(out.String(), secret) {
				t.Fatalf("%s, the log shows %q:\n%s", when, secret, out.String())
			}
		}
	}
	var hintOut bytes.Buffer
	step := 0
	iv.BeforeWait = func() {
		step++
		switch step {
		case 1:
			noPart2("at the start")
			containsAll(t, out.String(), "Checking that level 1 is a fresh stub", "You have 45m00s", "# Level 1: Tally", "## The API", "## Part 1: Count the calls")
			save(syntaxError, 3*time.Minute)
		case 2:
			require.Contains(t, out.String(), "--- part 1, run 1, 42m00s left")
			require.Contains(t, out.String(), "level 1: does not compile")
			noPart2("after a run that does not compile")
			var errOut bytes.Buffer
			require.Equal(t, 0, runAt(root, []string{"hint", "1"}, &hintOut, &errOut), errOut.String())
			save(tallyHalfDone, 9*time.Minute)
		case 3:
			log := out.String()
			require.Contains(t, log, "--- part 1, run 2, 33m00s left")
			passed := strings.Index(log, "Part 1 passes, 12m00s in.")
			asked := strings.Index(log, "Good. Now: start again.\n\n## Part 2: Start again\n")
			if passed < 0 || asked < passed {
				t.Fatalf("after part 1 passed, the log does not follow up with part 2:\n%s", log)
			}
			save(tallyDone, 10*time.Minute)
		default:
			t.Fatalf("the interview waits a %dth time:\n%s", step, out.String())
		}
	}
	sum, err := runInterview(iv)
	require.NoError(t, err, out.String())
	log := out.String()
	require.Contains(t, log, "--- part 2, run 1, 23m00s left")
	require.Contains(t, log, "both parts pass, 22m00s in, with 23m00s to spare")

	want := interview.Summary{
		Level: 1, Title: "Tally", Started: start, BudgetSeconds: 45 * 60, ElapsedSeconds: 22 * 60,
		End: interview.EndPassed, FreshStub: true, Hints: 1, InScope: 2, Offered: 2,
		Parts: []interview.Part{
			{Number: 1, Title: "Count the calls", Reached: true, Passed: true, Seconds: 12 * 60, Runs: 2, Hints: 1},
			{Number: 2, Title: "Start again", Reached: true, Passed: true, Seconds: 10 * 60, Runs: 1, FirstRun: true},
		},
	}
	if diff := cmp.Diff(want, sum); diff != "" {
		t.Errorf("summary mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(hintOut.String(), "Level 1, part 1, hint 1 of 5") || !strings.Contains(hintOut.String(), "this hint counts in its summary") {
		t.Errorf("make hint-1 during the interview printed:\n%s\nwant hint 1, counted", hintOut.String())
	}
	for _, line := range []string{
		"  1     Count the calls  12m00s  2     1      passed",
		"  2     Start again      10m00s  1     0      passed on the first run",
		"Passed on the first run: part 2.",
		"Hints asked for (make hint-1 during the interview): 1.",
		"Parts not reached: none.",
	} {
		require.Contains(t, log, line+"\n")
	}
	// The question, not the answer: the README's guidance stays out of
	// what the interview prints.
	require.Contains(t, log, "## Worked examples")
	require.NotContains(t, log, "guidance")
	if strings.Contains(log, "\x1b[") {
		t.Errorf("the log has colour codes without a terminal:\n%q", log)
	}
	checkKept(t, root, sum)

	s, err := interview.Load(root)
	require.NoError(t, err)
	if s.Interview != nil {
		t.Errorf("state.json still records an interview after it ended: %+v", s.Interview)
	}

	// The level is done now: the debrief shows the guide.
	got, code := runLadder(t, root, "debrief", "1")
	require.Equal(t, 0, code, got)
	require.Contains(t, got, `The spec checks this with "counts twice".`)
}

// requireConsistent checks what every summary an interview leaves holds
// to: parts reached in order, none passed unrun, the end agreeing with the
// parts passed, the hints and the parts' times adding up, and each
// clarifying question asked in a part reached.
func requireConsistent(t *testing.T, s interview.Summary) {
	t.Helper()
	l, ok := levels.Numbered(s.Level)
	require.True(t, ok, "no level %d", s.Level)
	require.Len(t, s.Parts, len(l.Parts))
	require.True(t, s.Parts[0].Reached, "part 1 not reached")
	require.True(t, s.ElapsedSeconds >= 0 && s.ElapsedSeconds <= s.BudgetSeconds, "%ds elapsed of %ds", s.ElapsedSeconds, s.BudgetSeconds)
	total, hints, passed, reached := 0, 0, 0, true
	for i, p := range s.Parts {
		require.Equal(t, l.Parts[i].Number, p.Number)
		require.False(t, p.Reached && !reached, "part %d reached after a part that was not", p.Number)
		require.False(t, p.Passed && (!p.Reached || p.Runs == 0), "part %d passed without a run", p.Number)
		require.False(t, p.Reached && i >= s.OfferedParts(), "part %d reached, though it is take-home", p.Number)
		reached = p.Reached
		total += p.Seconds
		hints += p.Hints
		if p.Passed {
			passed++
		}
	}
	require.Equal(t, s.End == interview.EndPassed, passed == s.OfferedParts(), "ended %q with %d of %d parts passed", s.End, passed, s.OfferedParts())
	require.Equal(t, hints, s.Hints, "the parts' hints")
	require.LessOrEqual(t, s.MistakesNamed, s.Hints)
	require.LessOrEqual(t, total, s.ElapsedSeconds+len(s.Parts), "each part's time is rounded on its own")
	require.LessOrEqual(t, len(s.Asked), s.Questions)
	for _, a := range s.Asked {
		require.True(t, s.Parts[a.Part-1].Reached && a.Runs <= s.Parts[a.Part-1].Runs, "a question asked in part %d after %d runs", a.Part, a.Runs)
	}
}

// checkKept checks the summary kept in .ladder/interviews/, as JSON.
func checkKept(t *testing.T, root string, sum interview.Summary) {
	t.Helper()
	base := filepath.Join(root, interview.StateDir, interview.InterviewsDir, "level-"+strconv.Itoa(sum.Level)+"-"+sum.Started.Format("20060102-150405"))
	data, err := os.ReadFile(base + ".json")
	require.NoError(t, err)
	var kept interview.Summary
	require.NoError(t, json.Unmarshal(data, &kept))
	if diff := cmp.Diff(sum, kept, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("kept JSON mismatch (-want +got):\n%s", diff)
	}
}

// fakeGrader stands in for the tests of a level: each part passes once
// pass says so, and until then its one case ends with verdict.
type fakeGrader struct {
	l       levels.Level
	pass    map[int]bool
	verdict string
	runs    []int // the parts asked for (1 to upTo), in order
}

func (f *fakeGrader) grade(upTo int) (grade.Level, error) {
	f.runs = append(f.runs, upTo)
	g := grade.Level{Level: f.l}
	for _, p := range f.l.Parts {
		pg := grade.Part{Number: p.Number, Title: p.Title, Total: 1}
		name := fmt.Sprintf("case of part %d", p.Number)
		switch {
		case upTo != 0 && p.Number > upTo:
			// Not run, as gradeUpTo leaves it.
			pg.Total = 0
		case f.pass[p.Number]:
			pg.Passed, pg.Done = 1, true
			pg.Cases = []grade.Case{{Name: name, Part: p.Number, Verdict: "pass"}}
		default:
			pg.Cases = []grade.Case{{Name: name, Part: p.Number, Verdict: f.verdict, Missing: "New",
				Report: fmt.Sprintf("case %q (part %d)\nNew(0) did not panic", name, p.Number)}}
		}
		g.Parts = append(g.Parts, pg)
	}
	return g, nil
}

// fakeCandidate drives an interview of level n on a copy of the level's
// README and hints alone, with the fake grader: it runs no go test at all.
type fakeCandidate struct {
	iv        *interview.Interview
	grader    *fakeGrader
	clock     *clock.Fake
	Changes   chan struct{}
	interrupt chan os.Signal
	ticks     chan time.Time
	saves     int
}

func fakeInterview(t *testing.T, n string, out *bytes.Buffer) *fakeCandidate {
	t.Helper()
	return fakeInterviewOf(t, repoRoot(t), n, out)
}

// fixtureInterview is fakeInterview of level n of useFixture's ladder.
func fixtureInterview(t *testing.T, n string, out *bytes.Buffer) *fakeCandidate {
	t.Helper()
	useFixture(t)
	return fakeInterviewOf(t, fixtureDir(t), n, out)
}

// fakeInterviewOf is fakeInterview of level n, whose files are in src.
func fakeInterviewOf(t *testing.T, src, n string, out *bytes.Buffer) *fakeCandidate {
	t.Helper()
	l, err := levels.Find(n)
	require.NoError(t, err)
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, l.Dir), 0o755))
	for _, f := range []string{"README.md", "HINTS.md"} {
		copyTree(t, filepath.Join(src, l.Dir, f), filepath.Join(root, l.Dir, f))
	}
	c := &fakeCandidate{
		grader:  &fakeGrader{l: l, pass: map[int]bool{}, verdict: "not implemented"},
		clock:   clock.NewFake(),
		Changes: make(chan struct{}, 1), interrupt: make(chan os.Signal, 1), ticks: make(chan time.Time, 1),
	}
	c.clock.Set(time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC))
	c.iv = &interview.Interview{
		Terminal: interview.Terminal{Out: out, Changes: c.Changes, Interrupt: c.interrupt},
		Root:     root, Level: l, Budget: interview.DefaultBudget, Clock: c.clock,
		Grade: c.grader.grade, Reset: func() int { t.Fatal("reset offered for a fresh stub"); return 1 },
		Ticks: c.ticks,
	}
	return c
}

// save writes the level's .go file anew after some time, as a save does.
func (c *fakeCandidate) save(t *testing.T, after time.Duration) {
	t.Helper()
	c.saves++
	src := "package level // save " + strings.Repeat("x", c.saves) + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(c.iv.Dir(), "code.go"), []byte(src), 0o644))
	c.clock.Advance(after)
	c.Changes <- struct{}{}
}

// tick moves the clock on and lets the interview look at it.
func (c *fakeCandidate) tick(after time.Duration) {
	c.clock.Advance(after)
	c.ticks <- c.clock.Now()
}

func TestInterviewEndsWhenTimeIsUpAfterTwoWarnings(t *testing.T) {
	var out bytes.Buffer
	c := fixtureInterview(t, "2", &out)
	iv, f, tick := c.iv, c.grader, c.tick
	step := 0
	iv.BeforeWait = func() {
		step++
		switch step {
		case 1:
			f.pass[1] = true
			c.save(t, 20*time.Minute)
		case 2:
			require.Contains(t, out.String(), "Good. Now: second.\n\n## Part 2: Second\n")
			if strings.Contains(out.String(), "## Part 3") {
				t.Fatalf("part 3 shown while part 2 is asked:\n%s", out.String())
			}
			f.verdict = "fail"
			c.save(t, 10*time.Minute) // part 2, run 1: fails, 15 minutes left
		case 3:
			tick(6 * time.Minute) // 9 minutes left
		case 4:
			require.Contains(t, out.String(), "10 minutes left (9m00s).")
			require.Equal(t, "[interview: level 2, part 2 of 3 · 9 min left]", lastLine(&out))
			tick(7*time.Minute + 30*time.Second) // 1m30s left
		case 5:
			require.Contains(t, out.String(), "2 minutes left (1m30s).")
			require.Equal(t, "[interview: level 2, part 2 of 3 · 1 min left]", lastLine(&out))
			tick(time.Minute) // 30s left
		case 6:
			// Saved after the time is up, before the clock's tick: no run.
			c.save(t, time.Minute)
		default:
			t.Fatalf("the interview waits a %dth time:\n%s", step, out.String())
		}
	}
	sum, err := runInterview(iv)
	require.NoError(t, err)
	log := out.String()
	for warning, want := range map[string]int{"10 minutes left": 1, "2 minutes left": 1, "Time is up.": 1} {
		if got := strings.Count(log, warning); got != want {
			t.Errorf("the log says %q %d times, want %d:\n%s", warning, got, want, log)
		}
	}
	if diff := cmp.Diff([]int{0, 1, 2}, f.runs); diff != "" {
		t.Errorf("parts tested (-want +got), 0 being the fresh-stub check:\n%s", diff)
	}
	want := interview.Summary{
		Level: 2, Title: "Fixture 2", Started: time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC),
		BudgetSeconds: 45 * 60, ElapsedSeconds: 45 * 60, End: interview.EndTimeUp, FreshStub: true, InScope: 3, Offered: 3,
		Parts: []interview.Part{
			{Number: 1, Title: "First", Reached: true, Passed: true, Seconds: 20 * 60, Runs: 1, FirstRun: true},
			{Number: 2, Title: "Second", Reached: true, Seconds: 25 * 60, Runs: 1},
			{Number: 3, Title: "Third"},
		},
	}
	if diff := cmp.Diff(want, sum); diff != "" {
		t.Errorf("summary mismatch (-want +got):\n%s", diff)
	}
	for _, line := range []string{
		"Ended after 45m00s: time was up.",
		"  2     Second  25m00s  1     0      not passed",
		"  3     Third   -       -     -      not reached",
		"Parts passed: 1 of 3.",
		"Parts not reached: part 3.",
	} {
		require.Contains(t, log, line+"\n")
	}
	checkKept(t, iv.Root, sum)
}

// lastLine is the last line of an interview's log so far.
func lastLine(out *bytes.Buffer) string {
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	return lines[len(lines)-1]
}

func TestInterviewRerunsEveryPartAskedSoFar(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		t.Run(map[bool]string{false: "stopped while part 1 is broken", true: "part 1 fixed"}[fixed], func(t *testing.T) {
			var out bytes.Buffer
			c := fixtureInterview(t, "1", &out)
			iv, f := c.iv, c.grader
			step := 0
			broke := `Part 1 broke: case "case of part 1" fails: New(0) did not panic`
			iv.BeforeWait = func() {
				step++
				switch step {
				case 1:
					require.Equal(t, "[interview: level 1, part 1 of 2 · 45 min left]", lastLine(&out))
					f.pass[1] = true
					c.save(t, 5*time.Minute)
				case 2:
					require.Contains(t, out.String(), "Good. Now: start again.")
					require.Equal(t, "[interview: level 1, part 2 of 2 · 40 min left]", lastLine(&out))
					// Part 2 passes now, and part 1, which passed, does not.
					f.pass[1], f.pass[2], f.verdict = false, true, "fail"
					c.save(t, 5*time.Minute+30*time.Second)
				case 3:
					log := out.String()
					i := strings.LastIndex(log, "--- part 2, run 1, 34m30s left")
					require.GreaterOrEqual(t, i, 0, log)
					run := log[i:]
					if _, after, _ := strings.Cut(run, "-\n"); !strings.HasPrefix(after, broke+"\n\nLevel 1: Tally\n") {
						t.Fatalf("the run does not start with part 1's regression:\n%s", run)
					}
					require.Contains(t, run, "part 1, count the calls: 0 of 1 case passes\n")
					require.Contains(t, run, "part 2, start again: done (1/1)\n")
					require.NotContains(t, log, "both parts pass")
					require.Equal(t, "[interview: level 1, part 2 of 2 · 34 min left]", lastLine(&out))
					if !fixed {
						c.interrupt <- os.Interrupt
						return
					}
					f.pass[1] = true
					c.save(t, time.Minute)
				default:
					t.Fatalf("the interview waits a %dth time:\n%s", step, out.String())
				}
			}
			sum, err := runInterview(iv)
			require.NoError(t, err)
			wantRuns := []int{0, 1, 2}
			if fixed {
				wantRuns = append(wantRuns, 2)
			}
			if diff := cmp.Diff(wantRuns, f.runs); diff != "" {
				t.Errorf("parts tested up to (-want +got), 0 being the fresh-stub check:\n%s", diff)
			}
			want := []interview.Part{
				{Number: 1, Title: "Count the calls", Reached: true, Passed: fixed, Seconds: 5 * 60, Runs: 1, Regressions: 1},
				{Number: 2, Title: "Start again", Reached: true, Passed: fixed, Seconds: 5*60 + 30, Runs: 1},
			}
			wantEnd := interview.EndStopped
			if fixed {
				want[1].Seconds, want[1].Runs, wantEnd = 6*60+30, 2, interview.EndPassed
			}
			if diff := cmp.Diff(want, sum.Parts); diff != "" {
				t.Errorf("parts in the summary (-want +got):\n%s", diff)
			}
			require.Equal(t, wantEnd, sum.End)
			if !fixed {
				require.Contains(t, out.String(), "  1     Count the calls  5m00s  1     0      not passed\n")
				require.Contains(t, out.String(), "Parts passed: 0 of 2.\n")
			} else {
				require.Contains(t, out.String(), "Part 2 passes: both parts pass, 11m30s in")
			}
			checkKept(t, iv.Root, sum)
		})
	}
}

func TestInterviewEndsWithASummaryWhenTheTerminalCloses(t *testing.T) {
	var out bytes.Buffer
	c := fixtureInterview(t, "1", &out)
	c.iv.BeforeWait = func() {
		s, err := interview.Load(c.iv.Root)
		require.NoError(t, err)
		if s.Interview == nil || s.Interview.PID != os.Getpid() {
			t.Errorf("the running record = %+v, want this process's PID", s.Interview)
		}
		c.clock.Advance(3 * time.Minute)
		c.interrupt <- syscall.SIGHUP
	}
	sum, err := runInterview(c.iv)
	require.NoError(t, err)
	require.Equal(t, interview.EndClosed, sum.End)
	require.Contains(t, out.String(), "The terminal closed: interview stopped.\n")
	require.Contains(t, out.String(), "Ended after 3m00s: stopped when the terminal closed.\n")
	s, err := interview.Load(c.iv.Root)
	require.NoError(t, err)
	if s.Interview != nil {
		t.Errorf("state.json still records an interview after SIGHUP: %+v", s.Interview)
	}
	checkKept(t, c.iv.Root, sum)
}

// TestARecordWhoseProcessIsGoneIsStale: make hint-6 after a closed
// terminal left the record of an interview behind is practice mode again.
// Which records count as running is interview's own test.
func TestARecordWhoseProcessIsGoneIsStale(t *testing.T) {
	// A process that has ended: this test binary, running no test.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, cmd.Run())
	gone := cmd.Process.Pid
	now := time.Now()
	root := t.TempDir()
	l, _ := levels.Find("6")
	require.NoError(t, os.MkdirAll(filepath.Join(root, l.Dir), 0o755))
	copyTree(t, filepath.Join(repoRoot(t), l.Dir, "HINTS.md"), filepath.Join(root, l.Dir, "HINTS.md"))
	require.NoError(t, interview.Save(root, interview.State{HintsSeen: map[string]map[string]int{}, Interview: &interview.Record{Level: 6, Part: 1, Until: now.Add(30 * time.Minute), PID: gone}}))
	var hintOut, errOut bytes.Buffer
	require.Equal(t, 0, runAt(root, []string{"hint", "6"}, &hintOut, &errOut), errOut.String())
	require.NotContains(t, hintOut.String(), "You are in a mock interview")
}

func TestInterviewStopsOnCtrlCWithASummary(t *testing.T) {
	var out bytes.Buffer
	c := fixtureInterview(t, "1", &out)
	iv := c.iv
	iv.Budget = 30 * time.Minute
	step := 0
	iv.BeforeWait = func() {
		step++
		switch step {
		case 1:
			// A notification without a change (the watcher's probe file)
			// runs nothing.
			c.Changes <- struct{}{}
		case 2:
			c.save(t, 5*time.Minute)
		case 3:
			require.Contains(t, out.String(), "--- part 1, run 1, 25m00s left")
			require.Contains(t, out.String(), "not implemented yet: New")
			c.clock.Advance(2*time.Minute + 29*time.Second)
			c.interrupt <- os.Interrupt
		default:
			t.Fatalf("the interview waits a %dth time:\n%s", step, out.String())
		}
	}
	sum, err := runInterview(iv)
	require.NoError(t, err)
	if sum.End != interview.EndStopped || sum.ElapsedSeconds != 7*60+29 || sum.Parts[0].Seconds != 7*60+29 || sum.Parts[0].Runs != 1 || sum.Parts[0].Passed || sum.Parts[1].Reached {
		t.Errorf("summary after Ctrl-C = %+v", sum)
	}
	if strings.Contains(out.String(), "## Part 2") {
		t.Errorf("Ctrl-C in part 1 showed part 2:\n%s", out.String())
	}
	require.Contains(t, out.String(), "Interview stopped.\n\nInterview summary: level 1, Tally\n")
	require.Contains(t, out.String(), "Ended after 7m29s: stopped (q or Ctrl-C).")
	require.Contains(t, out.String(), "Parts not reached: part 2.")
	checkKept(t, iv.Root, sum)
}

func TestInterviewCtrlCDuringARunCountsNoRun(t *testing.T) {
	var out bytes.Buffer
	c := fixtureInterview(t, "1", &out)
	gradeOf := c.iv.Grade
	c.iv.Grade = func(part int) (grade.Level, error) {
		if part != 0 {
			c.interrupt <- os.Interrupt // the tests get the Ctrl-C too, and end part way
		}
		return gradeOf(part)
	}
	step := 0
	c.iv.BeforeWait = func() {
		step++
		if step > 1 {
			t.Fatalf("the interview waits again after Ctrl-C:\n%s", out.String())
		}
		c.save(t, 4*time.Minute)
	}
	sum, err := runInterview(c.iv)
	require.NoError(t, err)
	if sum.End != interview.EndStopped || sum.Parts[0].Runs != 0 || sum.ElapsedSeconds != 4*60 {
		t.Errorf("summary = %+v, want stopped after 4m with no run", sum)
	}
	if strings.Contains(out.String(), "not implemented yet") {
		t.Errorf("the interrupted run's results were shown:\n%s", out.String())
	}
}

func TestInterviewOffersResetForAStubThatIsNotFresh(t *testing.T) {
	for _, tc := range []struct {
		name     string
		resetted bool
	}{{"reset", true}, {"declined", false}} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			c := fixtureInterview(t, "1", &out)
			iv, f := c.iv, c.grader
			f.verdict = "fail"
			stub := filepath.Join(iv.Root, iv.Level.Dir, "tally.go")
			require.NoError(t, os.WriteFile(stub, []byte("the learner's code"), 0o644))
			offered := 0
			iv.Reset = func() int {
				offered++
				if tc.resetted {
					f.verdict = "not implemented"
					require.NoError(t, os.WriteFile(stub, []byte("the stub as shipped"), 0o644))
				}
				return 0
			}
			iv.BeforeWait = func() { c.interrupt <- os.Interrupt }
			sum, err := runInterview(iv)
			require.NoError(t, err)
			require.Equal(t, 1, offered)
			require.Contains(t, out.String(), `Level 1 is not a fresh stub: 2 of its cases get past "not implemented", and 0 pass.`)
			if sum.FreshStub != tc.resetted {
				t.Errorf("FreshStub = %v, want %v", sum.FreshStub, tc.resetted)
			}
			if said := strings.Contains(out.String(), "It started from code already written, not from a fresh stub."); said == tc.resetted {
				t.Errorf("summary says it did not start fresh: %v, want %v:\n%s", said, !tc.resetted, out.String())
			}
		})
	}
}

func TestReadmePartsShowPart1Alone(t *testing.T) {
	root := repoRoot(t)
	for _, l := range levels.All {
		r, err := interview.ReadmeParts(root, l)
		intro := r.Intro(1)
		require.NoError(t, err)
		if !strings.HasPrefix(intro, "# Level ") || !strings.Contains(intro, "## The API") || strings.Contains(intro, "## Part") {
			t.Errorf("level %d: the intro is not the story and the API alone:\n%s", l.Number, intro)
		}
		for _, p := range l.Parts {
			s := r.Section(p.Number)
			heading := "## Part " + strconv.Itoa(p.Number) + ": " + p.Title + "\n"
			if !strings.HasPrefix(s, heading) || strings.Count(s, "\n## ") != 0 {
				t.Errorf("level %d, part %d: section does not start with %q or runs into another:\n%s", l.Number, p.Number, heading, s)
			}
		}
		if last := r.Section(len(l.Parts)); strings.Contains(last, "Run it") || strings.Contains(last, "Beyond the interview") {
			t.Errorf("level %d: the last part's section runs on:\n%s", l.Number, last)
		}
	}
}

func TestInterviewArguments(t *testing.T) {
	useFixture(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"interview", "9"}, "there is no level 9; the levels are 1 to 4"},
		{[]string{"interview", "--time", "soon", "1"}, "TIME=soon: want a length such as 45m, 1h or 30 (minutes)"},
		{[]string{"interview", "1", "--time", "0"}, "TIME=0: an interview needs some time"},
		{[]string{"interview"}, "usage: ladder interview"},
		{[]string{"debrief", "0"}, "there is no level 0; the levels are 1 to 4"},
	} {
		var out, errOut bytes.Buffer
		if code := runAt(".", tc.args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v = exit %d, %q; want exit 2 and %q", tc.args, code, errOut.String(), tc.want)
		}
	}
	for in, want := range map[string]time.Duration{"30m": 30 * time.Minute, "30": 30 * time.Minute, "1h15m": 75 * time.Minute} {
		if got, err := interview.ParseBudget(in); err != nil || got != want {
			t.Errorf("parseBudget(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}

func TestInterviewSummaryOnItsPageIsWhatTheWriterPrints(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "interview-summary.json"))
	require.NoError(t, err)
	var s interview.Summary
	require.NoError(t, json.Unmarshal(data, &s))
	var b strings.Builder
	interview.WriteSummary(&b, s)

	page, err := os.ReadFile(filepath.Join(repoRoot(t), "docs/interview.md"))
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)```\n(Interview summary:.*?)```\n").FindSubmatch(page)
	if m == nil {
		t.Fatal("docs/interview.md has no summary block")
	}
	if diff := cmp.Diff(b.String(), string(m[1])); diff != "" {
		t.Errorf("docs/interview.md's summary is not what writeSummary prints for testdata/interview-summary.json (-want +got):\n%s", diff)
	}
}

// keptSummary is a summary an interview of level n could have left: its
// first passed parts passed on one run each, the next one reached and not
// passed, the parts' times adding up to elapsed.
func keptSummary(t *testing.T, n int, started time.Time, elapsed time.Duration, passed int, end string, fresh bool) interview.Summary {
	t.Helper()
	l, err := levels.Find(strconv.Itoa(n))
	require.NoError(t, err)
	s := interview.Summary{Level: n, Title: l.Title, Started: started, BudgetSeconds: 45 * 60,
		ElapsedSeconds: grade.Seconds(elapsed), End: end, FreshStub: fresh}
	reached := min(passed+1, len(l.Parts))
	for i, p := range l.Parts {
		ip := interview.Part{Number: p.Number, Title: p.Title}
		if i < reached {
			ip.Reached, ip.Runs, ip.Seconds = true, 1, s.ElapsedSeconds/reached
		}
		if i == reached-1 {
			ip.Seconds += s.ElapsedSeconds % reached
		}
		if i < passed {
			ip.Passed, ip.FirstRun = true, true
		}
		s.Parts = append(s.Parts, ip)
	}
	requireConsistent(t, s)
	return s
}

func TestProgressShowsTheBestInterviewOfEachLevel(t *testing.T) {
	useFixture(t)
	root := t.TempDir()
	day := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	for i, s := range []interview.Summary{
		keptSummary(t, 1, day, 30*time.Minute, 2, interview.EndPassed, true),
		keptSummary(t, 1, day.Add(time.Hour), 22*time.Minute, 2, interview.EndPassed, true),
		keptSummary(t, 1, day.Add(2*time.Hour), 10*time.Minute, 1, interview.EndStopped, true),
		// Faster, from code already written: no better than a fresh one.
		keptSummary(t, 1, day.Add(3*time.Hour), 5*time.Minute, 2, interview.EndPassed, false),
		keptSummary(t, 3, day, 45*time.Minute, 2, interview.EndTimeUp, true),
		keptSummary(t, 4, day, 12*time.Minute, 3, interview.EndPassed, false),
	} {
		s.Started = s.Started.Add(time.Duration(i) * time.Second)
		_, err := interview.SaveSummary(root, s)
		require.NoError(t, err)
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, interview.StateDir, interview.InterviewsDir, "level-2-damaged.json"), []byte("{"), 0o644))
	rep := grade.Ladder{Levels: []grade.LevelReport{{Number: 1}, {Number: 2}, {Number: 3}, {Number: 4}}}
	var warned strings.Builder
	defer func(w io.Writer) { interview.InterviewWarnings = w }(interview.InterviewWarnings)
	interview.InterviewWarnings = &warned
	interview.AddInterviews(root, &rep)
	if b := rep.Levels[0].BestInterview; b == nil || b.Seconds != 22*60 || b.PartsPassed != 2 || b.Interviews != 4 || !b.FreshStub {
		t.Errorf("level 1's best interview = %+v, want 22m with both parts from a fresh stub, of 4", b)
	}
	if rep.Levels[1].BestInterview != nil {
		t.Errorf("level 2 has a best interview from a damaged file: %+v", rep.Levels[1].BestInterview)
	}
	require.Equal(t, "ladder progress: .ladder/interviews/level-2-damaged.json: skipped, not a complete summary (unexpected end of JSON input)\n", warned.String())
	var text strings.Builder
	grade.WriteText(&text, rep, grade.Style{})
	containsAll(t, text.String(),
		"\nmock interviews (make interview-level-N), each level's best (from a fresh stub first, then the most parts, then the quickest):\n",
		"  level 1  22m00s, all 2 parts, best of 4\n",
		"  level 3  45m00s, 2 of 3 parts (time up), best of 1\n",
		"  level 4  12m00s, all 3 parts, best of 1, started from code already written\n",
	)
	var js bytes.Buffer
	require.NoError(t, grade.WriteJSON(&js, rep))
	require.Contains(t, js.String(), `"best_interview": {`)
	require.Contains(t, js.String(), `"seconds": 1320`)

	// No interview: nothing about them.
	text.Reset()
	grade.WriteText(&text, grade.Ladder{Levels: []grade.LevelReport{{Number: 1}}}, grade.Style{})
	require.NotContains(t, text.String(), "mock interviews")
}

// A kept summary that is not JSON, too big, of a level the ladder lacks
// or of other parts is skipped with a warning; the learner's process is
// trusted for the rest.
func TestDamagedSummariesAreSkippedWithAWarning(t *testing.T) {
	day := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	name := "level-1-20260302-140000.json"
	for _, tc := range []struct {
		name string
		file string // the file's name, when not name
		data func(s interview.Summary) any
		want string
	}{
		{name: "truncated", data: func(interview.Summary) any { return []byte(`{"level": 1, "parts": [`) }, want: "not a complete summary"},
		{name: "not an object", data: func(interview.Summary) any { return []int{1} }, want: "not a complete summary"},
		{name: "null", data: func(interview.Summary) any { return nil }, want: "there is no level 0"},
		{name: "no parts", data: func(s interview.Summary) any { s.Parts = nil; return s }, want: "level 1 has 2 parts, the summary 0"},
		{name: "unknown level", file: "level-99-20260302-140000.json", data: func(s interview.Summary) any { s.Level = 99; return s }, want: "there is no level 99"},
		{name: "huge", data: func(interview.Summary) any {
			return json.RawMessage(`"` + strings.Repeat("x", interview.MaxSummary) + `"`)
		}, want: "not a summary file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			useFixture(t)
			root := t.TempDir()
			good := keptSummary(t, 1, day, 22*time.Minute, 2, interview.EndPassed, true)
			var v any = good
			if tc.data != nil {
				v = tc.data(good)
			}
			data, ok := v.([]byte) // a file as it is, not JSON
			if !ok {
				var err error
				data, err = json.Marshal(v)
				require.NoError(t, err)
			}
			dir := filepath.Join(root, interview.StateDir, interview.InterviewsDir)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			file := name
			if tc.file != "" {
				file = tc.file
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, file), data, 0o644))
			best, warnings := interview.BestInterviews(root)
			if len(best) != 0 {
				t.Errorf("best interviews from a hostile file: %+v", best)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], tc.want) {
				t.Errorf("warnings = %q, want one that says %q", warnings, tc.want)
			}
		})
	}
}

// runInterview prepares the interview and holds it, as cmdInterview does.
func runInterview(iv *interview.Interview) (interview.Summary, error) {
	if err := iv.Prepare(); err != nil {
		return interview.Summary{}, err
	}
	return iv.Hold()
}

func TestEveryPartOfEveryREADMEHasQuestionAndGuidance(t *testing.T) {
	root := repoRoot(t)
	for _, l := range levels.All {
		r, err := interview.ReadmeParts(root, l)
		require.NoError(t, err)
		for _, p := range l.Parts {
			heading := "## Part " + strconv.Itoa(p.Number) + ": " + p.Title
			if q := strings.TrimSpace(strings.TrimPrefix(r.Section(p.Number), heading)); q == "" {
				t.Errorf("level %d, part %d: no question outside the guidance", l.Number, p.Number)
			}
			if len(r.Guidance[p.Number]) == 0 {
				t.Errorf("level %d, part %d: no <!-- guidance --> block", l.Number, p.Number)
			}
			for i, g := range r.Guidance[p.Number] {
				if g == "" {
					t.Errorf("level %d, part %d: guidance block %d is empty", l.Number, p.Number, i+1)
				}
			}
		}
	}
}

// TestInterviewPart1IsTheQuestionAlone checks, for every level, what
// interview mode shows before part 1: the rules and the worked examples,
// none of the guidance, and no method of a later part.
func TestInterviewPart1IsTheQuestionAlone(t *testing.T) {
	root := repoRoot(t)
	for _, l := range levels.All {
		r, err := interview.ReadmeParts(root, l)
		require.NoError(t, err)
		first := l.Parts[0].Number
		text := r.Intro(first) + "\n\n" + r.Section(first)
		if !strings.Contains(strings.ToLower(text), "rules") || !strings.Contains(text, "## Worked examples") || !strings.Contains(text, "|---") {
			t.Errorf("level %d: part 1's question lacks the rules or the worked examples:\n%s", l.Number, text)
		}
		if strings.Contains(text, "<!--") {
			t.Errorf("level %d: part 1's question shows a marker:\n%s", l.Number, text)
		}
		for n, blocks := range r.Guidance {
			for _, g := range blocks {
				line := strings.SplitN(g, "\n", 2)[0]
				if strings.Contains(text, line) {
					t.Errorf("level %d: part 1's question shows part %d's guidance %q", l.Number, n, line)
				}
			}
		}
		for _, m := range r.LaterMethods(first) {
			if loc := regexp.MustCompile("`" + m + "[`(]|\\b" + m + `\(|\| *` + m + `\b`).FindStringIndex(text); loc != nil {
				t.Errorf("level %d: part 1's question names %s, a method of a later part: %q", l.Number, m, text[max(0, loc[0]-60):min(len(text), loc[1]+20)])
			}
		}
		// Each method a part adds is in the README's API, and shows when
		// its part comes.
		for n, ms := range r.Adds {
			api := r.Api(n)
			for _, m := range ms {
				if !interview.Declares(api, m) || !strings.Contains(r.Intro(n), m+"(") {
					t.Errorf("level %d: part %d adds %s, but its API line is not found:\n%s", l.Number, n, m, api)
				}
			}
		}
	}
}

func TestTheAPIGrowsWithTheParts(t *testing.T) {
	l, ok := levels.Numbered(4)
	require.True(t, ok)
	r, err := interview.ReadmeParts(repoRoot(t), l)
	require.NoError(t, err)
	require.NotContains(t, r.Intro(1), "Distinct(")
	require.NotContains(t, r.Intro(1), "Counts(")
	require.Contains(t, r.Intro(2), "Distinct(")
	require.NotContains(t, r.Intro(2), "Counts(")
	require.Contains(t, r.Api(3), "func (c *Cafe) Counts(now time.Time) map[string]int")
	require.Equal(t, "", r.Api(1))
}

// In an interview, the README's guidance of the part comes as its last
// hints, and counts; outside one, make hint-N shows HINTS.md alone.
func TestInterviewHintsEndWithTheREADMEsGuidance(t *testing.T) {
	dir, l := fixtureLadder(t)
	hints, err := interview.ReadHints(dir, l)
	require.NoError(t, err)
	r, err := interview.ReadmeParts(dir, l)
	require.NoError(t, err)
	own, guidance := len(hints[1].Hints), len(r.Guidance[2])
	run := &interview.Record{Level: 1, Part: 2, Until: time.Now().Add(time.Hour), PID: os.Getpid(), Hints: map[string]int{"2": own}}
	require.NoError(t, interview.Save(dir, interview.State{Interview: run}))

	out, code := runLadder(t, dir, "hint", "1")
	require.Equal(t, 0, code, out)
	want := "Level 1, part 2, hint " + strconv.Itoa(own+1) + " of " + strconv.Itoa(own+guidance) + "\n\nFrom the README:\n\n" + r.Guidance[2][0]
	require.True(t, strings.HasPrefix(out, want), "the first hint after HINTS.md's printed:\n%s\nwant it to start:\n%s", out, want)
	require.Contains(t, out, "this hint counts in its summary")
	s, err := interview.Load(dir)
	require.NoError(t, err)
	require.Equal(t, own+1, s.Interview.Hints["2"])
	require.LessOrEqual(t, s.HintsSeen["1"]["2"], own, "practice mode counts only HINTS.md's hints")

	require.NoError(t, interview.Save(dir, interview.State{}))
	out, code = runLadder(t, dir, "hint", "--part", "2", "1")
	require.Equal(t, 0, code, out)
	require.True(t, strings.HasPrefix(out, "Level 1, part 2, hint 1 of "+strconv.Itoa(own)+"\n"), "outside an interview:\n%s", out)
}

// A restart is a new interview: part 1 again, on a new clock, with the
// hints counted afresh; the code of the last one is not a fresh stub, so
// reset is offered, and declining it is marked in the summary.
func TestARestartBeginsFromPart1OnANewClock(t *testing.T) {
	var out bytes.Buffer
	c := fixtureInterview(t, "1", &out)
	step := 0
	c.iv.BeforeWait = func() {
		step++
		switch step {
		case 1:
			c.grader.pass[1] = true
			c.save(t, 10*time.Minute)
		case 2:
			s, err := interview.Load(c.iv.Root)
			require.NoError(t, err)
			s.Interview.Hints = map[string]int{"2": 1} // a hint asked for in part 2
			require.NoError(t, interview.Save(c.iv.Root, s))
			c.clock.Advance(time.Minute)
			c.interrupt <- os.Interrupt
		}
	}
	first, err := runInterview(c.iv)
	require.NoError(t, err)
	require.True(t, first.Parts[1].Reached)
	require.Equal(t, 1, first.Hints)

	var again bytes.Buffer
	c2 := fixtureInterview(t, "1", &again)
	c2.iv.Root = c.iv.Root
	c2.grader.pass[1] = true // the code the first interview left
	c2.clock.Set(c.clock.Now().Add(time.Hour))
	offered := false
	c2.iv.Reset = func() int { offered = true; return 1 } // declined
	c2.iv.BeforeWait = func() {
		s, err := interview.Load(c2.iv.Root)
		require.NoError(t, err)
		// Part 1, which the code passes, went by at once.
		require.Equal(t, 2, s.Interview.Part, "a restart whose code passes part 1 is on part 2")
		require.Empty(t, s.Interview.Hints, "a restart counts its hints afresh")
		c2.interrupt <- os.Interrupt
	}
	second, err := runInterview(c2.iv)
	require.NoError(t, err)
	require.True(t, offered, "a restart from the last interview's code offers reset")
	require.False(t, second.FreshStub)
	require.Equal(t, []int{0, 1}, c2.grader.runs[:2], "a restart begins from part 1, and runs its tests without waiting for a save")
	require.True(t, second.Parts[0].Passed && second.Parts[0].Runs == 1, "part 1: %+v", second.Parts[0])
	require.True(t, second.Parts[1].Reached)
	require.Equal(t, 0, second.Hints)
	require.True(t, second.Started.Equal(c2.clock.Now()), "a restart starts a new clock")
	require.Contains(t, again.String(), "You have 45m00s, until")
	require.Contains(t, again.String(), "## Part 1: ")
	require.Contains(t, again.String(), "is not a fresh stub: its tests run now.\n")
	require.Contains(t, again.String(), "It started from code already written, not from a fresh stub.")
}

// TestMockInterviewsBehavioursHaveTests checks that each behaviour
// docs/interview.md describes is run by a test.
func TestMockInterviewsBehavioursHaveTests(t *testing.T) {
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "docs/interview.md"))
	require.NoError(t, err)
	section := string(data)
	var sources strings.Builder
	files, _ := filepath.Glob("*_test.go")
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		sources.Write(b)
	}
	for behaviour, test := range map[string]string{
		"**It checks for a fresh stub first.**":        "TestInterviewOffersResetForAStubThatIsNotFresh",
		"**It poses the question, not the answer.**":   "TestInterviewPart1IsTheQuestionAlone",
		"each joins the API when its\n  part comes":    "TestTheAPIGrowsWithTheParts",
		"**The guidance comes as hints.**":             "TestInterviewHintsEndWithTheREADMEsGuidance",
		"**Keys, on a terminal.**":                     "TestInterviewKeysInATerminal",
		"**Clarifying questions, on request.**":        "TestInterviewKeysAskClarifications",
		"**A known mistake is offered, not named.**":   "TestInterviewOffersTheKnownMistakeAsAHint",
		"**It warns at 10 minutes left and at 2**":     "TestInterviewEndsWhenTimeIsUpAfterTwoWarnings",
		"**when time is up**":                          "TestInterviewEndsWhenTimeIsUpAfterTwoWarnings",
		"**Ctrl-C ends it**":                           "TestInterviewStopsOnCtrlCWithASummary",
		"a test run that Ctrl-C cuts short":            "TestInterviewCtrlCDuringARunCountsNoRun",
		"**A closed terminal ends it too.**":           "TestInterviewEndsWithASummaryWhenTheTerminalCloses",
		"A record\n  whose process is gone is ignored": "TestARecordWhoseProcessIsGoneIsStale",
		"**A restart is a new interview.**":            "TestARestartBeginsFromPart1OnANewClock",
		"It ends when every part\npasses":              "TestInterviewPlaysALevelPartByPart",
	} {
		if !strings.Contains(section, behaviour) {
			t.Errorf("docs/interview.md no longer says %q", behaviour)
		}
		if !strings.Contains(sources.String(), "\nfunc "+test+"(t *testing.T) {") {
			t.Errorf("%q: no test %s runs it", behaviour, test)
		}
	}
}

// TestInterviewScopeComesFromTheGuide checks every level: without TIME the
// clock is the guide's minutes, and the parts asked are the guide's in-scope
// and stretch parts.
func TestInterviewScopeComesFromTheGuide(t *testing.T) {
	root := repoRoot(t)
	for _, l := range levels.All {
		g, err := guide.Load(filepath.Join(root, l.Dir, guide.FileName))
		require.NoError(t, err)
		iv := &interview.Interview{Root: root, Level: l}
		require.NoError(t, iv.ReadScope())
		require.Equal(t, time.Duration(g.Scope.Minutes)*time.Minute, iv.Budget, "level %d", l.Number)
		require.Equal(t, len(g.Scope.In), iv.InScope, "level %d", l.Number)
		require.Equal(t, len(g.Scope.In)+len(g.Scope.Stretch), iv.Offered, "level %d", l.Number)
	}

	// Level 8 by default: parts 1 to 3 on a 45-minute clock.
	l, _ := levels.Find("8")
	iv := &interview.Interview{Root: root, Level: l}
	require.NoError(t, iv.ReadScope())
	require.Equal(t, 45*time.Minute, iv.Budget)
	require.Equal(t, 3, iv.InScope)
	require.Equal(t, "The clock is for parts 1 to 3; parts 4 and 5 are stretch, asked once those pass; parts 6 to 8 are take-home, not asked here.\n", iv.ScopeSentence())

	// TIME wins over the guide's minutes.
	iv = &interview.Interview{Root: root, Level: l, Budget: 20 * time.Minute}
	require.NoError(t, iv.ReadScope())
	require.Equal(t, 20*time.Minute, iv.Budget)

	// A level copied without its guide has every part in scope.
	iv = &interview.Interview{Root: t.TempDir(), Level: l}
	require.NoError(t, iv.ReadScope())
	require.Equal(t, interview.DefaultBudget, iv.Budget)
	require.Equal(t, len(l.Parts), iv.Offered)
	require.Equal(t, "", iv.ScopeSentence())
}

// TestInterviewOffersStretchThenEnds plays level 8: parts 1 to 3 in scope,
// 4 and 5 as stretch, and the interview ends when part 5 passes, with parts
// 6 to 8 take-home.
func TestInterviewOffersStretchThenEnds(t *testing.T) {
	var out bytes.Buffer
	c := fakeInterview(t, "8", &out)
	l := c.iv.Level
	copyTree(t, filepath.Join(repoRoot(t), l.Dir, guide.FileName), filepath.Join(c.iv.Root, l.Dir, guide.FileName))
	c.iv.Budget = 0
	require.NoError(t, c.iv.ReadScope())
	step := 0
	c.iv.BeforeWait = func() {
		step++
		if step > 5 {
			t.Fatalf("the interview waits a %dth time:\n%s", step, out.String())
		}
		c.grader.pass[step] = true
		c.save(t, 5*time.Minute)
	}
	sum, err := c.iv.Hold()
	require.NoError(t, err)
	log := out.String()
	require.Contains(t, log, "parts 6 to 8 are take-home, not asked here.")
	require.Contains(t, log, "Part 3 passes: all 3 parts pass in scope, 15m00s in. What comes next is stretch.")
	require.Contains(t, log, "--- The follow-up, stretch ")
	require.Contains(t, log, "Part 5 passes: all 5 parts pass, 25m00s in")
	require.Contains(t, log, "[interview: level 8, part 4 of 5 · ", "the status line counts the parts asked, not the take-home ones")
	require.NotContains(t, log, " of 8 · ")
	require.Equal(t, interview.EndPassed, sum.End)
	require.Equal(t, 3, sum.InScope)
	require.Equal(t, 5, sum.Offered)
	require.False(t, sum.Parts[5].Reached)
	requireConsistent(t, sum)
	require.Contains(t, log, "take-home")
	require.Contains(t, log, "Parts not reached: none.")
}

// TestClarificationsWithholdTheTraps checks, for levels 3 and 7, what the
// question shows on a terminal, where clarifications can be asked: in
// every part, the numbered questions where the README's rules were, and
// none of the traps those rules give away. For every level, no
// clarification names a method of a later part than its own.
func TestClarificationsWithholdTheTraps(t *testing.T) {
	root := repoRoot(t)
	traps := map[int][]string{
		3: {"changes nothing", "never more than", "2^53", "int64", "Time.Sub", "292 years", "does not move back", "all or nothing", "float64 of seconds"},
		7: {"ring", "slot", "3,600 + 10,080", "218,880", "whether or not the key exists", "not 0", "divided by", "race detector", "1 MiB"},
	}
	for _, l := range levels.All {
		r, err := interview.ReadmeParts(root, l)
		require.NoError(t, err)
		r.Withhold = true
		if traps[l.Number] != nil && r.Asking(l.Parts[0].Number) == 0 {
			t.Errorf("level %d: part 1 has no clarification", l.Number)
		}
		for _, p := range l.Parts {
			text := r.Intro(p.Number) + "\n\n" + r.Section(p.Number)
			for _, trap := range traps[l.Number] {
				if loc := regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(trap) + `\b`).FindStringIndex(text); loc != nil {
					t.Errorf("level %d, part %d: the question gives away %q: %q", l.Number, p.Number, trap, text[max(0, loc[0]-60):min(len(text), loc[1]+20)])
				}
			}
			for i, c := range r.Clarifications {
				if c.Part != 0 && c.Part != p.Number {
					continue
				}
				if q := fmt.Sprintf("Q%d. %s", i+1, c.Question); !strings.Contains(text, q) {
					t.Errorf("level %d, part %d: the question lacks %q", l.Number, p.Number, q)
				}
				if first := strings.SplitN(c.Answer, "\n", 2)[0]; strings.Contains(text, first) {
					t.Errorf("level %d, part %d: the question shows the answer to %q", l.Number, p.Number, c.Question)
				}
			}
		}
		// One list: a guide whose README has clarifications lists none.
		g, err := guide.Load(filepath.Join(root, l.Dir, guide.FileName))
		require.NoError(t, err)
		if own, _ := g.Section(guide.Clarifying); len(r.Clarifications) > 0 && strings.Contains("\n"+own, "\n- **") {
			t.Errorf("level %d: INTERVIEWER.md lists clarifying questions of its own; the README's are the list", l.Number)
		}
		for _, c := range r.Clarifications {
			for _, m := range r.LaterMethods(max(c.Part, l.Parts[0].Number)) {
				if regexp.MustCompile("`" + m + "[`(]|\\b" + m + `\(`).MatchString(c.Question + "\n" + c.Answer) {
					t.Errorf("level %d: clarification %q of part %d names %s, a method of a later part", l.Number, c.Question, c.Part, m)
				}
			}
		}
	}
}

// TestInterviewKeysAskClarifications plays level 3 with keys, as on a
// terminal: the question withholds the rules, c lists them, a number shows
// an answer, h a hint, r a run, and the summary says which questions were
// asked, and when.
func TestInterviewKeysAskClarifications(t *testing.T) {
	var out bytes.Buffer
	c := fakeInterview(t, "3", &out)
	keys := make(chan byte, 1)
	hints := 0
	c.iv.Keys = keys
	c.iv.Hint = func() { hints++; fmt.Fprintln(&out, "a hint") }
	press := func(k byte) { keys <- k }
	since := func(mark int) string { return out.String()[mark:] }
	mark, step := 0, 0
	c.iv.BeforeWait = func() {
		log := since(mark)
		mark = out.Len()
		step++
		switch step {
		case 1:
			containsAll(t, log, "Q3. What does a denied request cost?\n", "Q1 to Q8 are clarifying questions", "The key h (or make hint-3) gives a hint", "q or Ctrl-C ends the interview.")
			require.NotContains(t, log, "A denied request changes nothing")
			press('c')
		case 2:
			containsAll(t, log, "--- Clarifying questions ", "The API\n  Q1. How do tokens come back", "Part 1: Lazy refill and capped bursts\n  Q8. ")
			require.NotContains(t, log, "A denied request changes nothing")
			press('3')
		case 3:
			containsAll(t, log, "--- Q3. What does a denied request cost? ---", "A denied request changes nothing")
			c.grader.verdict = "fail"
			c.save(t, 2*time.Minute)
		case 4, 5:
			step = 5
			press('1') // fewer than ten questions: Q1 at once
		case 6:
			require.Contains(t, log, "--- Q1. How do tokens come back, and how many can the bucket hold? ---")
			press('c')
		case 7:
			require.Contains(t, log, "  Q3. What does a denied request cost? (asked)\n")
			press('h')
		case 8:
			require.Equal(t, 1, hints)
			press('x')
		case 9:
			require.Contains(t, log, interview.KeysLine)
			press('t')
		case 10:
			require.Equal(t, "[interview: level 3, part 1 of 4 · 43 min left]", lastLine(&out))
			press('r')
		case 11:
			require.Contains(t, log, "--- part 1, run 2, ")
			press('p')
		case 12:
			containsAll(t, log, "--- The question ", "Q7. How much memory", interview.KeysLine)
			c.interrupt <- os.Interrupt
		default:
			t.Fatalf("the interview waits a %dth time:\n%s", step, out.String())
		}
	}
	sum, err := runInterview(c.iv)
	require.NoError(t, err)
	require.Equal(t, 8, sum.Questions)
	require.Equal(t, []interview.Asked{
		{Question: "What does a denied request cost?", Part: 1, Runs: 0},
		{Question: "How do tokens come back, and how many can the bucket hold?", Part: 1, Runs: 1},
	}, sum.Asked)
	requireConsistent(t, sum)
	containsAll(t, out.String(), "Clarifying questions asked: 2 of 8.\n",
		"  What does a denied request cost? (part 1, before its first run)\n",
		"  How do tokens come back, and how many can the bucket hold? (part 1, after 1 failed run)\n")
	checkKept(t, c.iv.Root, sum)
}
