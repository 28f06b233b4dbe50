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

// watch feeds lines of output to a test binary's reader, as go test's
// output outside any test, and returns the binary.
func watch(root string, lines ...string) *binary {
	r, b := &reader{root: root}, &binary{pkg: &Package{}}
	for _, l := range lines {
		r.line(b, "", l)
	}
	return b
}

// crashed is the headline of the crash a binary ended with, as the reason
// it did not run to its end says it.
func crashed(t *testing.T, root string, b *binary) string {
	t.Helper()
	b.seen, b.end, b.tests = true, "fail", map[string]*strings.Builder{}
	(&reader{root: root, bins: map[string]*binary{"p": b}}).finish()
	headline, ok := strings.CutPrefix(b.pkg.Broken, "the test binary crashed before any case started: ")
	headline, ok2 := strings.CutSuffix(headline, ". Nothing in it counts as done.")
	if !ok || !ok2 {
		t.Fatalf("the binary ended %q, want a crash", b.pkg.Broken)
	}
	return headline
}

// races is the reports a binary found, cut.
func races(b *binary) []string {
	var out []string
	for _, r := range b.pkg.Races {
		out = append(out, r.Report)
	}
	return out
}

func TestWatcherCutsARaceReportToTheLearnersLines(t *testing.T) {
	root := raceRoot(t)
	b := watch(root, strings.Split(strings.ReplaceAll(raceReport, "ROOT", root), "\n")...)
	want := []string{`WARNING: DATA RACE
Write at 0x00c0000941d8 by goroutine 8:
  (*Store).Put  ladder/07-qps-store/qpsstore.go:41
Previous read at 0x00c0000941d8 by goroutine 7:
  (*slowMutant).QPS  ladder/07-qps-store/spec/mutants_test.go:33`}
	if diff := cmp.Diff(want, races(b)); diff != "" {
		t.Errorf("race reports (-want +got):\n%s", diff)
	}
	if b.crash != nil {
		t.Errorf("a race report read as a crash")
	}
}

func TestWatcherKeepsARaceReportShort(t *testing.T) {
	lines := []string{"WARNING: DATA RACE"}
	for _, access := range []string{"Write at 0x1 by goroutine 8:", "Previous write at 0x1 by goroutine 7:"} {
		lines = append(lines, access)
		for i := range 20 {
			lines = append(lines, "  github.com/rateladder/rateladder/ladder/x.f()",
				"      "+repoRoot(t)+"/ladder/07-qps-store/qpsstore.go:"+string(rune('0'+i%10))+" +0x1")
		}
		lines = append(lines, "")
	}
	got := strings.Join(races(watch(repoRoot(t), append(lines, "==================")...)), "")
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
	b := watch(repoRoot(t), append([]string{"panic: a line a learner printed, long before", "some more output"},
		strings.Split(strings.ReplaceAll(fatalError, "ROOT", repoRoot(t)), "\n")...)...)
	if b.crash == nil {
		t.Fatal("no crash read, want the fatal error")
	}
	if got, want := crashed(t, repoRoot(t), b), "fatal error: concurrent map writes (ladder/07-qps-store/qpsstore.go:41)"; got != want {
		t.Errorf("headline = %q, want %q", got, want)
	}
}

func TestWatcherReadsGoTestsTimeout(t *testing.T) {
	r := &reader{root: repoRoot(t), bins: map[string]*binary{}}
	b := watch(repoRoot(t), "panic: test timed out after 2m0s", "\trunning tests:", "\t\tTestX/part_1/a (2m0s)", "", "goroutine 17 [running]:", "testing.(*M).startAlarm.func1()", "\t/usr/local/go/src/testing/testing.go:2682 +0x345", "")
	b.seen, b.end, b.tests = true, "fail", map[string]*strings.Builder{"TestX/part_1/a": {}}
	r.bins["p"] = b
	r.finish()
	if want := `the test binary reached go test's time limit (-timeout 2m0s) during case "a" of part 1.`; !strings.HasPrefix(b.pkg.Broken, want) {
		t.Errorf("broken = %q, want a reason that starts %q", b.pkg.Broken, want)
	}
}

func TestWatcherReadsATrimmedPath(t *testing.T) {
	b := watch(repoRoot(t), []string{
		"panic: boom", "", "goroutine 7 [running]:",
		"testing.tRunner.func1.2({0x5b0e40, 0x6043b0})", "\ttesting/testing.go:1872 +0x237",
		"github.com/rateladder/rateladder/ladder/07-qps-store.(*Store).Put(...)", "\tgithub.com/rateladder/rateladder/ladder/07-qps-store/qpsstore.go:41 +0x5d",
		"github.com/rateladder/rateladder/harness/timeline.Play[...].func2()", "\tgithub.com/rateladder/rateladder/harness/timeline/play.go:88 +0xfa",
		"",
	}...)
	if got := crashed(t, repoRoot(t), b); got != "panic: boom (ladder/07-qps-store/qpsstore.go:41)" {
		t.Errorf("crash text under -trimpath = %q", got)
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
