package grade

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// raceReport is a real report of go test -race, trimmed, with ROOT for the
// module root: a learner's Store raced with itself, called by a spec's
// case and by a mutant in the spec's own test file.
const raceReport = `==================
WARNING: DATA RACE
Write at 0x00c0000941d8 by goroutine 8:
  github.com/rateladder/rateladder/ladder/07-qps-store.(*Store).Put()
      ROOT/ladder/07-qps-store/qpsstore.go:41 +0x47
  github.com/rateladder/rateladder/ladder/07-qps-store/spec.putMany.func1()
      ROOT/ladder/07-qps-store/spec/spec.go:120 +0xe

Previous read at 0x00c0000941d8 by goroutine 7:
  github.com/rateladder/rateladder/ladder/07-qps-store/spec.(*slowMutant).QPS()
      ROOT/ladder/07-qps-store/spec/mutants_test.go:33 +0x104
  github.com/rateladder/rateladder/harness/timeline.Play[...].func2()
      ROOT/harness/timeline/play.go:88 +0xfa
  testing.tRunner()
      /usr/local/go/src/testing/testing.go:2036 +0x21c

Goroutine 8 (running) created at:
  github.com/rateladder/rateladder/ladder/07-qps-store/spec.putMany()
      ROOT/ladder/07-qps-store/spec/spec.go:118 +0xf9
  testing.tRunner()
      /usr/local/go/src/testing/testing.go:2036 +0x21c
==================
`

// raceRoot is a folder with the files raceReport names, so that the
// watcher finds them there, as it does in a checkout.
func raceRoot(t *testing.T) string {
	root := t.TempDir()
	for _, f := range []string{"ladder/07-qps-store/qpsstore.go", "ladder/07-qps-store/spec/spec.go", "ladder/07-qps-store/spec/mutants_test.go", "harness/timeline/play.go"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestWatcherCutsARaceReportToTheLearnersLines(t *testing.T) {
	var got []string
	root := raceRoot(t)
	w := &watcher{root: root, onRace: func(r string) { got = append(got, r) }}
	for _, l := range strings.Split(strings.ReplaceAll(raceReport, "ROOT", root), "\n") {
		w.line(l)
	}
	want := []string{`WARNING: DATA RACE
Write at 0x00c0000941d8 by goroutine 8:
  (*Store).Put  ladder/07-qps-store/qpsstore.go:41
Previous read at 0x00c0000941d8 by goroutine 7:
  (*slowMutant).QPS  ladder/07-qps-store/spec/mutants_test.go:33`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("race reports (-want +got):\n%s", diff)
	}
	if _, crashed := w.crashed(); crashed {
		t.Errorf("a race report read as a crash")
	}
}

func TestWatcherKeepsARaceReportShort(t *testing.T) {
	var got string
	w := &watcher{root: repoRoot(t), onRace: func(r string) { got = r }}
	w.line("WARNING: DATA RACE")
	for _, access := range []string{"Write at 0x1 by goroutine 8:", "Previous write at 0x1 by goroutine 7:"} {
		w.line(access)
		for i := range 20 {
			w.line("  github.com/rateladder/rateladder/ladder/x.f()")
			w.line("      " + repoRoot(t) + "/ladder/07-qps-store/qpsstore.go:" + string(rune('0'+i%10)) + " +0x1")
		}
		w.line("")
	}
	w.line("==================")
	if n := strings.Count(got, "\n") + 1; n != maxRaceLines {
		t.Errorf("a report of two 20-frame accesses is cut to %d lines, want %d:\n%s", n, maxRaceLines, got)
	}
}

// fatalError is what the runtime printed for concurrent map writes in a
// learner's Put, trimmed, with ROOT for the module root.
const fatalError = `fatal error: concurrent map writes

goroutine 21 [running]:
internal/runtime/maps.fatal({0x6b3c1e?, 0x0?})
	/usr/local/go/src/runtime/panic.go:1058 +0x18
github.com/rateladder/rateladder/ladder/07-qps-store.(*Store).Put(0xc00012e000, {0x6b0e35, 0x3}, {0x6b0e38, 0x1})
	ROOT/ladder/07-qps-store/qpsstore.go:41 +0x5d
github.com/rateladder/rateladder/ladder/07-qps-store/spec.putMany.func1()
	ROOT/ladder/07-qps-store/spec/spec.go:120 +0x3f
created by github.com/rateladder/rateladder/ladder/07-qps-store/spec.putMany in goroutine 20
	ROOT/ladder/07-qps-store/spec/spec.go:118 +0x8c

goroutine 1 [chan receive]:
testing.(*T).Run(0xc000003500, {0x6b2a5e?, 0x0?}, 0x6c4d10)
	/usr/local/go/src/testing/testing.go:2109 +0x4c5
`

func TestWatcherReadsACrash(t *testing.T) {
	w := &watcher{root: repoRoot(t)}
	w.line("panic: a line a learner printed, long before")
	w.line("some more output")
	for _, l := range strings.Split(strings.ReplaceAll(fatalError, "ROOT", repoRoot(t)), "\n") {
		w.line(l)
	}
	c, ok := w.crashed()
	if !ok {
		t.Fatal("crashed() = false, want the fatal error")
	}
	if got, want := c.text(), "fatal error: concurrent map writes\n  (*Store).Put  ladder/07-qps-store/qpsstore.go:41"; got != want {
		t.Errorf("crash text = %q, want %q", got, want)
	}
	if got, want := c.headline(), "fatal error: concurrent map writes (ladder/07-qps-store/qpsstore.go:41)"; got != want {
		t.Errorf("headline = %q, want %q", got, want)
	}
}

func TestWatcherReadsGoTestsTimeout(t *testing.T) {
	w := &watcher{root: repoRoot(t)}
	for _, l := range []string{"panic: test timed out after 2m0s", "\trunning tests:", "\t\tTestX/part_1/a (2m0s)", "", "goroutine 17 [running]:", "testing.(*M).startAlarm.func1()", "\t/usr/local/go/src/testing/testing.go:2682 +0x345", ""} {
		w.line(l)
	}
	c, _ := w.crashed()
	if limit, ok := c.timeout(); !ok || limit != "2m0s" {
		t.Errorf("timeout() = %q, %v; want 2m0s, true", limit, ok)
	}
}

func TestWatcherReadsATrimmedPath(t *testing.T) {
	w := &watcher{root: repoRoot(t)}
	for _, l := range []string{
		"panic: boom", "", "goroutine 7 [running]:",
		"testing.tRunner.func1.2({0x5b0e40, 0x6043b0})", "\ttesting/testing.go:1872 +0x237",
		"github.com/rateladder/rateladder/ladder/07-qps-store.(*Store).Put(...)", "\tgithub.com/rateladder/rateladder/ladder/07-qps-store/qpsstore.go:41 +0x5d",
		"github.com/rateladder/rateladder/harness/timeline.Play[...].func2()", "\tgithub.com/rateladder/rateladder/harness/timeline/play.go:88 +0xfa",
		"",
	} {
		w.line(l)
	}
	c, _ := w.crashed()
	if got, want := c.text(), "panic: boom\n  (*Store).Put  ladder/07-qps-store/qpsstore.go:41"; got != want {
		t.Errorf("crash text under -trimpath = %q, want %q", got, want)
	}
}

// repoRoot is the repository's top folder, two floors above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}
