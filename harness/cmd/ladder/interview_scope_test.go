package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/guide"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/stretchr/testify/require"
)

// TestInterviewScopeComesFromTheGuide checks every level: without TIME the
// clock is the guide's minutes, and the parts asked are the guide's in-scope
// and stretch parts.
func TestInterviewScopeComesFromTheGuide(t *testing.T) {
	root := repoRoot(t)
	for _, l := range levels.All {
		g, err := guide.Load(filepath.Join(root, l.Dir, guide.FileName))
		require.NoError(t, err)
		iv := &interview{root: root, level: l}
		require.NoError(t, iv.readScope())
		require.Equal(t, time.Duration(g.Scope.Minutes)*time.Minute, iv.budget, "level %d", l.Number)
		require.Equal(t, len(g.Scope.In), iv.inScope, "level %d", l.Number)
		require.Equal(t, len(g.Scope.In)+len(g.Scope.Stretch), iv.offered, "level %d", l.Number)
	}

	// Level 8 by default: parts 1 to 3 on a 45-minute clock.
	l, _ := levels.Find("8")
	iv := &interview{root: root, level: l}
	require.NoError(t, iv.readScope())
	require.Equal(t, 45*time.Minute, iv.budget)
	require.Equal(t, 3, iv.inScope)
	require.Equal(t, "The clock is for parts 1 to 3; parts 4 and 5 are stretch, asked once those pass; parts 6 to 8 are take-home, not asked here.\n", iv.scopeSentence())

	// TIME wins over the guide's minutes.
	iv = &interview{root: root, level: l, budget: 20 * time.Minute}
	require.NoError(t, iv.readScope())
	require.Equal(t, 20*time.Minute, iv.budget)

	// A level copied without its guide has every part in scope.
	iv = &interview{root: t.TempDir(), level: l}
	require.NoError(t, iv.readScope())
	require.Equal(t, defaultBudget, iv.budget)
	require.Equal(t, len(l.Parts), iv.offered)
	require.Equal(t, "", iv.scopeSentence())
}

// TestInterviewOffersStretchThenEnds plays level 8: parts 1 to 3 in scope,
// 4 and 5 as stretch, and the interview ends when part 5 passes, with parts
// 6 to 8 take-home.
func TestInterviewOffersStretchThenEnds(t *testing.T) {
	var out bytes.Buffer
	c := fakeInterview(t, "8", &out)
	l := c.iv.level
	copyTree(t, filepath.Join(repoRoot(t), l.Dir, guide.FileName), filepath.Join(c.iv.root, l.Dir, guide.FileName))
	c.iv.budget = 0
	require.NoError(t, c.iv.readScope())
	step := 0
	c.iv.beforeWait = func() {
		step++
		if step > 5 {
			t.Fatalf("the interview waits a %dth time:\n%s", step, out.String())
		}
		c.grader.pass[step] = true
		c.save(t, 5*time.Minute)
	}
	sum, err := c.iv.hold()
	require.NoError(t, err)
	log := out.String()
	require.Contains(t, log, "parts 6 to 8 are take-home, not asked here.")
	require.Contains(t, log, "Part 3 passes: all 3 parts pass in scope, 15m00s in. What comes next is stretch.")
	require.Contains(t, log, "--- The follow-up, stretch ")
	require.Contains(t, log, "Part 5 passes: all 5 parts pass, 25m00s in")
	require.Contains(t, log, "[interview: level 8, part 4 of 5 · ", "the status line counts the parts asked, not the take-home ones")
	require.NotContains(t, log, " of 8 · ")
	require.Equal(t, endPassed, sum.End)
	require.Equal(t, 3, sum.InScope)
	require.Equal(t, 5, sum.Offered)
	require.False(t, sum.Parts[5].Reached)
	require.NoError(t, sum.check())
	require.Contains(t, log, "take-home")
	require.Contains(t, log, "Parts not reached: none.")

	// The kept summary reads back, and a take-home part reached is refused.
	data, err := json.Marshal(sum)
	require.NoError(t, err)
	var back interviewSummary
	require.NoError(t, json.Unmarshal(data, &back))
	require.NoError(t, back.check())
	back.Parts[5].Reached = true
	err = back.check()
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "take-home"), err.Error())
}
