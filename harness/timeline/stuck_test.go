package timeline

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/internal/procgroup"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// freshEnv runs a test of this file in a new process: see
// TestWithinLimitCountsCPUTimeNotPauses.
const freshEnv = "TIMELINE_TEST_FRESH_PROCESS"

// waitCase is a case whose one call returns when release is closed, or
// never.
func waitCase(release <-chan struct{}) Case[int] {
	return Case[int]{
		Name:  "a call that waits",
		Part:  1,
		Setup: "New()",
		New:   func(clock.Clock) int { return 0 },
		Steps: []Step[int]{At(time.Second, Call[int]{Method: "Wait", Do: func(int, time.Time) any { <-release; return 1 }, Want: 1})},
	}
}

// fakeCPU stands in for the CPU time of the code under test: the share
// of the time passed that it reports as used, or ok false. Its second
// reading, the runner's first check after the limit, closes release.
type fakeCPU struct {
	mu      sync.Mutex
	start   time.Time
	share   float64
	ok      bool
	reads   int
	release chan struct{}
}

func (f *fakeCPU) read() (time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reads++; f.reads == 2 && f.release != nil {
		close(f.release)
	}
	return time.Duration(f.share * float64(time.Since(f.start))), f.ok
}

// playMeasured plays waitCase with a limit of 100ms, its CPU time read
// from f as this process's, or, with elsewhere, as a checker's child's.
func playMeasured(t *testing.T, f *fakeCPU, elsewhere bool, release <-chan struct{}) (Outcome, time.Duration) {
	t.Helper()
	t.Setenv(TimeoutEnv, "100ms")
	f.start = time.Now()
	if elsewhere {
		PlayElsewhere(f.read)
	} else {
		selfCPU = f.read
	}
	t.Cleanup(func() { elsewhereCPU.Store(nil); selfCPU = procgroup.SelfCPU })
	o := Play(waitCase(release))
	return o, time.Since(f.start)
}

func TestACaseStarvedOfCPURunsOnPastItsLimit(t *testing.T) {
	release := make(chan struct{})
	f := &fakeCPU{share: 0.3, ok: true, release: release}
	if o, _ := playMeasured(t, f, false, release); o.Verdict != protocol.Pass {
		t.Errorf("a case given 30%% of a CPU, still working at its limit: %v, want it run to its end and passed:\n%s", o.Verdict, o.Report)
	}
}

func TestACaseIsStoppedAtItsLimit(t *testing.T) {
	for _, tc := range []struct {
		why   string
		share float64
		ok    bool
	}{
		{"it spent its whole limit on the CPU", 1, true},
		{"it spent no CPU time: it waits for something", 0.01, true},
		{"its CPU time cannot be read", 0.3, false},
	} {
		t.Run(tc.why, func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			o, took := playMeasured(t, &fakeCPU{share: tc.share, ok: tc.ok}, false, release)
			if o.Verdict != protocol.TimedOut || took > time.Second {
				t.Errorf("Play = %v after %v, want timed out at its limit of 100ms", o.Verdict, took)
			}
		})
	}
}

func TestAStarvedCaseIsStoppedWhenItHasUsedItsLimit(t *testing.T) {
	// It may not stop before its 100ms of CPU time, and must stop well
	// before the clock's last word (hangFactor limits, 3s): a busy
	// machine makes the timer late, not early.
	const before = hangFactor * 100 * time.Millisecond * 3 / 4
	for _, tc := range []struct {
		share float64
		from  time.Duration // when it has used 100ms of CPU time
	}{
		{0.5, 200 * time.Millisecond},
		{0.2, 500 * time.Millisecond},
	} {
		release := make(chan struct{})
		f := &fakeCPU{share: tc.share, ok: true}
		o, took := playMeasured(t, f, false, release)
		close(release)
		if o.Verdict != protocol.TimedOut || took < tc.from || took >= before {
			t.Errorf("a case given %v of a CPU that never ends: %v after %v, want timed out between %v and %v", tc.share, o.Verdict, took, tc.from, before)
		}
	}
}

// A pause while the process waits (for a CPU that another process has,
// here for a timer) is not a cost of the calls WithinLimit measures.
// It runs in a process of its own: cases earlier in this one leave
// goroutines looping (TestPlayCutsOffAnEndlessLoop), and the process's
// CPU time counts theirs.
func TestWithinLimitCountsCPUTimeNotPauses(t *testing.T) {
	if _, ok := procgroup.SelfCPU(); !ok {
		t.Skip("no CPU time on this system: WithinLimit reads the clock")
	}
	if os.Getenv(freshEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWithinLimitCountsCPUTimeNotPauses$", "-test.v")
		cmd.Env = append(os.Environ(), freshEnv+"=1")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("in a process of its own: %v\n%s", err, out)
		}
		return
	}
	err := WithinLimit(1000, 200*time.Millisecond, "1,000 calls", "O(1)", func(i int) {
		if i == 300 {
			<-time.After(300 * time.Millisecond)
		}
	})
	if err != nil {
		t.Errorf("WithinLimit over calls that paused 300ms once = %v, want nil: the pause used no CPU time", err)
	}
	spin := WithinLimit(1000, 100*time.Millisecond, "1,000 calls", "O(1)", func(int) {
		start, _ := procgroup.SelfCPU()
		for now := start; now-start < time.Millisecond; now, _ = procgroup.SelfCPU() {
		}
	})
	if spin == nil {
		t.Error("WithinLimit over 1,000 calls of 1ms of CPU each, limit 100ms = nil, want an error")
	}
}

// A checker's case, whose calls run in the student's process, is not
// judged idle: the two processes wait for each other, and on a busy
// machine for a CPU. It runs on until hangFactor limits by the clock.
func TestACheckersCaseIsNeverIdle(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	o, took := playMeasured(t, &fakeCPU{share: 0.01, ok: true}, true, release)
	if o.Verdict != protocol.TimedOut || took < hangFactor*100*time.Millisecond {
		t.Errorf("a checker's case given 1%% of a CPU that never ends: %v after %v, want timed out after %v", o.Verdict, took, hangFactor*100*time.Millisecond)
	}
}

// A checker, whose code under test plays elsewhere, leaves the probe of
// an InProcess case to that code's own process, and such a case without
// steps too; the steps it plays.
func TestPlayingElsewhereLeavesInProcessProbesOut(t *testing.T) {
	PlayElsewhere(func() (time.Duration, bool) { return 0, false })
	t.Cleanup(func() { elsewhereCPU.Store(nil) })
	played := map[string]bool{}
	probe := func(name string) func(*tally, *clock.Fake) error {
		return func(*tally, *clock.Fake) error { played[name] = true; return nil }
	}
	steps := boundaryCase(tally{})
	withSteps, noSteps, plain := steps, steps, steps
	withSteps.Name, withSteps.InProcess, withSteps.Probe = "with steps", "allocations", probe("with steps")
	noSteps.Name, noSteps.InProcess, noSteps.Probe, noSteps.Steps = "no steps", "allocations", probe("no steps"), nil
	plain.Name, plain.Probe = "plain", probe("plain")
	t.Run("run", func(t *testing.T) { Run(t, []Case[*tally]{withSteps, noSteps, plain}) })
	if !played["plain"] || played["with steps"] || played["no steps"] {
		t.Errorf("probes played elsewhere: %v, want only the plain case's", played)
	}
}
