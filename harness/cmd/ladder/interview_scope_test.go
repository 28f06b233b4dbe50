package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/guide"
	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/levels"
)

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
	require.NoError(t, sum.Check())
	require.Contains(t, log, "take-home")
	require.Contains(t, log, "Parts not reached: none.")

	// The kept summary reads back, and a take-home part reached is refused.
	data, err := json.Marshal(sum)
	require.NoError(t, err)
	var back interview.Summary
	require.NoError(t, json.Unmarshal(data, &back))
	require.NoError(t, back.Check())
	back.Parts[5].Reached = true
	err = back.Check()
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "take-home"), err.Error())
}
