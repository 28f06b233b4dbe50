package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/internal/interview"
)

func TestHintShowsOneHintAtATimeAndRemembers(t *testing.T) {
	dir, l := fixtureLadder(t)
	out, code := runLadder(t, dir, "hints", "1")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "You have not asked for a hint on level 1 yet")

	parts, err := interview.ReadHints(dir, l)
	require.NoError(t, err)
	hint := func(i int) string { return parts[0].Hints[i-1] }
	// --part 1 names the part, so that this test grades nothing.
	out, code = runLadder(t, dir, "hint", "--part", "1", "1")
	require.Equal(t, 0, code, out)
	if !strings.HasPrefix(out, "Level 1, part 1, hint 1 of 3\n\n"+hint(1)+"\n") || strings.Contains(out, hint(2)) {
		t.Errorf("first hint-1 printed:\n%s\nwant hint 1 alone", out)
	}
	out, _ = runLadder(t, dir, "hint", "--part", "1", "1")
	if !strings.HasPrefix(out, "Level 1, part 1, hint 2 of 3\n\n"+hint(2)+"\n") || !strings.Contains(out, "Still stuck? make hint-1 PART=1 shows the next one.") {
		t.Errorf("second hint-1 printed:\n%s\nwant hint 2", out)
	}
	out, _ = runLadder(t, dir, "hints", "1")
	if !strings.Contains(out, "the 2 of 6 hints you have seen") || !strings.Contains(out, hint(1)) || !strings.Contains(out, hint(2)) || strings.Contains(out, hint(3)) {
		t.Errorf("hints-1 after two hints printed:\n%s\nwant hints 1 and 2 only", out)
	}
	state, err := os.ReadFile(filepath.Join(dir, ".ladder", "state.json"))
	require.NoError(t, err)
	require.Contains(t, strings.Join(strings.Fields(string(state)), " "), `"hints_seen": { "1": { "1": 2 } }`)

	runLadder(t, dir, "hint", "--part", "1", "1")
	out, _ = runLadder(t, dir, "hint", "--part", "1", "1")
	require.Contains(t, out, "You have seen all 3 hints of level 1, part 1")
	require.Contains(t, out, "read part 1 of ladder/01-tally/README.md again", "a copy without solutions/ does not point there")
	require.NotContains(t, out, "solutions/")

	require.NoError(t, os.MkdirAll(filepath.Join(dir, "solutions/01-tally"), 0o755))
	out, _ = runLadder(t, dir, "hint", "--part", "1", "1")
	require.Contains(t, out, "solutions/01-tally has the reference, to read beside your code.")

	out, code = runLadder(t, dir, "hint", "--part", "3", "1")
	if code != 2 || !strings.Contains(out, "level 1 has no part 3; its parts are 1 to 2") {
		t.Errorf("hint --part 3 1 = exit %d, %q; want exit 2 and no part 3", code, out)
	}
}

func TestLevelArgumentsAreChecked(t *testing.T) {
	dir, _ := fixtureLadder(t)
	for arg, want := range map[string]string{
		"9":   "there is no level 9; the levels are 1 to 4",
		"one": "there is no level one; the levels are 1 to 4",
		"0":   "there is no level 0; the levels are 1 to 4",
	} {
		out, code := runLadder(t, dir, "hint", arg)
		if code == 0 || !strings.Contains(out, want) {
			t.Errorf("hint %s = exit %d, %q; want a failure saying %q", arg, code, out, want)
		}
	}
}

func TestPollingNoticesAChange(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.go")
	require.NoError(t, os.WriteFile(file, []byte("package a\n"), 0o644))
	changes, stop := interview.PollChanges(dir, 10*time.Millisecond)
	defer stop()
	time.Sleep(30 * time.Millisecond) // let the poller take its first look
	require.NoError(t, os.WriteFile(file, []byte("package a // edited\n"), 0o644))
	select {
	case <-changes:
	case <-time.After(5 * time.Second):
		t.Fatal("the poller did not notice an edited .go file within 5s")
	}
	// A write may be seen half done, then done: let it settle first.
	time.Sleep(50 * time.Millisecond)
	for len(changes) > 0 {
		<-changes
	}
	// A file that is not Go is no reason to rerun the tests.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644))
	select {
	case <-changes:
		t.Error("the poller reported a change for a .txt file")
	case <-time.After(100 * time.Millisecond):
	}
}

// watchRig runs watch mode on a temporary level folder, with a real
// poller and a grader that reports each run on runs.
type watchRig struct {
	root, dir string
	runs      chan string // the level's files as each run saw them
	interrupt chan os.Signal
	done      chan struct{}
	stopOnce  sync.Once
	out       strings.Builder // read it only after stop
}

// stop ends watch with Ctrl-C and waits for it to return.
func (r *watchRig) stop() {
	r.stopOnce.Do(func() { r.interrupt <- os.Interrupt; <-r.done })
}

func startWatch(t *testing.T, keys chan byte) *watchRig {
	t.Helper()
	r := &watchRig{root: t.TempDir(), runs: make(chan string, 10), interrupt: make(chan os.Signal, 1), done: make(chan struct{})}
	l := useFixture(t)
	r.dir = filepath.Join(r.root, l.Dir)
	require.NoError(t, os.MkdirAll(r.dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(r.dir, "a.go"), []byte("package a\n"), 0o644))
	copyTree(t, filepath.Join(fixtureDir(t), l.Dir, "README.md"), filepath.Join(r.dir, "README.md"))
	changes, stop := interview.PollChanges(r.dir, 10*time.Millisecond)
	t.Cleanup(stop)
	t2 := interview.Terminal{Out: &r.out, ErrOut: &r.out, Changes: changes, Interrupt: r.interrupt, Keys: keys,
		Hint: func() { fmt.Fprintln(&r.out, "a hint") }, Settle: 20 * time.Millisecond}
	test := func() (grade.Level, error) {
		r.runs <- interview.Snapshot(r.dir)
		return grade.Level{Level: l, Parts: []grade.Part{{Number: 1, Title: "One", Total: 1}, {Number: 2, Title: "Two"}}}, nil
	}
	go func() { defer close(r.done); watch(t2, r.root, l, false, test) }()
	t.Cleanup(r.stop)
	return r
}

// run waits for the next run, or fails after 5s.
func (r *watchRig) run(t *testing.T, why string) string {
	t.Helper()
	select {
	case s := <-r.runs:
		return s
	case <-time.After(5 * time.Second):
		t.Fatalf("no run within 5s %s", why)
		return ""
	}
}

// noRun checks that no run comes for a while: 300ms, thirty looks of the
// rig's poller.
func (r *watchRig) noRun(t *testing.T, why string) {
	t.Helper()
	select {
	case <-r.runs:
		t.Fatalf("a run %s", why)
	case <-time.After(300 * time.Millisecond):
	}
}

// clockRE is the time at the end of watch's status line.
var clockRE = regexp.MustCompile(`\d\d:\d\d:\d\d\]`)

func TestWatchStartsWithExactlyOneRun(t *testing.T) {
	r := startWatch(t, nil)
	r.run(t, "at the start")
	r.noRun(t, "without a save")
	require.NoError(t, os.WriteFile(filepath.Join(r.dir, "a.go"), []byte("package a // saved\n"), 0o644))
	require.Contains(t, r.run(t, "after a save"), "a.go")
	r.noRun(t, "more after one save")
	r.stop()
	log := clockRE.ReplaceAllString(r.out.String(), "14:03:12]")
	require.Equal(t, 2, strings.Count(log, "Watching ladder/01-tally for changes."), log)
	require.True(t, strings.HasSuffix(log, "Ctrl-C stops.\n[watch: level 1 · part 1 of 2 in progress · saved 14:03:12]\n"), log)
	require.Contains(t, log, "[watch: level 1 · part 1 of 2 in progress · started 14:03:12]\n")
}

// TestWatchKeys: on a terminal, r runs the tests, h shows a hint, p the
// part in progress, and any other letter the keys.
func TestWatchKeys(t *testing.T) {
	keys := make(chan byte) // unbuffered: a send returns once watch has the key
	r := startWatch(t, keys)
	r.run(t, "at the start")
	keys <- 'r'
	r.run(t, "after r")
	for _, k := range []byte("hpx") {
		keys <- k
	}
	r.noRun(t, "after h, p and x")
	r.stop()
	log := clockRE.ReplaceAllString(r.out.String(), "14:03:12]")
	containsAll(t, log, "Watching ladder/01-tally for changes. "+watchKeys+"\n",
		"[watch: level 1 · part 1 of 2 in progress · rerun 14:03:12]",
		"a hint\n[watch: ", "\n## Part 1: Count the calls\n", "(ladder/01-tally/README.md has the rest.)\n[watch: ",
		watchKeys+"\n[watch: level 1 · part 1 of 2 in progress · rerun 14:03:12]\n")
	require.True(t, strings.HasSuffix(log, watchKeys+"\n[watch: level 1 · part 1 of 2 in progress · rerun 14:03:12]\n"), log)
}

func TestPollingSeesAFolderMadeAfterItStarted(t *testing.T) {
	dir := t.TempDir()
	changes, stop := interview.PollChanges(dir, 10*time.Millisecond)
	defer stop()
	sub := filepath.Join(dir, "more")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "b.go"), []byte("package more\n"), 0o644))
	select {
	case <-changes:
	case <-time.After(5 * time.Second):
		t.Fatal("the poller did not notice a .go file in a new folder within 5s")
	}
}

func TestWatchSeesAFolderMadeAfterItStarted(t *testing.T) {
	r := startWatch(t, nil)
	r.run(t, "at the start")
	sub := filepath.Join(r.dir, "more", "deeper")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "b.go"), []byte("package deeper\n"), 0o644))
	require.Contains(t, r.run(t, "for a file in a new folder"), "b.go")
	// And a later save in it, once the folder is watched.
	require.NoError(t, os.WriteFile(filepath.Join(sub, "b.go"), []byte("package deeper // saved\n"), 0o644))
	r.run(t, "for a second save in the new folder")
}

func TestWatchStatusSaysWhereTheLevelStands(t *testing.T) {
	l := useFixture(t)
	parts := func(done ...bool) []grade.Part {
		var ps []grade.Part
		for i, d := range done {
			ps = append(ps, grade.Part{Number: i + 1, Total: 1, Done: d})
		}
		return ps
	}
	for want, g := range map[string]grade.Level{
		"part 2 of 2 in progress": {Level: l, Parts: parts(true, false)},
		"all 2 parts done":        {Level: l, Parts: parts(true, true)},
		"does not compile":        {Level: l, Parts: parts(false, false), BuildError: "x.go:1: syntax error"},
		"did not finish":          {Level: l, Parts: parts(false, false), Broken: []string{"ladder/01-tally: timed out"}},
	} {
		if got := watchStatus(g); got != want {
			t.Errorf("watchStatus(%+v) = %q, want %q", g, got, want)
		}
	}
	// A part after one that is done, whose test binary broke.
	broken := grade.Level{Level: l, Parts: parts(true, false), Broken: []string{"ladder/01-tally: timed out"}}
	broken.Parts[1].Blocked = broken.Broken
	if got, want := watchStatus(broken), "part 2 of 2 did not finish"; got != want {
		t.Errorf("watchStatus(%+v) = %q, want %q", broken, got, want)
	}
}
