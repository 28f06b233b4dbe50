package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
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

// copyLadder makes a small ladder in a temporary folder: the module files,
// the harness and level 1, as a learner's checkout has them.
func copyLadder(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	dst := t.TempDir()
	for _, p := range []string{"go.mod", "go.sum", "harness/clock", "harness/levels", "harness/remote", "harness/timeline", "ladder/01-hit-counter"} {
		copyTree(t, filepath.Join(root, p), filepath.Join(dst, p))
	}
	return dst
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../..")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, "go.mod"))
	require.NoError(t, err, "the ladder command's tests run from harness/cmd/ladder")
	return dir
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	require.NoError(t, err)
}

func runLadder(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	wd, _ := os.Getwd()
	require.NoError(t, os.Chdir(dir))
	defer os.Chdir(wd)
	code := run(args, &out, &errOut)
	return out.String() + errOut.String(), code
}

func TestProgressOnACopiedLadder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a copy of the ladder")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
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
			"0 of 27 parts done",
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
		containsAll(t, out, "2/2    done", "2 of 27 parts done", "next: level 2, part 1 (print each message at most once per interval): make test-level-2")
	})
}
