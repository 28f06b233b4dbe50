package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/guide"
	"github.com/rateladder/rateladder/harness/internal/instructor"
	"github.com/rateladder/rateladder/harness/levels"
)

// gradeWithDone is a level graded by hand: the first done parts pass.
func gradeWithDone(l levels.Level, done int) grade.Level {
	g := grade.Level{Level: l}
	for i, p := range l.Parts {
		pg := grade.Part{Number: p.Number, Title: p.Title, Total: 1}
		if i < done {
			pg.Passed, pg.Done = 1, true
			pg.Cases = []grade.Case{{Name: "c", Part: p.Number, Verdict: "pass"}}
		} else {
			pg.Cases = []grade.Case{{Name: "c", Part: p.Number, Verdict: "fail"}}
		}
		g.Parts = append(g.Parts, pg)
	}
	return g
}

func TestDebriefOfADoneLevelShowsTheMistakesAndTheApproaches(t *testing.T) {
	root := repoRoot(t)
	for _, l := range levels.All {
		var b strings.Builder
		require.NoError(t, instructor.WriteDebrief(&b, root, gradeWithDone(l, len(l.Parts)), grade.Style{}))
		out := b.String()
		gd, err := guide.Load(filepath.Join(root, l.Dir, guide.FileName))
		require.NoError(t, err)
		for _, m := range gd.Mistakes {
			require.Contains(t, out, "- "+m.Text+"\n  The spec checks this with \""+m.Mutant+"\".\n", "level %d", l.Number)
		}
		approaches, _ := gd.Section(guide.Approaches)
		require.Contains(t, out, "## Approaches\n\n"+approaches+"\n")
		require.NotContains(t, out, "holds the reference", "a level graded without its reference, as in a student copy")
		g := gradeWithDone(l, len(l.Parts))
		g.HasReference = true
		b.Reset()
		require.NoError(t, instructor.WriteDebrief(&b, root, g, grade.Style{}))
		require.Contains(t, b.String(), l.SolutionDir()+" holds the reference, to read beside your code.")
		for _, plumbing := range []string{"(mutant:", "## Rubric", "## Clarifying questions"} {
			if strings.Contains(out, plumbing) {
				t.Errorf("level %d: the debrief shows %q:\n%s", l.Number, plumbing, out)
			}
		}
		if strings.Contains(out, "\x1b[") {
			t.Errorf("level %d: colour codes without a terminal", l.Number)
		}
	}
}

func TestDebriefBeforeTheLevelIsDoneShowsNothingOfTheAnswer(t *testing.T) {
	l := useFixture(t)
	gd, err := guide.Load(filepath.Join(fixtureDir(t), l.Dir, guide.FileName))
	require.NoError(t, err)
	answers := []string{"| approach |", "The spec checks"}
	for _, m := range gd.Mistakes {
		answers = append(answers, m.Text, m.Mutant)
	}
	// No guide in root at all: the debrief must not even read it.
	root := t.TempDir()
	for done := range len(l.Parts) {
		var b strings.Builder
		require.NoError(t, instructor.WriteDebrief(&b, root, gradeWithDone(l, done), grade.Style{}))
		out := b.String()
		require.Contains(t, out, "Level 1 is not done yet: "+strconv.Itoa(done)+" of 2 parts pass")
		for _, answer := range answers {
			if strings.Contains(out, answer) {
				t.Errorf("with %d parts done, the debrief shows %q:\n%s", done, answer, out)
			}
		}
	}
}
