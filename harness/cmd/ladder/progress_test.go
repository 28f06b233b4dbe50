package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/grade"
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

// tallyDone is the fixture level done; tallyHalfDone passes part 1 alone.
const tallyDone = `package tally

import "time"

type Tally struct{ n int }

func New() *Tally { return &Tally{} }

func (t *Tally) Add(now time.Time) { t.n++ }

func (t *Tally) Total(now time.Time) int { return t.n }

func (t *Tally) Reset(now time.Time) { t.n = 0 }
`

var tallyHalfDone = strings.Replace(tallyDone, "{ t.n = 0 }", "{}", 1)

func TestProgressOnACopiedLadder(t *testing.T) {
	slow(t, "builds a copy of the ladder", "go")
	dir, _ := fixtureLadder(t)
	stub := filepath.Join(dir, "ladder/01-tally/tally.go")

	t.Run("untouched stub", func(t *testing.T) {
		t.Setenv("NO_COLOR", "1")
		out, code := runLadder(t, dir, "progress")
		if code != 0 {
			t.Fatalf("progress exited %d, want 0:\n%s", code, out)
		}
		containsAll(t, out,
			"1      Tally                                 0/2    not started",
			"2      Fixture 2                             0/3    not started",
			"0 of 11 parts done",
			"next: level 1, part 1 (count the calls): make test-level-1",
		)
		if strings.Contains(out, "\x1b[") {
			t.Errorf("progress with NO_COLOR printed colour codes:\n%q", out)
		}
		golden(t, "progress-untouched", out)
	})

	t.Run("half done", func(t *testing.T) {
		// A Reset that forgets nothing: part 1 passes, part 2 fails.
		require.NoError(t, os.WriteFile(stub, []byte(tallyHalfDone), 0o644))
		out, code := runLadder(t, dir, "progress", "--json")
		require.Equal(t, 0, code, out)
		var rep grade.Ladder
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		l := rep.Levels[0]
		if l.Status != grade.InProgress || l.PartsDone != 1 || !l.Parts[0].Done || l.Parts[1].Done {
			t.Errorf("level 1 = %+v, want in progress with part 1 done and part 2 not", l)
		}
		if want := "level 1, part 2 (start again): make test-level-1"; rep.Next != want {
			t.Errorf("next = %q, want %q", rep.Next, want)
		}
	})

	t.Run("does not compile", func(t *testing.T) {
		require.NoError(t, os.WriteFile(stub, []byte("package tally\n\nfunc New( {\n"), 0o644))
		out, code := runLadder(t, dir, "progress")
		require.Equal(t, 0, code, out)
		containsAll(t, out, "does not compile", "level 1 does not compile; fix it first: make test-level-1")
	})

	t.Run("done", func(t *testing.T) {
		require.NoError(t, os.WriteFile(stub, []byte(tallyDone), 0o644))
		out, code := runLadder(t, dir, "progress")
		require.Equal(t, 0, code, out)
		containsAll(t, out, "2/2    done", "2 of 11 parts done", "next: level 2, part 1 (first): make test-level-2")
	})
}
