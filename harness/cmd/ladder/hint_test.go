package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/interview"
	"github.com/rateladder/rateladder/harness/levels"
)

// Every HINTS.md has one section per part of the registry, in order, under
// the registry's title, each with at least one hint: readHints checks
// all of that.
func TestEveryHintsFileHasASectionPerPart(t *testing.T) {
	root := repoRoot(t)
	for _, l := range levels.All {
		parts, err := interview.ReadHints(root, l)
		if err != nil {
			t.Error(err)
			continue
		}
		for i, p := range parts {
			if want := l.Parts[i]; p.Number != want.Number || p.Title != want.Title || len(p.Hints) == 0 {
				t.Errorf("level %d: section %d is part %d %q with %d hints, want part %d %q with at least one", l.Number, i+1, p.Number, p.Title, len(p.Hints), want.Number, want.Title)
			}
			for j, h := range p.Hints {
				if h == "" || strings.Contains(h, "## ") {
					t.Errorf("level %d, part %d, hint %d is %q: want text and no heading", l.Number, p.Number, j+1, h)
				}
			}
		}
	}
}

func TestReadHintsRefusesAFileOutOfStepWithTheRegistry(t *testing.T) {
	l := useFixture(t)
	for name, text := range map[string]string{
		"hints not in parts": "# Hints\n\n## Hint 1\n\nA tally.\n",
		"a part missing":     "## Part 1: Count the calls\n\n### Hint 1\n\nA tally.\n",
		"a wrong title":      "## Part 1: Count the calls\n\n### Hint 1\n\nA.\n\n## Part 2: Faster\n\n### Hint 1\n\nB.\n",
		"a part with none":   "## Part 1: Count the calls\n\n### Hint 1\n\nA.\n\n## Part 2: Start again\n\nNothing.\n",
		"hints misnumbered":  "## Part 1: Count the calls\n\n### Hint 2\n\nA.\n\n## Part 2: Start again\n\n### Hint 1\n\nB.\n",
	} {
		root := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(root, l.Dir), 0o755))
		addFile(t, root, l.Dir+"/HINTS.md", text)
		if _, err := interview.ReadHints(root, l); err == nil || !strings.Contains(err.Error(), "ladder/01-tally/HINTS.md") {
			t.Errorf("%s: readHints = %v, want an error naming the file", name, err)
		}
	}
}

// A state.json that is not JSON is one line of error and exit 1; entries
// of a level or part the ladder lacks, and counts out of range, are dropped
// or clamped: never a panic, never a number that indexes the hints wrongly.
func TestHandEditedStateIsNeverAPanic(t *testing.T) {
	dir, l := fixtureLadder(t)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".ladder"), 0o755))
	write := func(text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".ladder", "state.json"), []byte(text), 0o644))
	}
	args := [][]string{{"hint", "1"}, {"hint", "--part", "2", "1"}, {"hints", "1"}}
	for _, text := range []string{
		`{"hints_seen":{"1":-3}}`,
		`{"hints_seen":{"1":99}}`,
		`{"hints_seen":{"1":"two"}}`,
		`{"hints_seen":{"1":{"1":1.5}}}`,
		`{"hints_seen":[1,2]}`,
		`{"hints_seen":{"1":{"1":1}`,
		`{"interview":{"level":1,"part":1,"until":"soon"}}`,
		`[]`,
	} {
		write(text)
		for _, a := range args {
			out, code := runLadder(t, dir, a...)
			want := ".ladder/state.json is damaged ("
			if code != 1 || !strings.HasPrefix(out, want) || !strings.HasSuffix(out, "; delete .ladder/state.json to start the hints afresh\n") || strings.Count(out, "\n") != 1 {
				t.Errorf("ladder %s with state %s = exit %d, %q; want exit 1 and one line saying what to delete", strings.Join(a, " "), text, code, out)
			}
		}
	}

	parts, err := interview.ReadHints(dir, l)
	require.NoError(t, err)
	h := fnv.New128a() // the cache key partOn computes
	h.Write([]byte(interview.Snapshot(filepath.Join(dir, l.Dir))))
	hash := fmt.Sprintf("%x", h.Sum(nil))
	// Part 2 is the part on, so that make hint-1 needs no grading.
	until := time.Now().Add(time.Hour).UTC().Format(time.RFC3339) // a running interview
	onPart := `"on_part":{"1":{"files":"` + hash + `","part":2},"7":{"files":"x","part":9}}`
	for _, entries := range []string{
		`"hints_seen":{"1":{"1":-1}}`,
		`"hints_seen":{"1":{"1":4,"2":99}}`,
		`"hints_seen":{"1":{"3":1,"x":1,"01":2}}`,
		`"hints_seen":{"9":{"1":1},"01":{"1":1}}`,
		`"interview":{"level":1,"part":5,"until":"` + until + `"}`,
		`"interview":{"level":12,"part":1,"until":"` + until + `"}`,
		`"interview":{"level":1,"part":2,"until":"` + until + `","hints":{"2":-2},"named":{"2":7},"offer":{"part":9,"line":"x"}}`,
	} {
		text := "{" + onPart + "," + entries + "}"
		write(text)
		s, err := interview.Load(dir)
		require.NoError(t, err, text)
		require.Equal(t, map[string]interview.PartCache{"1": {Files: hash, Part: 2}}, s.OnPart, text)
		for key, seen := range s.HintsSeen {
			require.Equal(t, "1", key, text)
			for pkey, n := range seen {
				p, err := strconv.Atoi(pkey)
				require.NoError(t, err, text)
				require.True(t, p >= 1 && p <= len(parts) && n >= 0 && n <= len(parts[p-1].Hints), "%s: HintsSeen[1][%s] = %d", text, pkey, n)
			}
		}
		if r := s.Interview; r != nil {
			require.True(t, r.Level == 1 && r.Part == 2 && r.Offer == nil, "%s: interview %+v", text, r)
		}
		for _, a := range args {
			write(text)
			out, code := runLadder(t, dir, a...)
			if code != 0 || strings.Contains(out, "damaged") {
				t.Errorf("ladder %s with state %s = exit %d:\n%s", strings.Join(a, " "), text, code, out)
			}
		}
	}
}

func TestHintGoesToThePartYouAreOn(t *testing.T) {
	slow(t, "runs the fixture level's tests on a copy of the ladder")
	dir, l := fixtureLadder(t)
	// Part 1 done. Part 2 not: Reset forgets nothing.
	f := filepath.Join(dir, l.Dir, "tally.go")
	require.NoError(t, os.WriteFile(f, []byte(tallyHalfDone), 0o644))
	parts, err := interview.ReadHints(dir, l)
	require.NoError(t, err)
	part2 := parts[1]

	out, code := runLadder(t, dir, "hint", "1")
	require.Equal(t, 0, code, out)
	want := "Checking which part of level 1 you are on…\n" + hintHeading(l, part2, 1) + "\n\n" + part2.Hints[0] + "\n"
	require.True(t, strings.HasPrefix(out, want), "ladder hint 1 printed:\n%s\nwant it to start:\n%s", out, want)
	require.Contains(t, out, "Level 1, part 2, hint 1 of ")

	// The level's files have not changed: no grading, the next hint.
	out, _ = runLadder(t, dir, "hint", "1")
	require.True(t, strings.HasPrefix(out, hintHeading(l, part2, 2)+"\n"), "a second ladder hint 1 printed:\n%s\nwant part 2's hint 2, without grading", out)

	// Part 1's hints on request, and all of them seen.
	for i := range parts[0].Hints {
		out, _ = runLadder(t, dir, "hint", "1", "--part", "1")
		require.True(t, strings.HasPrefix(out, hintHeading(l, parts[0], i+1)+"\n"), "ladder hint 1 --part 1 printed:\n%s", out)
	}
	out, _ = runLadder(t, dir, "hint", "--part=1", "1")
	require.Contains(t, out, "You have seen all 3 hints of level 1, part 1. make hints-1 shows them again; read part 1 of ladder/01-tally/README.md again")
	require.NotContains(t, out, "solutions/", "a copy without solutions/ does not point there")

	out, _ = runLadder(t, dir, "hints", "1")
	for _, h := range []string{hintHeading(l, parts[0], 1), hintHeading(l, parts[0], 3), hintHeading(l, part2, 1), hintHeading(l, part2, 2)} {
		require.Contains(t, out, "\n"+h+"\n\n")
	}
	require.NotContains(t, out, hintHeading(l, part2, 3))
	require.True(t, strings.Index(out, hintHeading(l, parts[0], 3)) < strings.Index(out, hintHeading(l, part2, 1)), "hints-1 shows part 1 before part 2:\n%s", out)

	data, err := os.ReadFile(filepath.Join(dir, ".ladder", "state.json"))
	require.NoError(t, err)
	var s interview.State
	require.NoError(t, json.Unmarshal(data, &s))
	require.Equal(t, map[string]int{"1": 3, "2": 2}, s.HintsSeen["1"])
	require.Equal(t, 2, s.OnPart["1"].Part)

	// An edit grades again.
	edit(t, f, "func (t *Tally) Reset", "// Reset forgets nothing yet.\nfunc (t *Tally) Reset")
	out, _ = runLadder(t, dir, "hint", "1")
	require.True(t, strings.HasPrefix(out, "Checking which part of level 1 you are on…\n"+hintHeading(l, part2, 3)), "after an edit, ladder hint 1 printed:\n%s", out)
}

// During a mock interview a hint counts in the part it is of, and the
// part the interview is on needs no grading.
func TestAnInterviewHintCountsInItsOwnPart(t *testing.T) {
	dir, _ := fixtureLadder(t)
	run := &interview.Record{Level: 1, Part: 2, Until: time.Now().Add(time.Hour), Hints: map[string]int{}}
	require.NoError(t, interview.Save(dir, interview.State{HintsSeen: map[string]map[string]int{"1": {"1": 3}}, Interview: run}))

	out, code := runLadder(t, dir, "hint", "1")
	require.Equal(t, 0, code, out)
	require.True(t, strings.HasPrefix(out, "Level 1, part 2, hint 1 of 4\n"), "hint 1 during part 2 of an interview printed:\n%s", out)
	out, code = runLadder(t, dir, "hint", "--part", "1", "1")
	require.Equal(t, 0, code, out)
	require.True(t, strings.HasPrefix(out, "Level 1, part 1, hint 1 of 5\n"), "an interview's hints start again from the first, with the README's guidance after HINTS.md's:\n%s", out)
	require.Contains(t, out, "this hint counts in its summary")

	s, err := interview.Load(dir)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"1": 1, "2": 1}, s.Interview.Hints, "each hint counts in its own part")
	require.Equal(t, map[string]int{"1": 3, "2": 1}, s.HintsSeen["1"])
}
