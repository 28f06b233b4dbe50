package spec

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline"
	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// Wrong implementations that the spec must catch. Each is the model with
// one mistake a learner makes switched on; if an edit to the spec lets one
// of them pass, this test fails.

func withBugs(b bugs) ctor {
	return func(c clock.Clock, cfg limits.Config) (Throttler, error) { return newModel(c, cfg, b) }
}

// TestModelPassesTheSpec keeps the fuzz target's oracle honest: the model
// with no bug passes every case.
func TestModelPassesTheSpec(t *testing.T) {
	slowUnderRace(t)
	mustPass(t, cases(withBugs(bugs{}), 0))
}

// mustPass plays the cases and reports every one that does not pass. It
// does not go through timeline.Run, whose stub-check mode would expect
// every case to be "not implemented".
func mustPass(t *testing.T, cs []timeline.Case[Throttler]) {
	t.Helper()
	for _, o := range timeline.PlayAll(cs) {
		if o.Verdict != timeline.Pass {
			t.Errorf("part %d, %s", o.Part, o.Report)
		}
	}
}

// slowUnderRace gives each case more time when the race detector slows
// the model down: its part 5 sends hundreds of thousands of requests.
func slowUnderRace(t *testing.T) {
	if raceEnabled && os.Getenv(timeline.TimeoutEnv) == "" {
		t.Setenv(timeline.TimeoutEnv, "2m")
	}
}

func TestSpecCatchesMutants(t *testing.T) {
	slowUnderRace(t)
	mutants := []struct {
		name  string
		parts []int // the parts whose cases must each catch it
		bugs  bugs
	}{
		{"a group denial still charges the client", []int{4}, bugs{chargeClientOnGroupDenial: true}},
		{"a sliding window counts its oldest bucket whole", []int{2}, bugs{oldestWhole: true}},
		{"a sliding window ignores its oldest bucket", []int{2}, bugs{oldestIgnored: true}},
		{"RetryAfter one nanosecond early", []int{1, 2, 3, 4}, bugs{retryEarly: true}},
		{"eviction forgets a client one Per after its last request, with its sliding window not yet empty", []int{5}, bugs{forgetAfterPer: true}},
		{"LRU eviction at 10,000 clients: a flood of new clients resets a busy one", []int{5}, bugs{lruCapacity: 10_000}},
		{"uses the clock as it reads, even when it went back", []int{1, 2, 3}, bugs{clockAsIs: true}},
		{"Remaining ignores the group", []int{4}, bugs{remainingOfClient: true}},
	}
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			for _, part := range m.parts {
				caught := timeline.Catches(t, m.name, part, partCases(withBugs(m.bugs), part))
				t.Logf("part %d: caught by %q", part, caught)
			}
		})
	}
}

// partCases are the cases of one part: a mutant meant for part 2 need not
// send the 100,000 requests of part 5.
func partCases(newThrottler ctor, part int) []timeline.Case[Throttler] {
	var out []timeline.Case[Throttler]
	for _, c := range cases(newThrottler, 0) {
		if c.Part == part {
			out = append(out, c)
		}
	}
	return out
}

// The unsynchronised mutant has no lock at all. Its mistake shows as a
// data race, which the race detector reports by failing the whole test
// binary, and sometimes as a crash ("concurrent map writes"): neither is
// something timeline.Catches can observe from inside the same process. So
// the check runs the mutant's part 5 cases in a child process built with
// -race, and expects that child to fail. When this test binary was itself
// built with -race, the child is this binary; otherwise it is
// "go test -race", which compiles the package once more (cached after the
// first run).

const childEnv = "THROTTLE_SPEC_RACY_CHILD"

func TestSpecCatchesUnsynchronisedMap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a child test process with -race")
	}
	var cmd *exec.Cmd
	if raceEnabled {
		cmd = exec.Command(os.Args[0], "-test.run=^TestRacyChild$", "-test.count=1")
	} else {
		gotool, err := exec.LookPath("go")
		if err != nil {
			t.Skipf("no go command to build the race-enabled child: %v", err)
		}
		cmd = exec.Command(gotool, "test", "-race", "-count=1", "-run=^TestRacyChild$", ".")
	}
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the child test did not fail, so the spec misses an unsynchronised throttler (err = %v). Its output:\n%s", err, out)
	}
	switch s := string(out); {
	case strings.Contains(s, "-race requires cgo") || strings.Contains(s, "-race is not supported"):
		t.Skipf("this machine cannot build with -race, so the unsynchronised mutant goes unchecked:\n%s", out)
	case strings.Contains(s, "WARNING: DATA RACE"):
		t.Log("caught: the race detector reported a data race in the child")
	case strings.Contains(s, "concurrent map"):
		t.Log("caught: the child crashed with a concurrent map access")
	case strings.Contains(s, "--- FAIL: TestRacyChild"):
		t.Log("caught: a part 5 case failed in the child")
	default:
		t.Fatalf("the child failed, but not because of the unsynchronised map. Its output:\n%s", out)
	}
}

// TestRacyChild runs the unsynchronised mutant's part 5 cases that use
// goroutines. It does nothing unless TestSpecCatchesUnsynchronisedMap
// started it.
func TestRacyChild(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("run only as the child of TestSpecCatchesUnsynchronisedMap")
	}
	var concurrent []timeline.Case[Throttler]
	for _, c := range partCases(withBugs(bugs{unsynchronised: true}), 5) {
		if strings.Contains(c.Name, "goroutines") || strings.Contains(c.Name, "concurrency") {
			concurrent = append(concurrent, c)
		}
	}
	mustPass(t, concurrent)
}
