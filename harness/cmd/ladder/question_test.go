package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/levels"
)

func TestEveryPartOfEveryREADMEHasQuestionAndGuidance(t *testing.T) {
	root := repoRoot(t)
	for _, l := range levels.All {
		r, err := interview.ReadmeParts(root, l)
		require.NoError(t, err)
		for _, p := range l.Parts {
			heading := "## Part " + strconv.Itoa(p.Number) + ": " + p.Title
			if q := strings.TrimSpace(strings.TrimPrefix(r.Sections[p.Number], heading)); q == "" {
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
		text := r.Intro(first) + "\n\n" + r.Sections[first]
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
	dir := copyLadder(t)
	l, _ := levels.Numbered(1)
	hints, err := interview.ReadHints(dir, l)
	require.NoError(t, err)
	r, err := interview.ReadmeParts(dir, l)
	require.NoError(t, err)
	own, guidance := len(hints[1].Hints), len(r.Guidance[2])
	run := &interview.Record{Level: 1, Part: 2, Until: time.Now().Add(time.Hour), PID: os.Getpid(), Hints: map[string]int{"2": own}}
	require.NoError(t, interview.SaveState(dir, interview.State{Interview: run}))

	out, code := runLadder(t, dir, "hint", "1")
	require.Equal(t, 0, code, out)
	want := "Level 1, part 2, hint " + strconv.Itoa(own+1) + " of " + strconv.Itoa(own+guidance) + "\n\nFrom the README:\n\n" + r.Guidance[2][0]
	require.True(t, strings.HasPrefix(out, want), "the first hint after HINTS.md's printed:\n%s\nwant it to start:\n%s", out, want)
	require.Contains(t, out, "this hint counts in its summary")
	s, err := interview.LoadState(dir)
	require.NoError(t, err)
	require.Equal(t, own+1, s.Interview.Hints["2"])
	require.LessOrEqual(t, s.HintsSeen["1"]["2"], own, "practice mode counts only HINTS.md's hints")

	require.NoError(t, interview.SaveState(dir, interview.State{}))
	out, code = runLadder(t, dir, "hint", "--part", "2", "1")
	require.Equal(t, 0, code, out)
	require.True(t, strings.HasPrefix(out, "Level 1, part 2, hint 1 of "+strconv.Itoa(own)+"\n"), "outside an interview:\n%s", out)
}

// A restart is a new interview: part 1 again, on a new clock, with the
// hints counted afresh; the code of the last one is not a fresh stub, so
// reset is offered, and declining it is marked in the summary.
func TestARestartBeginsFromPart1OnANewClock(t *testing.T) {
	var out bytes.Buffer
	c := fakeInterview(t, "2", &out)
	step := 0
	c.iv.BeforeWait = func() {
		step++
		switch step {
		case 1:
			c.grader.pass[1] = true
			c.save(t, 10*time.Minute)
		case 2:
			s, err := interview.LoadState(c.iv.Root)
			require.NoError(t, err)
			s.Interview.Hints = map[string]int{"2": 1} // a hint asked for in part 2
			require.NoError(t, interview.SaveState(c.iv.Root, s))
			c.clock.Advance(time.Minute)
			c.interrupt <- os.Interrupt
		}
	}
	first, err := runInterview(c.iv)
	require.NoError(t, err)
	require.True(t, first.Parts[1].Reached)
	require.Equal(t, 1, first.Hints)

	var again bytes.Buffer
	c2 := fakeInterview(t, "2", &again)
	c2.iv.Root = c.iv.Root
	c2.grader.pass[1] = true // the code the first interview left
	c2.clock.Set(c.clock.Now().Add(time.Hour))
	offered := false
	c2.iv.Reset = func() int { offered = true; return 1 } // declined
	c2.iv.BeforeWait = func() {
		s, err := interview.LoadState(c2.iv.Root)
		require.NoError(t, err)
		require.Equal(t, 1, s.Interview.Part, "a restart is on part 1")
		require.Empty(t, s.Interview.Hints, "a restart counts its hints afresh")
		c2.interrupt <- os.Interrupt
	}
	second, err := runInterview(c2.iv)
	require.NoError(t, err)
	require.True(t, offered, "a restart from the last interview's code offers reset")
	require.False(t, second.FreshStub)
	require.False(t, second.Parts[1].Reached, "a restart begins from part 1")
	require.Equal(t, 0, second.Hints)
	require.True(t, second.Started.Equal(c2.clock.Now()), "a restart starts a new clock")
	require.Contains(t, again.String(), "You have 45m00s, until")
	require.Contains(t, again.String(), "## Part 1: ")
	require.NotContains(t, again.String(), "## Part 2: ")
	require.Contains(t, again.String(), "It started from code already written, not from a fresh stub.")
}

// TestMockInterviewsBehavioursHaveTests checks that each behaviour the
// README's "Mock interviews" section describes is run by a test.
func TestMockInterviewsBehavioursHaveTests(t *testing.T) {
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	text := string(data)
	start := strings.Index(text, "## Mock interviews\n")
	require.GreaterOrEqual(t, start, 0)
	section := text[start:]
	section = section[:strings.Index(section[3:], "\n## ")+3]
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
		"**A known mistake is offered, not named.**":   "TestInterviewOffersTheKnownMistakeAsAHint",
		"**It warns at 10 minutes left and at 2**":     "TestInterviewEndsWhenTimeIsUpAfterTwoWarnings",
		"**when time is up**":                          "TestInterviewEndsWhenTimeIsUpAfterTwoWarnings",
		"**Ctrl-C ends it**":                           "TestInterviewStopsOnCtrlCWithASummary",
		"a test run that Ctrl-C cuts short":            "TestInterviewCtrlCDuringARunCountsNoRun",
		"**A closed terminal ends it too.**":           "TestInterviewEndsWithASummaryWhenTheTerminalCloses",
		"A record\n  whose process is gone is ignored": "TestARecordWhoseProcessIsGoneIsStale",
		"**A restart is a new interview.**":            "TestARestartBeginsFromPart1OnANewClock",
		"It ends when every part\npasses":              "TestInterviewPlaysLevel1PartByPartWithoutSolutions",
	} {
		if !strings.Contains(section, behaviour) {
			t.Errorf("README.md's Mock interviews section no longer says %q", behaviour)
		}
		if !strings.Contains(sources.String(), "\nfunc "+test+"(t *testing.T) {") {
			t.Errorf("%q: no test %s runs it", behaviour, test)
		}
	}
}
