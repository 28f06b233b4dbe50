package grade

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/internal/grade/testdata/probe"
	"github.com/rateladder/rateladder/harness/levels"
)

// The learner's loop must never say "done" for a part that did not run to
// its end, whatever the learner's code does. Each probe here is a way for
// that code to misbehave, in the fixture level testdata/probe: its part 1
// passes first, then part 2's first case calls the misbehaving method.

// probeLevel is the fixture level, as the registry would hold it.
var probeLevel = levels.Level{Number: 1, Title: "Probe", Dir: "harness/internal/grade/testdata/probe",
	Modules: []levels.Module{{Dir: ".", FirstPart: 1}},
	Parts:   []levels.Part{{Number: 1, Title: "First"}, {Number: 2, Title: "Second"}}}

// probed is one probe, graded, and the grade as a learner reads it.
type probed struct {
	Level
	out string
}

// gradeProbes grades the fixture level with each probe named, in one go
// test run: a folder of the fixture level for each probe.
func gradeProbes(t *testing.T, race bool, probes ...string) map[string]probed {
	t.Helper()
	root := repoRoot(t)
	runner := Plain
	runner.Note = nil
	r := Run{Module: ".", Race: race}
	for _, p := range probes {
		r.Patterns = append(r.Patterns, "./"+probeLevel.Dir+"/"+p)
	}
	pkgs, err := RunGoTest(context.Background(), root, r, runner)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]probed{}
	for _, p := range pkgs {
		g := Grade(root, probeLevel, []*Package{p})
		var b bytes.Buffer
		Write(&b, g, 0, false)
		out[filepath.Base(p.Dir)] = probed{g, b.String()}
	}
	if len(out) != len(probes) {
		t.Fatalf("go test ran %d of the probes %v", len(out), probes)
	}
	return out
}

// gradeProbe grades the fixture level with the probe named.
func gradeProbe(t *testing.T, probe string) (Level, string) {
	g := gradeProbes(t, false, probe)[probe]
	return g.Level, g.out
}

func TestProbesGetTheirVerdicts(t *testing.T) {
	limit := floodLimit
	t.Cleanup(func() { floodLimit = limit })
	floodLimit = 1 << 20 // the flood probe prints 8 MiB
	// -short plays the probes that each end a test binary another way.
	short := []string{"none", "os-exit-1", "panic-in-goroutine", "skip", "flood"}
	type probeCase struct {
		probe string
		part1 bool   // part 1 still counts as done
		want  string // in the grade as a learner reads it
	}
	// The probes of a run are graded together; the race probe runs under
	// -race, and the flood probe alone, as its output stops its whole run.
	runs := []struct {
		race  bool
		cases []probeCase
	}{
		{false, []probeCase{
			{"none", true, "part 2, second: done"},
			{"parent", true, "part 2, second: done"},
			{"no-runner", false, `1 case never reported, such as "first"`},
			{"wrong", true, "Do(t=0s) = 42, want 3"},
			{"os-exit-0", true, "unexpected call to os.Exit(0) during test"},
			{"os-exit-1", false, `the test binary exited during case "the probe" of part 2: does your code call os.Exit`},
			{"syscall-exit-0", false, `during case "the probe" of part 2: does your code call os.Exit`},
			{"goexit", true, "runtime.Goexit"},
			{"panic-in-goroutine", false, `crashed during case "the probe" of part 2: panic: probe: boom`},
			{"concurrent-map-writes", false, "concurrent map writes"},
			{"init-exit", false, "does an init function in your code call os.Exit?"},
			{"skip", true, `2 cases never reported, such as "the probe": was a case skipped`},
			{"grandchild", true, "part 2, second: done"},
		}},
		{true, []probeCase{{"race", true, "data race"}}},
		{false, []probeCase{{"flood", false, `printed more than 1 MB during case "the probe" of part 2`}}},
	}
	for _, run := range runs {
		cases := slices.DeleteFunc(run.cases, func(tc probeCase) bool { return testing.Short() && !slices.Contains(short, tc.probe) })
		if len(cases) == 0 {
			continue
		}
		var names []string
		for _, tc := range cases {
			names = append(names, tc.probe)
		}
		got := gradeProbes(t, run.race, names...)
		for _, tc := range cases {
			g, out := got[tc.probe].Level, got[tc.probe].out
			if !strings.Contains(out, tc.want) {
				t.Errorf("%s: the grade does not say %q:\n%s", tc.probe, tc.want, out)
			}
			if g.Parts[0].Done != tc.part1 {
				t.Errorf("%s: part 1 done = %v, want %v:\n%s", tc.probe, g.Parts[0].Done, tc.part1, out)
			}
			if g.Parts[1].Done != (tc.probe == "none" || tc.probe == "parent" || tc.probe == "grandchild") {
				t.Errorf("%s: part 2 done = %v:\n%s", tc.probe, g.Parts[1].Done, out)
			}
		}
	}
}

// TestAHangingMethodIsNamedByItsCase: the runner stops waiting for a case
// after its time limit, names it, and goes on with the next.
func TestAHangingMethodIsNamedByItsCase(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a case's time limit")
	}
	t.Setenv("LADDER_CASE_TIMEOUT", "500ms")
	g, out := gradeProbe(t, "hang")
	if !g.Parts[0].Done || g.Parts[1].Done || !strings.Contains(out, `"the probe"`) || !strings.Contains(out, "did not finish in 500ms") {
		t.Errorf("the grade does not name the case that hung:\n%s", out)
	}
}

// TestTheGrandchildIsEndedWithTheRun: a process the learner's code starts,
// which holds the test binary's output open, neither keeps the grade
// waiting nor outlives it.
func TestTheGrandchildIsEndedWithTheRun(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("starts sleep(1) from the fixture level; Linux's /proc")
	}
	start := time.Now()
	gradeProbe(t, "grandchild")
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the grade took %v; the grandchild sleeps 60 s", took)
	}
	if out, err := exec.Command("pgrep", "-f", "sleep "+probe.GrandchildSleep).Output(); err == nil {
		t.Errorf("the grandchild outlived the grade: pgrep found %s", out)
	}
}
