package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/levels"
)

// TestInterviewOffersTheKnownMistakeAsAHint: in an interview, code that
// fails the way the inclusive-boundary mistake does is not told so under
// its first failing case. The status line offers it, make hint-2 names it
// and counts it as one hint, the next make hint-2 is HINTS.md's first, and
// a run that fails the same way again offers nothing more.
func TestInterviewOffersTheKnownMistakeAsAHint(t *testing.T) {
	root, l, fails := boundarySlip(t)

	var out bytes.Buffer
	c := fakeInterview(t, "2", &out)
	c.clock.Set(time.Now()) // make hint-2 reads the record on the system clock
	c.iv.Grade = func(upTo int) (grade.Level, error) {
		if upTo == 0 {
			return c.grader.grade(0) // the fresh stub
		}
		return learnerFailing(t, root, l, 1, fails), nil
	}
	hint := func() string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, cmdHint(c.iv.Root, []string{"2"}, &stdout, &stderr), stderr.String())
		return stdout.String()
	}
	offer := " · a known mistake matches your failure: make hint-2 names it]"
	step := 0
	c.iv.BeforeWait = func() {
		step++
		switch step {
		case 1:
			c.save(t, time.Minute)
		case 2:
			require.True(t, strings.HasSuffix(lastLine(&out), offer), "the status line does not offer the mistake:\n%s", out.String())
			require.NotContains(t, out.String(), "This is how a known mistake fails", "the run names the mistake in an interview")
			named := hint()
			want := "Level 2, part 1: the known mistake your failing cases match\n\nThis is how a known mistake fails: " + inclusive + "."
			require.True(t, strings.HasPrefix(named, want), "make hint-2 says:\n%s\nwant it to start:\n%s", named, want)
			require.Contains(t, named, "this hint counts in its summary")
			require.True(t, strings.HasPrefix(hint(), "Level 2, part 1, hint 1 of "), "the hint after the named mistake is not HINTS.md's first")
			c.save(t, time.Minute)
		case 3:
			require.False(t, strings.HasSuffix(lastLine(&out), offer), "a mistake already named is offered again: %s", lastLine(&out))
			c.interrupt <- os.Interrupt
		default:
			t.Fatalf("the interview waits a %dth time:\n%s", step, out.String())
		}
	}
	sum, err := runInterview(c.iv)
	require.NoError(t, err)
	require.Equal(t, 2, sum.Parts[0].Hints, "hints of part 1")
	require.Equal(t, 2, sum.Hints)
	require.Equal(t, 1, sum.MistakesNamed)
	require.Contains(t, out.String(), "Hints asked for (make hint-2 during the interview): 2, 1 of them naming a known mistake.\n")
	require.NoError(t, sum.Check())
	checkKept(t, c.iv.Root, sum)
}

// TestStateCountsANamedMistakeBesideTheHints: a part's every hint and a
// named mistake is a record the ladder writes; more mistakes named than
// hints counted, or an offer of a part the level lacks, is damaged.
func TestStateCountsANamedMistakeBesideTheHints(t *testing.T) {
	dir := copyLadder(t)
	l, _ := levels.Numbered(1)
	hints, err := interview.ReadHints(dir, l)
	require.NoError(t, err)
	all := len(interview.WithGuidance(dir, l, hints)[0].Hints)
	run := func(hints, named int, offer int) *interview.Record {
		r := &interview.Record{Level: 1, Part: 1, Until: time.Now().Add(time.Hour), PID: os.Getpid(),
			Hints: map[string]int{"1": hints}, Named: map[string]int{"1": named}}
		if offer != 0 {
			r.Offer = &interview.MistakeOffer{Part: offer, Line: "This is how a known mistake fails: x."}
		}
		return r
	}
	require.NoError(t, interview.SaveState(dir, interview.State{Interview: run(all+1, 1, 1)}))
	s, err := interview.LoadState(dir)
	require.NoError(t, err, "every hint and one named mistake")
	require.Equal(t, all+1, s.Interview.Hints["1"])
	for what, r := range map[string]*interview.Record{
		"more named than hints":  run(1, 2, 0),
		"a hint too many":        run(all+2, 1, 0),
		"an offer of no part":    run(1, 0, 9),
		"a negative named count": run(1, -1, 0),
	} {
		require.NoError(t, interview.SaveState(dir, interview.State{Interview: r}))
		if _, err := interview.LoadState(dir); err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("%s: loadState = %v, want the state damaged", what, err)
		}
	}
}
