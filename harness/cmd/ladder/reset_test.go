package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/shipped"
	"github.com/rateladder/rateladder/harness/levels"
)

func TestFindShippedSortsLevel8(t *testing.T) {
	root := repoRoot(t)
	if _, err := shipped.Git(root, "rev-parse", "HEAD"); err != nil {
		t.Skip("no git history here")
	}
	l, err := levels.Find("8")
	require.NoError(t, err)
	s, err := shipped.Find(root, l)
	require.NoError(t, err)
	require.Equal(t, []string{"ladder/08-group-throttle/redisthrottle/redisthrottle.go", "ladder/08-group-throttle/throttle.go"}, s.Code.Stubs)
	require.Equal(t, []string{"ladder/08-group-throttle/limits/limits.go"}, s.Code.Shared)
	require.Empty(t, s.Code.Other)
}

// gitLadder8 is gitLadder with level 8 too, which has a shared package
// (limits/) beside its stubs.
func gitLadder8(t *testing.T) string {
	t.Helper()
	return clonedRepo(t, "ladder8", func(dir string) {
		copyTree(t, copyLadder(t), dir)
		copyTree(t, filepath.Join(repoRoot(t), "ladder/08-group-throttle"), filepath.Join(dir, "ladder/08-group-throttle"))
	})
}

var backupRE = regexp.MustCompile(`Your files are in (\.ladder/backups/level-\d+-\d{8}-\d{6}-\d+)/\.\nTo get them back: cp -R (\S+)/\. \.\n`)

// backupOf returns the backup folder a reset's output names, and checks
// that the cp command it gives names the same one.
func backupOf(t *testing.T, out string) string {
	t.Helper()
	m := backupRE.FindStringSubmatch(out)
	require.NotNil(t, m, "the reset does not say where the backup is and how to get it back:\n%s", out)
	require.Equal(t, m[1], m[2], "the cp command names another folder")
	return m[1]
}

func TestResetRestoresTheStubAfterACommit(t *testing.T) {
	dir := gitLadder8(t)
	stub := filepath.Join(dir, "ladder/01-hit-counter/hitcounter.go")
	shipped, err := os.ReadFile(stub)
	require.NoError(t, err)
	limits := filepath.Join(dir, "ladder/08-group-throttle/limits/limits.go")
	shippedLimits, err := os.ReadFile(limits)
	require.NoError(t, err)

	// The learner commits level 1 half done and an edit of level 8's
	// shared types, then a helper file in a package of their own.
	require.NoError(t, os.WriteFile(stub, []byte(halfDone(t)), 0o644))
	require.NoError(t, os.WriteFile(limits, append(shippedLimits, "\n// mine\n"...), 0o644))
	gitIn(t, dir, "commit", "-qam", "my level 1, and a note in limits")
	ring := filepath.Join(dir, "ladder/01-hit-counter/ring/ring.go")
	require.NoError(t, os.MkdirAll(filepath.Dir(ring), 0o755))
	require.NoError(t, os.WriteFile(ring, []byte("package ring\n\nfunc Len() int { return 0 }\n"), 0o644))
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-qm", "a ring of my own")

	t.Setenv("FORCE", "1")
	out, code := runLadder(t, dir, "reset", "1")
	require.Equal(t, 0, code, out)
	require.NotContains(t, out, "nothing to restore")
	require.Contains(t, out, "restored ladder/01-hit-counter/hitcounter.go")
	require.Contains(t, out, "moves    ladder/01-hit-counter/ring/ring.go")
	got, _ := os.ReadFile(stub)
	require.Equal(t, string(shipped), string(got), "after reset the stub is not the one shipped")
	_, err = os.Stat(filepath.Dir(ring))
	require.True(t, os.IsNotExist(err), "the emptied ring/ folder is still there")
	backup := backupOf(t, out)
	kept, err := os.ReadFile(filepath.Join(dir, backup, "ladder/01-hit-counter/hitcounter.go"))
	require.NoError(t, err)
	require.Equal(t, halfDone(t), string(kept), "the backup holds the learner's version")
	_, err = os.Stat(filepath.Join(dir, backup, "ladder/01-hit-counter/ring/ring.go"))
	require.NoError(t, err, "the learner's ring.go is in the backup")

	out, code = runLadder(t, dir, "reset", "1")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "Level 1 is already as shipped")

	// Level 8: the stubs were never touched, the shared types were.
	out, code = runLadder(t, dir, "reset", "8")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "restored ladder/08-group-throttle/limits/limits.go")
	got, _ = os.ReadFile(limits)
	require.Equal(t, string(shippedLimits), string(got))

	// The learner's work comes back with the command the reset printed.
	cmd := exec.Command("cp", "-R", backup+"/.", ".")
	cmd.Dir = dir
	cpOut, err := cmd.CombinedOutput()
	require.NoError(t, err, string(cpOut))
	got, _ = os.ReadFile(stub)
	require.Equal(t, halfDone(t), string(got), "the cp command did not bring the learner's work back")
}

func TestResetMovesUntrackedFilesIntoTheBackup(t *testing.T) {
	dir := gitLadder(t)
	level := filepath.Join(dir, "ladder/01-hit-counter")
	stub := filepath.Join(level, "hitcounter.go")
	shipped, _ := os.ReadFile(stub)
	require.NoError(t, os.WriteFile(stub, []byte(halfDone(t)), 0o644))
	files := map[string]string{
		"ring.go":   "package hitcounter\n\ntype ring struct{}\n",
		"notes.txt": "the queue must shrink\n",
	}
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(level, name), []byte(text), 0o644))
	}
	// A failure the fuzzer found stays: make test-level-1 replays it.
	corpus := filepath.Join(level, "testdata/fuzz/FuzzHitCounter/0123abcd")
	require.NoError(t, os.MkdirAll(filepath.Dir(corpus), 0o755))
	require.NoError(t, os.WriteFile(corpus, []byte("go test fuzz v1\n"), 0o644))

	stdin = strings.NewReader("n\n")
	out, code := runLadder(t, dir, "reset", "1")
	require.Equal(t, 0, code, out)
	containsAll(t, out,
		"restores ladder/01-hit-counter/hitcounter.go",
		"moves    ladder/01-hit-counter/notes.txt",
		"moves    ladder/01-hit-counter/ring.go",
		"Nothing changed.",
	)
	require.NotContains(t, out, "testdata")
	for name := range files {
		_, err := os.Stat(filepath.Join(level, name))
		require.NoError(t, err, "answered no, reset touched %s", name)
	}

	t.Setenv("FORCE", "1")
	out, code = runLadder(t, dir, "reset", "1")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "moves    ladder/01-hit-counter/ring.go")
	require.Contains(t, out, "moves    ladder/01-hit-counter/notes.txt")
	backup := backupOf(t, out)
	for name, text := range files {
		_, err := os.Stat(filepath.Join(level, name))
		require.True(t, os.IsNotExist(err), "%s is still in the level's folder", name)
		kept, err := os.ReadFile(filepath.Join(dir, backup, "ladder/01-hit-counter", name))
		require.NoError(t, err, "%s is not in the backup", name)
		require.Equal(t, text, string(kept))
	}
	got, _ := os.ReadFile(stub)
	require.Equal(t, string(shipped), string(got))
	_, err := os.Stat(corpus)
	require.NoError(t, err, "reset removed the fuzz corpus")
	require.Empty(t, gitIn(t, dir, "status", "--porcelain", "--untracked-files=all", "--", "ladder/01-hit-counter/hitcounter.go", "ladder/01-hit-counter/ring.go"))
}

func TestTwoResetsInOneSecondKeepTheirBackupsApart(t *testing.T) {
	dir := gitLadder(t)
	// Two real resets in a row, each of a different version.
	stub := filepath.Join(dir, "ladder/01-hit-counter/hitcounter.go")
	t.Setenv("FORCE", "1")
	var backups []string
	for _, version := range []string{"// first try\n" + halfDone(t), "// second try\n" + halfDone(t)} {
		require.NoError(t, os.WriteFile(stub, []byte(version), 0o644))
		out, code := runLadder(t, dir, "reset", "1")
		require.Equal(t, 0, code, out)
		backups = append(backups, backupOf(t, out))
	}
	require.NotEqual(t, backups[0], backups[1])
	for i, want := range []string{"// first try", "// second try"} {
		kept, err := os.ReadFile(filepath.Join(dir, backups[i], "ladder/01-hit-counter/hitcounter.go"))
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(kept), want), "backup %d holds %q, want the %s", i+1, grade.FirstLines(string(kept), 1), want)
	}
}

func TestResetWithoutAShippedStubSaysWhy(t *testing.T) {
	dir := copyLadder(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ladder/01-hit-counter/hitcounter.go"), []byte(halfDone(t)), 0o644))
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-qm", "a ladder whose only level 1 is done")
	out, code := runLadder(t, dir, "reset", "1")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "no commit holds level 1 as shipped: none of the 1 commits that changed ladder/01-hit-counter both changed its stubs or spec and holds nothing but stubs")
}
