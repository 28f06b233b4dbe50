package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/levels"
)

// recordingRunner runs go as plainRunner does and records the package
// patterns of every go test it starts.
func recordingRunner(tested *[]string) grade.Runner {
	r := grade.Plain
	r.Note = nil
	r.Run = func(ctx context.Context, cmd *exec.Cmd) error {
		if len(cmd.Args) > 1 && cmd.Args[1] == "test" {
			for _, a := range cmd.Args[2:] {
				if !strings.HasPrefix(a, "-") && strings.Contains(a, "/ladder/") {
					*tested = append(*tested, a)
				}
			}
		}
		return grade.Plain.Run(ctx, cmd)
	}
	return r
}

// TestProgressBuildsOnlyTouchedLevels: on a ladder where only level 1 is
// touched, progress tests level 1's packages and builds no other level.
func TestProgressBuildsOnlyTouchedLevels(t *testing.T) {
	slow(t, "runs go test on a copy of the ladder")
	dir := copyRepo(t, "ladder")
	edit(t, filepath.Join(dir, "ladder/01-hit-counter/hitcounter.go"), `panic("not implemented: Counter.Count")`, `return 0`)
	var tested []string
	gs, err := grade.Levels(context.Background(), dir, levels.All, recordingRunner(&tested))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tested {
		if !strings.Contains(p, "/ladder/01-hit-counter") {
			t.Errorf("progress tested %s, a level whose stub is untouched", p)
		}
	}
	if !slices.ContainsFunc(tested, func(p string) bool { return strings.HasSuffix(p, "/ladder/01-hit-counter") }) {
		t.Errorf("progress did not test level 1, which is touched: it tested %q", tested)
	}
	for _, g := range gs[1:] {
		if g.Status() != grade.NotStarted {
			t.Errorf("level %d is %q, want %q", g.Level.Number, g.Status(), grade.NotStarted)
		}
	}
	if !gs[0].Parts[0].Ran {
		t.Errorf("level 1's part 1 did not run, and level 1 is touched")
	}
}

// TestASlowBuildSaysWhatItDoes: a go test that has not started a test
// binary after slowBuild says, once, that it is building.
func TestASlowBuildSaysWhatItDoes(t *testing.T) {
	defer func(d time.Duration) { grade.SlowBuild = d }(grade.SlowBuild)
	grade.SlowBuild = 10 * time.Millisecond
	var note bytes.Buffer
	r := grade.Plain
	r.Note = &note
	r.Run = func(ctx context.Context, cmd *exec.Cmd) error {
		if len(cmd.Args) > 1 && cmd.Args[1] == "test" {
			time.Sleep(100 * time.Millisecond) // a build that takes ten times slowBuild
			return nil
		}
		return grade.Plain.Run(ctx, cmd)
	}
	root := repoRoot(t)
	// Twice, as a watch runs: the second slow build is no first run.
	for range 2 {
		if _, err := grade.RunGoTest(context.Background(), root, grade.Run{Module: ".", Patterns: []string{"./ladder/01-hit-counter/..."}}, r); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := note.String(), "building the tests of ladder/01-hit-counter, the first run only: later runs reuse the build…\n"; got != want {
		t.Errorf("the note is %q, want %q", got, want)
	}
}

// TestTheCommandBuildsLight: a newcomer's first make progress builds this
// command from an empty build cache, so it leaves out the project's own
// packages that the specs need and it does not: the runner, which brings
// the testing package, and go-cmp. What the standard library imports is
// the toolchain's business, and changes with it.
func TestTheCommandBuildsLight(t *testing.T) {
	cmd := exec.Command(grade.GoTool(), "list", "-deps", ".")
	cmd.Env = grade.LearnerEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, heavy := range []string{"github.com/google/go-cmp/cmp", "github.com/rateladder/rateladder/harness/timeline"} {
		if slices.Contains(deps, heavy) {
			t.Errorf("the ladder command imports %s; see this test's comment", heavy)
		}
	}
}

// TestTheFirstMakeSaysItBuildsTheCommand: make's first run builds the
// ladder command, which takes seconds from an empty build cache, and says
// so first; the next run, with the command built, does not.
func TestTheFirstMakeSaysItBuildsTheCommand(t *testing.T) {
	slow(t, "builds the command in a copy of the repository", "make")
	dir := copyRepo(t, "ladder")
	const note = "building the ladder command, the first run only…"
	t.Setenv("LADDER_NOTES", "1")
	out, code := runIn(t, dir, "make", "progress")
	if code != 0 || !strings.HasPrefix(out, note+"\n") {
		t.Errorf("the first make progress = exit %d:\n%s\nwant it to start with %q", code, out, note)
	}
	out, _ = runIn(t, dir, "make", "progress")
	if strings.Contains(out, note) {
		t.Errorf("the second make progress says %q again:\n%s", note, out)
	}
}
