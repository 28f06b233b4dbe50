package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

func TestReadEventsKeepsBuildErrorsAndSkips(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"m/ladder/01-x"}`,
		`{"Action":"output","Package":"m/ladder/01-x","Test":"TestX/part_1/a","Output":"PASS: a forged line from the learner\n"}`,
		`{"Action":"output","Package":"m/ladder/01-x","Output":"ok  \tm/ladder/01-x\n"}`,
		`{"Action":"build-output","ImportPath":"m/ladder/02-y/spec","Output":"ladder/02-y/y.go:3:1: syntax error\n"}`,
		`{"Action":"build-fail","ImportPath":"m/ladder/02-y/spec"}`,
		`{"Action":"fail","Package":"m/ladder/02-y","FailedBuild":"m/ladder/02-y/spec"}`,
		`{"Action":"skip","Package":"m/ladder/03-z/limits"}`,
	}, "\n")
	byPath := map[string]*pkgResult{}
	for _, p := range []string{"m/ladder/01-x", "m/ladder/02-y", "m/ladder/03-z/limits"} {
		byPath[p] = &pkgResult{ImportPath: p}
	}
	readEvents(strings.NewReader(in), byPath, func() {})
	if y := byPath["m/ladder/02-y"]; !strings.Contains(y.BuildError, "syntax error") {
		t.Errorf("02-y BuildError = %q, want the spec's syntax error", y.BuildError)
	}
	if !byPath["m/ladder/03-z/limits"].NoTests {
		t.Error("a package without tests was not marked so")
	}
	if x := byPath["m/ladder/01-x"]; x.BuildError != "" || x.NoTests || len(x.Cases) != 0 {
		t.Errorf("01-x = %+v; printed lines must never count as results", x)
	}
}

func TestGradeLevelCountsOnlyCasesThatRanToTheirEnd(t *testing.T) {
	l := levels.Level{Number: 1, Title: "One", Dir: "ladder/01-one", Parts: []levels.Part{{Number: 1, Title: "First"}, {Number: 2, Title: "Second"}}}
	pass := func(part int, name string) protocol.Event {
		return protocol.Event{Kind: "case-end", Case: name, Part: part, Verdict: "pass"}
	}
	complete := &protocol.Event{Kind: "exit", Complete: true}
	for _, tc := range []struct {
		name   string
		pkg    pkgResult
		status string
		done   []bool
	}{
		{"all pass", pkgResult{Exit: complete, Cases: []protocol.Event{pass(1, "a"), pass(2, "b")}}, statusDone, []bool{true, true}},
		{"part 2 fails", pkgResult{Exit: complete, Cases: []protocol.Event{pass(1, "a"), {Kind: "case-end", Part: 2, Verdict: "fail"}}}, statusInProgress, []bool{true, false}},
		{"not started", pkgResult{Exit: complete, Cases: []protocol.Event{{Part: 1, Verdict: "not implemented"}, {Part: 2, Verdict: "not implemented"}}}, statusNotStarted, []bool{false, false}},
		{"a fuzz seed fails in part 2", pkgResult{Exit: complete, Cases: []protocol.Event{pass(1, "a"), pass(2, "b"), {Part: 2, Fuzz: true, Verdict: "fail"}}}, statusInProgress, []bool{true, false}},
		{"the binary exited part way", pkgResult{Exit: &protocol.Event{Kind: "exit", Reason: "exited"}, Cases: []protocol.Event{pass(1, "a"), pass(2, "b")}}, statusBroken, []bool{false, false}},
		{"no supervisor", pkgResult{Cases: []protocol.Event{pass(1, "a"), pass(2, "b")}}, statusUnverified, []bool{false, false}},
		{"part 2 never ran", pkgResult{Exit: complete, Cases: []protocol.Event{pass(1, "a")}}, statusInProgress, []bool{true, false}},
		{"does not compile", pkgResult{BuildError: "syntax error"}, statusNoBuild, []bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.pkg
			p.Dir = "/r/ladder/01-one"
			g := gradeLevel("/r", l, []*pkgResult{&p})
			var done []bool
			for _, pt := range g.Parts {
				done = append(done, pt.Done)
			}
			if g.status() != tc.status || !slices.Equal(done, tc.done) {
				t.Errorf("gradeLevel = status %q, done %v; want %q, %v", g.status(), done, tc.status, tc.done)
			}
		})
	}
}

func TestFocusedOutputShowsOnePartAtATime(t *testing.T) {
	l := levels.Level{Number: 3, Title: "Three", Dir: "ladder/03-three", Parts: []levels.Part{{Number: 1, Title: "First"}, {Number: 2, Title: "Second"}, {Number: 3, Title: "Third"}}}
	ev := func(part int, verdict, name string) protocol.Event {
		return protocol.Event{Kind: "case-end", Case: name, Part: part, Verdict: verdict, Report: "case report", Missing: "Bucket.Delay", Where: "ladder/03-three/b.go:9"}
	}
	p := &pkgResult{Dir: "/r/ladder/03-three", Exit: &protocol.Event{Complete: true}, Cases: []protocol.Event{
		ev(1, "pass", "a"), ev(1, "pass", "b"), ev(2, "pass", "c"), ev(2, "fail", "d"), ev(2, "not implemented", "e"), ev(3, "not implemented", "f"),
	}}
	var b strings.Builder
	writeGrade(&b, gradeLevel("/r", l, []*pkgResult{p}), 0, false)
	want := `Level 3: Three

part 1, first: done (2/2)
part 2, second: 1 of 3 cases pass
  not implemented yet: Bucket.Delay (ladder/03-three/b.go:9), needed by 2 cases

  case report

part 3, third: waits for part 2 (1 case)

level 3: part 1 done (2/2), part 2 1/3, part 3 waiting
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("writeGrade mismatch (-want +got):\n%s", diff)
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
		for _, want := range []string{
			"1      Hit counter                           0/2    not started",
			"2      Logger rate limiter                   0/2    not started",
			"0 of 27 parts done",
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
		require.NoError(t, os.WriteFile(stub, []byte(halfDone(t)), 0o644))
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
		for _, want := range []string{"2/2    done", "2 of 27 parts done", "next: level 2, part 1 (print each message at most once per interval): make test-level-2"} {
			if !strings.Contains(out, want) {
				t.Errorf("progress output lacks %q:\n%s", want, out)
			}
		}
	})
}
