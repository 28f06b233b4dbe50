package interview

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/levels"
)

// hintsLevel is a level of two parts whose HINTS.md the tests write into
// a temporary folder.
var hintsLevel = levels.Level{Number: 1, Dir: "ladder/01-x", Parts: []levels.Part{{Number: 1, Title: "First"}, {Number: 2, Title: "Second"}}}

func writeLevelFile(t *testing.T, root string, l levels.Level, name, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(l.Dir), name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
}

func TestReadHintsChecksThePartsAgainstTheRegistry(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []HintPart
		err        string
	}{{
		name: "two parts",
		text: "# Hints\n\n## Part 1: First\n\n### Hint 1\n\nLook at now.\n\n```\n### Hint 9 in a fence\n```\n\n### Hint 2\n\nKeep one time.\n\n## Part 2: Second\n\n### Hint 1\n\nA ring.\n",
		want: []HintPart{{Number: 1, Title: "First", Hints: []string{"Look at now.\n\n```\n### Hint 9 in a fence\n```", "Keep one time."}}, {Number: 2, Title: "Second", Hints: []string{"A ring."}}},
	}, {
		name: "a part missing",
		text: "## Part 1: First\n\n### Hint 1\n\nx\n",
		err:  `has 1 "## Part N: title" sections; level 1 has 2 parts`,
	}, {
		name: "a title that is not the registry's",
		text: "## Part 1: First\n\n### Hint 1\n\nx\n\n## Part 2: Other\n\n### Hint 1\n\ny\n",
		err:  `ladder/01-x/HINTS.md:7: "Part 2: Other" with 1 hints; want a section per part`,
	}, {
		name: "hints out of order",
		text: "## Part 1: First\n\n### Hint 2\n\nx\n\n## Part 2: Second\n\n### Hint 1\n\ny\n",
		err:  `ladder/01-x/HINTS.md:3: part 1's hint 1 is headed "Hint 2"`,
	}, {
		name: "a part without hints",
		text: "## Part 1: First\n\nno hint\n\n## Part 2: Second\n\n### Hint 1\n\ny\n",
		err:  `"Part 1: First" with 0 hints`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeLevelFile(t, root, hintsLevel, "HINTS.md", tc.text)
			got, err := ReadHints(root, hintsLevel)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ReadHints: err = %v, want one that says %q", err, tc.err)
				}
				return
			}
			require.NoError(t, err)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ReadHints mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStateKeepsWhatItSaves(t *testing.T) {
	root := t.TempDir()
	l := levels.All[0] // the state names the registry's levels
	hints := ""
	for _, p := range l.Parts {
		hints += fmt.Sprintf("## Part %d: %s\n\n### Hint 1\n\nx\n\n### Hint 2\n\ny\n\n", p.Number, p.Title)
	}
	writeLevelFile(t, root, l, "HINTS.md", hints)
	s, err := Load(root)
	require.NoError(t, err)
	require.Empty(t, s.HintsSeen, "a checkout without .ladder/ has seen no hint")
	s.HintsSeen = map[string]map[string]int{"1": {"1": 2}}
	require.NoError(t, Save(root, s))
	again, err := Load(root)
	require.NoError(t, err)
	if diff := cmp.Diff(s.HintsSeen, again.HintsSeen); diff != "" {
		t.Errorf("HintsSeen after a save mismatch (-want +got):\n%s", diff)
	}
	// Counts out of range are clamped, and levels and parts the ladder
	// lacks dropped.
	s.HintsSeen = map[string]map[string]int{"1": {"1": 3, "2": -1, "9": 1}, "99": {"1": 1}, "01": {"1": 1}}
	s.OnPart = map[string]PartCache{"1": {Files: "x", Part: 9}}
	require.NoError(t, Save(root, s))
	again, err = Load(root)
	require.NoError(t, err)
	require.Equal(t, map[string]map[string]int{"1": {"1": 2, "2": 0}}, again.HintsSeen)
	require.Empty(t, again.OnPart)
	// An interview's record comes with the maps make hint-N counts into.
	s.Interview = &Record{Level: 1, Part: 1}
	require.NoError(t, Save(root, s))
	again, err = Load(root)
	require.NoError(t, err)
	again.Interview.Hints["1"]++
	again.Interview.Named["1"]++

	require.NoError(t, os.WriteFile(filepath.Join(root, stateFile), []byte(`{"hints_seen":{"1":{"1":"x"}}}`), 0o644))
	_, err = Load(root)
	require.ErrorContains(t, err, ".ladder/state.json is damaged (")
}

func TestRunningNeedsALiveProcessOfTheLevelInTime(t *testing.T) {
	// A process that has ended: this test binary, running no test.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, cmd.Run())
	gone := cmd.Process.Pid
	now := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		r    *Record
		want bool
	}{
		{"this process", &Record{Level: 6, Until: now.Add(30 * time.Minute), PID: os.Getpid()}, true},
		{"a record without a PID", &Record{Level: 6, Until: now.Add(30 * time.Minute)}, true},
		{"process gone", &Record{Level: 6, Until: now.Add(30 * time.Minute), PID: gone}, false},
		{"a negative PID", &Record{Level: 6, Until: now.Add(30 * time.Minute), PID: -1}, false},
		{"time up", &Record{Level: 6, Until: now.Add(-time.Second), PID: os.Getpid()}, false},
		{"more time than an interview has", &Record{Level: 6, Until: now.Add(MaxBudget + time.Hour), PID: os.Getpid()}, false},
		{"another level", &Record{Level: 5, Until: now.Add(30 * time.Minute), PID: os.Getpid()}, false},
		{"no record", nil, false},
	} {
		if got := tc.r.Running(6, now); got != tc.want {
			t.Errorf("%s: Running(6) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
