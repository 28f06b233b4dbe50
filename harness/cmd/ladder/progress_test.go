package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/levels"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares long output with testdata/NAME.golden; -update rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test ./harness/cmd/ladder -update writes it")
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("output differs from %s (-want +got):\n%s", path, diff)
	}
}

func TestProgressOnACopiedLadder(t *testing.T) {
	slow(t, "builds a copy of the ladder", "go")
	dir := copyLadder(t)
	stub := filepath.Join(dir, "ladder/01-hit-counter/hitcounter.go")

	t.Run("untouched stub", func(t *testing.T) {
		t.Setenv("NO_COLOR", "1")
		out, code := runLadder(t, dir, "progress")
		if code != 0 {
			t.Fatalf("progress exited %d, want 0:\n%s", code, out)
		}
		containsAll(t, out,
			"1      Hit counter                           0/2    not started",
			"2      Logger rate limiter                   0/2    not started",
			fmt.Sprintf("0 of %d parts done", allParts()),
			"next: level 1, part 1 (count the last window): make test-level-1",
		)
		if strings.Contains(out, "\x1b[") {
			t.Errorf("progress with NO_COLOR printed colour codes:\n%q", out)
		}
		golden(t, "progress-untouched", out)
	})

	t.Run("half done", func(t *testing.T) {
		// Right answers with a re-slicing queue: part 1 passes, part 2 fails.
		require.NoError(t, os.WriteFile(stub, []byte(halfDone(t)), 0o644))
		out, code := runLadder(t, dir, "progress", "--json")
		require.Equal(t, 0, code, out)
		var rep grade.Ladder
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		l := rep.Levels[0]
		if l.Status != grade.InProgress || l.PartsDone != 1 || !l.Parts[0].Done || l.Parts[1].Done {
			t.Errorf("level 1 = %+v, want in progress with part 1 done and part 2 not", l)
		}
		if want := "level 1, part 2 (a million hits a second): make test-level-1"; rep.Next != want {
			t.Errorf("next = %q, want %q", rep.Next, want)
		}
	})

	t.Run("does not compile", func(t *testing.T) {
		require.NoError(t, os.WriteFile(stub, []byte("package hitcounter\n\nfunc New( {\n"), 0o644))
		out, code := runLadder(t, dir, "progress")
		require.Equal(t, 0, code, out)
		containsAll(t, out, "does not compile", "level 1 does not compile; fix it first: make test-level-1")
	})

	t.Run("done", func(t *testing.T) {
		ref := filepath.Join(repoRoot(t), "solutions/01-hit-counter/hitcounter.go")
		data, err := os.ReadFile(ref)
		if err != nil {
			t.Skip("no solutions/ here (a workshop copy)")
		}
		require.NoError(t, os.WriteFile(stub, data, 0o644))
		out, code := runLadder(t, dir, "progress")
		require.Equal(t, 0, code, out)
		containsAll(t, out, "2/2    done", fmt.Sprintf("2 of %d parts done", allParts()), "next: level 2, part 1 (print each message at most once per interval): make test-level-2")
	})
}

// allParts counts the parts of every level.
func allParts() int {
	n := 0
	for _, l := range levels.All {
		n += len(l.Parts)
	}
	return n
}
