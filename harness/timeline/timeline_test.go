package timeline

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// tally is a toy implementation for the runner's own tests: it counts hits
// in (now-window, now], or with inclusive set, wrongly in [now-window, now].
type tally struct {
	window    time.Duration
	inclusive bool
	hits      []time.Time
	stub      bool
	loop      chan struct{} // loops until closed
	crash     bool
	deadlock  bool
	goexit    bool
	mu        *sync.Mutex
}

// endless is a tally's loop that ends with t, so that it burns no CPU
// while the other tests run.
func endless(t *testing.T) chan struct{} {
	end := make(chan struct{})
	t.Cleanup(func() { close(end) })
	return end
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func (c *tally) Hit(now time.Time) {
	if c.stub {
		panic("not implemented: tally.Hit")
	}
	c.hits = append(c.hits, now)
}

func (c *tally) Count(now time.Time) int {
	if c.crash {
		var none []int
		return none[len(c.hits)]
	}
	for c.loop != nil && !closed(c.loop) {
		runtime.Gosched() // a learner's loop that never ends, until its test has
	}
	if c.deadlock {
		c.mu = new(sync.Mutex)
		c.mu.Lock()
		c.mu.Lock() // locked twice
	}
	if c.goexit && len(c.hits) > 0 {
		runtime.Goexit()
	}
	n := 0
	for _, h := range c.hits {
		if (h.After(now.Add(-c.window)) || c.inclusive && h.Equal(now.Add(-c.window))) && !h.After(now) {
			n++
		}
	}
	return n
}

func (c *tally) Snapshot(time.Time) map[string]int {
	return map[string]int{"hits": len(c.hits), "window_s": int(c.window / time.Second)}
}

func hit() Call[*tally] {
	return Call[*tally]{Method: "Hit", Do: func(c *tally, now time.Time) any { c.Hit(now); return nil }}
}

func count(want int) Call[*tally] {
	return Call[*tally]{Method: "Count", Do: func(c *tally, now time.Time) any { return c.Count(now) }, Want: want}
}

func boundaryCase(impl tally) Case[*tally] {
	return Case[*tally]{
		Name:  "a hit leaves exactly one window later",
		Part:  1,
		Setup: "New(10s)",
		New:   func(clock.Clock) *tally { c := impl; c.window = 10 * time.Second; return &c },
		Steps: []Step[*tally]{
			At(5*time.Second, hit()),
			At(15*time.Second-1, count(1)),
			At(15*time.Second, count(0)),
			At(16*time.Second, hit()),
			At(25*time.Second, count(1)),
			At(26*time.Second, count(0)),
		},
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	// cmp.Diff picks spaces or no-break spaces at random so that nobody
	// relies on its exact text; compare with them folded together.
	got = strings.ReplaceAll(got, "\u00a0", " ")
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got+"\n"), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./harness/timeline -update to create it")
	if diff := cmp.Diff(strings.TrimSuffix(string(want), "\n"), got); diff != "" {
		t.Errorf("report %s differs from %s (-want +got):\n%s", name, path, diff)
	}
}

func TestPlayPasses(t *testing.T) {
	o := Play(boundaryCase(tally{}))
	if o.Verdict != protocol.Pass {
		t.Fatalf("Play(right tally).Verdict = %v, want pass; report:\n%s", o.Verdict, o.Report)
	}
}

func TestPlayMarksEveryStepThatDiffers(t *testing.T) {
	o := Play(boundaryCase(tally{inclusive: true}))
	if o.Verdict != protocol.Fail || o.Step != 3 {
		t.Fatalf("Play(inclusive tally) = %v at step %d, want fail at step 3", o.Verdict, o.Step)
	}
	golden(t, "fail", o.Report)
}

func TestPlayReportsNotImplemented(t *testing.T) {
	o := Play(boundaryCase(tally{stub: true}))
	if o.Verdict != protocol.NotImplemented || o.Step != 1 {
		t.Fatalf("Play(stub) = %v at step %d, want not implemented at step 1", o.Verdict, o.Step)
	}
	want := "not implemented yet: tally.Hit (harness/timeline/timeline_test.go:"
	if !strings.HasPrefix(o.Report, want) {
		t.Errorf("Play(stub).Report = %q, want it to start with %q", o.Report, want)
	}
}

func TestPlayReportsAPanicWithItsStep(t *testing.T) {
	o := Play(boundaryCase(tally{crash: true}))
	if o.Verdict != protocol.Panicked || o.Step != 2 {
		t.Fatalf("Play(crashing tally) = %v at step %d, want panicked at step 2", o.Verdict, o.Step)
	}
	for _, want := range []string{
		"Count(t=14.999999999s) panicked: runtime error: index out of range [1] with length 0",
		"harness/timeline/timeline_test.go:",
		"(*tally).Count",
		"(not run)",
	} {
		if !strings.Contains(o.Report, want) {
			t.Errorf("Play(crashing tally).Report lacks %q:\n%s", want, o.Report)
		}
	}
}

func TestPlayShowsADiffForStructuredResults(t *testing.T) {
	c := Case[*tally]{
		Name: "snapshot", Part: 2, Setup: "New(10s)",
		New: func(clock.Clock) *tally { return &tally{window: 10 * time.Second} },
		Steps: []Step[*tally]{
			At(time.Second, hit()),
			At(time.Second, Call[*tally]{
				Method: "Snapshot",
				Do:     func(c *tally, now time.Time) any { return c.Snapshot(now) },
				Want:   map[string]int{"hits": 2, "window_s": 10},
			}),
		},
	}
	o := Play(c)
	if o.Verdict != protocol.Fail {
		t.Fatalf("Play(snapshot).Verdict = %v, want fail", o.Verdict)
	}
	golden(t, "diff", o.Report)
}

// A result with unexported fields is compared and diffed like any other,
// where cmp.Equal alone would panic.
func TestPlayComparesUnexportedFields(t *testing.T) {
	type span struct{ from, to int }
	for _, tc := range []struct {
		got  span
		want string
	}{{span{1, 2}, protocol.Pass}, {span{1, 3}, protocol.Fail}} {
		o := Play(Case[*tally]{Name: "span", Part: 1, New: func(clock.Clock) *tally { return &tally{} }, Steps: []Step[*tally]{
			At(0, Call[*tally]{Method: "Span", Do: func(*tally, time.Time) any { return tc.got }, Want: span{1, 2}}),
		}})
		if o.Verdict != tc.want || tc.want == protocol.Fail && !strings.Contains(o.Report, "mismatch (-want +got)") {
			t.Errorf("Play(span %v) = %v, want %v, and a diff if it fails:\n%s", tc.got, o.Verdict, tc.want, o.Report)
		}
	}
}

func TestPlayWritesClockedCallsWithTheirTime(t *testing.T) {
	c := boundaryCase(tally{inclusive: true})
	c.Clocked = true
	c.Start = clock.Epoch.Add(-time.Hour)
	o := Play(c)
	for _, want := range []string{"at t=15s: Count() = 1, want 0", "t counts from 1969-12-31T23:00:00Z"} {
		if !strings.Contains(o.Report, want) {
			t.Errorf("Play(clocked).Report lacks %q:\n%s", want, o.Report)
		}
	}
}

func TestPlayReportsAFailedProbe(t *testing.T) {
	c := boundaryCase(tally{})
	c.Probe = func(impl *tally, clk *clock.Fake) error {
		if n := len(impl.hits); n != 0 {
			return &probeError{n}
		}
		return nil
	}
	o := Play(c)
	if o.Verdict != protocol.Fail || o.Step != 0 {
		t.Fatalf("Play(probe) = %v at step %d, want fail at step 0", o.Verdict, o.Step)
	}
	if want := "Every step gave its result, but the check after them failed: still holds 2 hits"; !strings.Contains(o.Report, want) {
		t.Errorf("Play(probe).Report lacks %q:\n%s", want, o.Report)
	}
}

type probeError struct{ n int }

func (e *probeError) Error() string { return "still holds " + string(rune('0'+e.n)) + " hits" }

// TestPlayCutsOffAnEndlessLoop leaves a goroutine looping for the rest of
// the test binary: it cannot be stopped. The next case still runs.
func TestPlayCutsOffAnEndlessLoop(t *testing.T) {
	t.Setenv(TimeoutEnv, "200ms")
	o := Play(boundaryCase(tally{loop: endless(t)}))
	if o.Verdict != protocol.TimedOut || o.Step != 2 {
		t.Fatalf("Play(looping tally) = %v at step %d, want timed out at step 2", o.Verdict, o.Step)
	}
	for _, want := range []string{
		`case "a hit leaves exactly one window later" (part 1) did not finish in 200ms: is it too slow, a loop that never ends, or a deadlock?`,
		"It was in step 2, Count(t=14.999999999s).",
		"the cases after this one still run",
	} {
		if !strings.Contains(o.Report, want) {
			t.Errorf("Play(looping).Report lacks %q:\n%s", want, o.Report)
		}
	}
	if next := Play(boundaryCase(tally{})); next.Verdict != protocol.Pass {
		t.Errorf("a case after a stuck one = %v, want it run and passed:\n%s", next.Verdict, next.Report)
	}
}

// A deadlocked case uses no CPU, so it is stopped at its limit, not after
// hangFactor limits.
func TestPlaySeesADeadlock(t *testing.T) {
	t.Setenv(TimeoutEnv, "200ms")
	o := Play(boundaryCase(tally{deadlock: true}))
	if o.Verdict != protocol.TimedOut || o.Step != 2 {
		t.Fatalf("Play(deadlocked tally) = %v at step %d, want timed out at step 2", o.Verdict, o.Step)
	}
}

func TestPlayReportsGoexit(t *testing.T) {
	o := Play(boundaryCase(tally{goexit: true}))
	if o.Verdict != protocol.Exited || o.Step != 2 {
		t.Fatalf("Play(tally calling Goexit) = %v at step %d, want exited at step 2:\n%s", o.Verdict, o.Step, o.Report)
	}
	if want := "the case stopped in step 2, Count(t=14.999999999s) without returning or panicking: does your code call runtime.Goexit"; !strings.Contains(o.Report, want) {
		t.Errorf("Play(Goexit).Report lacks %q:\n%s", want, o.Report)
	}
}

func TestPlayNamesTheLearnersLineThroughAHelper(t *testing.T) {
	c := boundaryCase(tally{stub: true})
	c.Steps[0].Call.Do = func(impl *tally, now time.Time) any {
		// A helper of the harness between the runner and the stub.
		_, _ = PanicMessage(func() { impl.Hit(now) })
		return nil
	}
	o := Play(c)
	if o.Verdict != protocol.NotImplemented || o.Missing != "tally.Hit" {
		t.Fatalf("Play(stub) = %v, missing %q; want not implemented, tally.Hit", o.Verdict, o.Missing)
	}
	if !strings.HasPrefix(o.Where, "harness/timeline/timeline_test.go:") {
		t.Errorf("Where = %q, want the line of tally.Hit, never the harness's helper", o.Where)
	}
}

func TestOffset(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 4 * time.Second: "4s", 15*time.Second - 1: "14.999999999s",
		5 * time.Minute: "5m", 90 * time.Minute: "1h30m", 168 * time.Hour: "168h",
		-5 * time.Second: "-5s", 250 * time.Millisecond: "250ms", time.Hour + time.Second: "1h0m1s",
	} {
		if got := Offset(d); got != want {
			t.Errorf("Offset(%d) = %q, want %q", int64(d), got, want)
		}
	}
}

func TestParallelRaisesAPanicInTheCaller(t *testing.T) {
	defer func() {
		if v := recover(); v != "not implemented: X" {
			t.Errorf("Parallel recovered %v, want the goroutine's panic", v)
		}
	}()
	Parallel(4, func(i int) {
		if i == 2 {
			panic("not implemented: X")
		}
	})
}

func TestChoicesRunOutAsZeros(t *testing.T) {
	c := NewChoices([]byte{7, 1, 2})
	if got := c.Intn(5); got != 2 {
		t.Errorf("Intn(5) on 7 = %d, want 2", got)
	}
	if got := c.Intn(1000); got != (1<<8|2)%1000 {
		t.Errorf("Intn(1000) on 1,2 = %d, want %d", got, (1<<8|2)%1000)
	}
	if c.More() || c.Intn(9) != 0 {
		t.Errorf("after the input ran out: More() = %v, Intn(9) = %d; want false, 0", c.More(), c.Intn(9))
	}
}
