package grade

import (
	"bytes"
	"context"
	"os/exec"
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

// gradeProbe grades the fixture level with the probe named.
func gradeProbe(t *testing.T, probe string, race bool) (Level, string) {
	t.Helper()
	root := repoRoot(t)
	runner := Plain
	runner.Note = nil
	runner.Command = func(ctx context.Context, dir string, args ...string) *exec.Cmd {
		cmd := Plain.Command(ctx, dir, args...)
		cmd.Env = append(cmd.Env, "LADDER_TEST_PROBE="+probe, QuickRaceExit)
		return cmd
	}
	pkgs, err := RunGoTest(context.Background(), root, Run{Module: ".", Patterns: []string{"./" + probeLevel.Dir}, Race: race}, runner)
	if err != nil {
		t.Fatal(err)
	}
	g := Grade(root, probeLevel, pkgs)
	var out bytes.Buffer
	Write(&out, g, 0, false)
	return g, out.String()
}

func TestProbesGetTheirVerdicts(t *testing.T) {
	limit := floodLimit
	t.Cleanup(func() { floodLimit = limit }) // after the parallel subtests
	floodLimit = 1 << 20                     // the flood probe prints 8 MiB
	// -short plays the probes that each end a test binary another way.
	short := []string{"none", "os-exit-1", "panic-in-goroutine", "skip", "flood"}
	for _, tc := range []struct {
		probe string
		race  bool
		part1 bool   // part 1 still counts as done
		want  string // in the grade as a learner reads it
	}{
		{"none", false, true, "part 2, second: done"},
		{"parent", false, true, "part 2, second: done"},
		{"no-runner", false, false, "did not report through the ladder's runner"},
		{"wrong", false, true, "Do(t=0s) = 42, want 3"},
		{"os-exit-0", false, true, "unexpected call to os.Exit(0) during test"},
		{"os-exit-1", false, false, `the test binary exited during case "the probe" of part 2: does your code call os.Exit`},
		{"syscall-exit-0", false, false, `during case "the probe" of part 2: does your code call os.Exit`},
		{"goexit", false, true, "runtime.Goexit"},
		{"panic-in-goroutine", false, false, `crashed during case "the probe" of part 2: panic: probe: boom`},
		{"concurrent-map-writes", false, false, "concurrent map writes"},
		{"race", true, true, "data race"},
		{"init-exit", false, false, "does an init function in your code call os.Exit?"},
		{"skip", false, true, `2 cases never reported, such as "the probe": was a case skipped`},
		{"flood", false, false, `printed more than 1 MB during case "the probe" of part 2`},
		{"grandchild", false, true, "part 2, second: done"},
	} {
		t.Run(tc.probe, func(t *testing.T) {
			if testing.Short() && !slices.Contains(short, tc.probe) {
				t.Skip("-short")
			}
			t.Parallel()
			g, out := gradeProbe(t, tc.probe, tc.race)
			if !strings.Contains(out, tc.want) {
				t.Errorf("the grade does not say %q:\n%s", tc.want, out)
			}
			if g.Parts[0].Done != tc.part1 {
				t.Errorf("part 1 done = %v, want %v:\n%s", g.Parts[0].Done, tc.part1, out)
			}
			if g.Parts[1].Done != (tc.probe == "none" || tc.probe == "parent" || tc.probe == "grandchild") {
				t.Errorf("part 2 done = %v:\n%s", g.Parts[1].Done, out)
			}
		})
	}
}

// TestAHangingMethodIsNamedByItsCase: the runner stops waiting for a case
// after its time limit, names it, and goes on with the next.
func TestAHangingMethodIsNamedByItsCase(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a case's time limit")
	}
	t.Setenv("LADDER_CASE_TIMEOUT", "500ms")
	g, out := gradeProbe(t, "hang", false)
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
	gradeProbe(t, "grandchild", false)
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the grade took %v; the grandchild sleeps 60 s", took)
	}
	if out, err := exec.Command("pgrep", "-f", "sleep "+probe.GrandchildSleep).Output(); err == nil {
		t.Errorf("the grandchild outlived the grade: pgrep found %s", out)
	}
}
