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
)

func TestParseEventsSortsCasesByVerdict(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"m/ladder/01-x","Test":"TestX/part_1/a_case"}`,
		`{"Action":"output","Package":"m/ladder/01-x","Test":"TestX/part_1/a_case","Output":"    timeline.go:1: not implemented yet: New (ladder/01-x/x.go:9)\n"}`,
		`{"Action":"fail","Package":"m/ladder/01-x","Test":"TestX/part_1/a_case"}`,
		`{"Action":"pass","Package":"m/ladder/01-x","Test":"TestX/part_1/another"}`,
		`{"Action":"output","Package":"m/ladder/01-x","Test":"TestX/part_2/third","Output":"Count(t=15s) = 1, want 0\n"}`,
		`{"Action":"fail","Package":"m/ladder/01-x","Test":"TestX/part_2/third"}`,
		`{"Action":"fail","Package":"m/ladder/01-x","Test":"TestX/part_2"}`,
		`{"Action":"build-output","ImportPath":"m/ladder/02-y","Output":"ladder/02-y/y.go:3:1: syntax error\n"}`,
		`{"Action":"build-fail","ImportPath":"m/ladder/02-y"}`,
		`{"Action":"fail","Package":"m/ladder/02-y"}`,
	}, "\n")
	got := parseEvents(strings.NewReader(in))
	x := got["m/ladder/01-x"]
	require.NotNil(t, x)
	var summary []string
	for _, c := range x.Cases {
		summary = append(summary, c.Name+"="+c.Status)
	}
	if want := "a_case=notimpl another=pass third=fail"; strings.Join(summary, " ") != want {
		t.Errorf("cases = %q, want %q", strings.Join(summary, " "), want)
	}
	if y := got["m/ladder/02-y"]; y == nil || !strings.Contains(y.BuildError, "syntax error") {
		t.Errorf("the build failure of 02-y was not recorded: %+v", y)
	}
}

func TestSummarizeGivesEachLevelItsStatus(t *testing.T) {
	levels := []level{
		{Number: 1, Title: "One", Dir: "ladder/01-one", Parts: []part{{1, "First"}, {2, "Second"}}},
		{Number: 2, Title: "Two", Dir: "ladder/02-two", Parts: []part{{1, "Only"}}},
		{Number: 3, Title: "Three", Dir: "ladder/03-three", Parts: []part{{1, "Time going backwards"}}},
		{Number: 4, Title: "Four", Dir: "ladder/04-four", Parts: []part{{1, "Only"}}},
		{Number: 5, Title: "Five"},
	}
	results := map[string]*pkgResult{
		"m/ladder/01-one":   {Cases: []*caseResult{{Part: 1, Status: "pass"}, {Part: 2, Status: "pass"}}},
		"m/ladder/02-two":   {Cases: []*caseResult{{Part: 1, Status: "pass"}, {Part: 1, Status: "fail"}}},
		"m/ladder/03-three": {Cases: []*caseResult{{Part: 1, Status: "notimpl"}}},
		"m/ladder/04-four":  {Failed: true, BuildError: "syntax error"},
	}
	rep := summarize(levels, results)
	var got []string
	for _, l := range rep.Levels {
		got = append(got, l.Status)
	}
	want := []string{statusDone, statusInProgress, statusNotStarted, statusNoBuild, statusComing}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("statuses = %q, want %q", got, want)
	}
	if rep.PartsDone != 2 || rep.Parts != 5 {
		t.Errorf("parts done = %d of %d, want 2 of 5", rep.PartsDone, rep.Parts)
	}
	if want := "level 2, part 1 (only): make test-level-2"; rep.Next != want {
		t.Errorf("next = %q, want %q", rep.Next, want)
	}
}

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
	for _, p := range []string{"go.mod", "go.sum", "harness/clock", "harness/timeline", "ladder/01-hit-counter"} {
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
		for _, want := range []string{
			"1      Hit counter                           0/2    not started",
			"2      Logger rate limiter                   -      coming",
			"0 of 2 parts done",
			"next: level 1, part 1 (count the last window): make test-level-1",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("progress output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "\x1b[") {
			t.Errorf("progress with NO_COLOR printed colour codes:\n%q", out)
		}
		golden(t, "progress-untouched", out)
	})

	t.Run("half done", func(t *testing.T) {
		// Right answers with a re-slicing queue: part 1 passes, part 2 fails.
		require.NoError(t, os.WriteFile(stub, []byte(halfDone), 0o644))
		out, code := runLadder(t, dir, "progress", "--json")
		require.Equal(t, 0, code, out)
		var rep ladderReport
		require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
		l := rep.Levels[0]
		if l.Status != statusInProgress || l.PartsDone != 1 || !l.Parts[0].Done || l.Parts[1].Done {
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
		for _, want := range []string{"does not compile", "level 1 does not compile; fix it first: make test-level-1"} {
			if !strings.Contains(out, want) {
				t.Errorf("progress output lacks %q:\n%s", want, out)
			}
		}
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
		for _, want := range []string{"2/2    done", "2 of 2 parts done", "every level built so far is done; level 2 is coming"} {
			if !strings.Contains(out, want) {
				t.Errorf("progress output lacks %q:\n%s", want, out)
			}
		}
	})
}

// halfDone answers every part 1 case right, with the queue part 2 rejects.
const halfDone = `package hitcounter

import "time"

type Counter struct {
	window time.Duration
	hits   []time.Time
}

func New(window time.Duration) *Counter {
	if window <= 0 {
		panic("bad window " + window.String())
	}
	return &Counter{window: window}
}

func (c *Counter) Hit(now time.Time) { c.Count(now); c.hits = append(c.hits, now) }

func (c *Counter) Count(now time.Time) int {
	for len(c.hits) > 0 && !c.hits[0].After(now.Add(-c.window)) {
		c.hits = c.hits[1:]
	}
	return len(c.hits)
}
`
