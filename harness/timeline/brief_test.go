package timeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/clock"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// longCase is a hit a second for n seconds, each followed by a count, in a
// 10s window; the count at step wrong wants one too many.
func longCase(impl tally, n, wrong int) Case[*tally] {
	c := Case[*tally]{
		Name: "a hit a second", Part: 1, Setup: "New(10s)",
		New: func(clock.Clock) *tally { t := impl; t.window = 10 * time.Second; return &t },
	}
	for i := range n {
		at := time.Duration(i) * time.Second
		c.Steps = append(c.Steps, At(at, hit()))
		want := min(i+1, 10)
		if len(c.Steps)+1 == wrong {
			want++
		}
		c.Steps = append(c.Steps, At(at, count(want)))
	}
	return c
}

func lines(s string) []string { return strings.Split(s, "\n") }

func TestBriefOfALongCaseFitsOneScreen(t *testing.T) {
	c := longCase(tally{}, 110, 150)
	o := Play(c)
	if o.Verdict != protocol.Fail || o.Step != 150 {
		t.Fatalf("Play(220 steps, step 150 wrong) = %v at step %d, want fail at step 150", o.Verdict, o.Step)
	}
	if n := len(lines(o.Report)); n < 220 {
		t.Fatalf("the whole report has %d lines, want every step: at least 220", n)
	}
	b := lines(o.Brief)
	if len(b) > briefLines {
		t.Errorf("Brief has %d lines, want at most %d:\n%s", len(b), briefLines, o.Brief)
	}
	explained := false
	for _, l := range b[:min(5, len(b))] {
		explained = explained || l == "Count(t=1m14s) = 10, want 11"
	}
	if !explained {
		t.Errorf("Brief lacks the first wrong call within its first 5 lines:\n%s", o.Brief)
	}
	for _, want := range []string{"\n✗  150   1m14s  Count()  11    10\n", "\n   … 144 steps …\n", "\n   … 68 steps …\n", "\n" + cutNote} {
		if !strings.Contains(o.Brief, want) {
			t.Errorf("Brief lacks %q:\n%s", want, o.Brief)
		}
	}
	golden(t, "brief", o.Brief)
}

func TestBriefLeavesOutTheFarSteps(t *testing.T) {
	// An inclusive tally is wrong at every count from 10s on.
	o := Play(longCase(tally{inclusive: true}, 100, 0))
	if o.Step != 22 {
		t.Fatalf("Play(inclusive) first wrong at step %d, want 22:\n%s", o.Step, o.Brief)
	}
	if want := "… 176 steps …"; !strings.Contains(o.Brief, want) {
		t.Errorf("Brief lacks %q:\n%s", want, o.Brief)
	}
	if n := len(lines(o.Brief)); n > 16 {
		t.Errorf("Brief has %d lines, want at most 16:\n%s", n, o.Brief)
	}
}

func TestBriefOfAShortCaseIsTheWholeReport(t *testing.T) {
	o := Play(boundaryCase(tally{inclusive: true}))
	if o.Brief != o.Report {
		t.Errorf("Brief of a 6-step case differs from its Report.\nBrief:\n%s\n\nReport:\n%s", o.Brief, o.Report)
	}
}

func TestBriefCutsAProbesErrorAndALongDiff(t *testing.T) {
	c := boundaryCase(tally{})
	c.Probe = func(*tally, *clock.Fake) error {
		return errors.New(strings.Repeat("a line of explanation\n", 20) + "the end")
	}
	o := Play(c)
	b := lines(o.Brief)
	if b[1] != "Every step gave its result, but the check after them failed: a line of explanation" || b[4] != "…" {
		t.Errorf("Brief does not start with the probe's error cut to %d lines:\n%s", explainLines, o.Brief)
	}
	if o.Summary != "a line of explanation" {
		t.Errorf("Summary = %q, want the probe's first line", o.Summary)
	}

	big := map[string]int{}
	for i := range 100 {
		big[fmt.Sprintf("hits %02d", i)] = i
	}
	d := Case[*tally]{
		Name: "a big snapshot", Part: 2, Setup: "New(10s)",
		New: func(clock.Clock) *tally { return &tally{window: 10 * time.Second} },
		Steps: []Step[*tally]{At(time.Second, Call[*tally]{
			Method: "Snapshot", Do: func(c *tally, now time.Time) any { return c.Snapshot(now) }, Want: big,
		})},
	}
	o = Play(d)
	if n := len(lines(o.Report)); n < 100 {
		t.Fatalf("the whole report of a 100-key diff has %d lines, want 100 or more", n)
	}
	if n := len(lines(o.Brief)); n > briefLines {
		t.Errorf("Brief of a 100-key diff has %d lines, want at most %d:\n%s", n, briefLines, o.Brief)
	}
	if !strings.Contains(o.Brief, "step 1, Snapshot(t=1s) mismatch (-want +got):") || !strings.HasSuffix(o.Brief, "…\n"+cutNote) {
		t.Errorf("Brief lacks the diff's head and its cut:\n%s", o.Brief)
	}
}

func TestBriefOfAPanicKeepsFourFramesAndTheStepsAroundIt(t *testing.T) {
	c := longCase(tally{}, 100, 0)
	c.Steps[120].Call.Do = func(impl *tally, now time.Time) any { return deep(impl, 6) }
	o := Play(c)
	if o.Verdict != protocol.Panicked || o.Step != 121 {
		t.Fatalf("Play = %v at step %d, want panicked at step 121", o.Verdict, o.Step)
	}
	b := lines(o.Brief)
	if b[1] != "Hit(t=1m) panicked: runtime error: index out of range [0] with length 0" {
		t.Errorf("Brief's second line = %q, want the panic", b[1])
	}
	frames := 0
	for _, l := range b {
		if strings.HasPrefix(l, "    harness/timeline/brief_test.go:") {
			frames++
		}
	}
	if frames != maxFrames || len(b) > briefLines {
		t.Errorf("Brief has %d frames in %d lines, want %d frames in at most %d lines:\n%s", frames, len(b), maxFrames, briefLines, o.Brief)
	}
	for _, want := range []string{"\n!  121   1m    Hit()          (not run)\n", "\n   … 115 steps …\n", "\n   … 77 steps …\n"} {
		if !strings.Contains(o.Brief, want) {
			t.Errorf("Brief lacks %q:\n%s", want, o.Brief)
		}
	}
}

// deep panics n calls down, for a stack taller than a Brief shows.
func deep(impl *tally, n int) any {
	if n == 0 {
		var none []int
		return none[len(impl.hits)*0]
	}
	return deep(impl, n-1)
}

func TestSummaryOfEachVerdict(t *testing.T) {
	t.Setenv(TimeoutEnv, "200ms")
	probe := boundaryCase(tally{})
	probe.Probe = func(*tally, *clock.Fake) error { return errors.New("holds 2 hits, want 0\nmore") }
	long := boundaryCase(tally{inclusive: true})
	long.Steps[2].Call.Want = strings.Repeat("x", 300)
	for _, tc := range []struct {
		name    string
		c       Case[*tally]
		verdict string
		want    string // the Summary, or its start when it ends in "…"
	}{
		{"pass", boundaryCase(tally{}), protocol.Pass, ""},
		{"a wrong step", boundaryCase(tally{inclusive: true}), protocol.Fail, "Count(t=15s) = 1, want 0 (step 3)"},
		{"a long want", long, protocol.Fail, `Count(t=15s) = 1, want "xxx`},
		{"a failed probe", probe, protocol.Fail, "holds 2 hits, want 0"},
		{"a stub", boundaryCase(tally{stub: true}), protocol.NotImplemented, "not implemented yet: tally.Hit (harness/timeline/timeline_test.go:"},
		{"a panic", boundaryCase(tally{crash: true}), protocol.Panicked, "Count(t=14.999999999s) panicked: runtime error: index out of range [1] with length 0 (timeline_test.go:"},
		{"a loop", boundaryCase(tally{loop: endless(t)}), protocol.TimedOut, "Count(t=14.999999999s) did not finish in 200ms: too slow, a loop that never ends, or a deadlock"},
		{"a deadlock", boundaryCase(tally{deadlock: true}), protocol.TimedOut, "Count(t=14.999999999s) did not finish in 200ms: too slow, a loop that never ends, or a deadlock"},
		{"a Goexit", boundaryCase(tally{goexit: true}), protocol.Exited, "Count(t=14.999999999s) stopped without returning or panicking: runtime.Goexit?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Play(tc.c)
			if o.Verdict != tc.verdict {
				t.Fatalf("Play = %v, want %v:\n%s", o.Verdict, tc.verdict, o.Report)
			}
			if strings.Contains(o.Summary, "\n") || len([]rune(o.Summary)) > summaryWidth {
				t.Errorf("Summary = %q: %d characters, want one line of at most %d", o.Summary, len([]rune(o.Summary)), summaryWidth)
			}
			if !strings.HasPrefix(o.Summary, tc.want) || (!strings.HasSuffix(tc.want, ":") && !strings.HasPrefix(tc.want, `Count(t=15s) = 1, want "`) && o.Summary != tc.want) {
				t.Errorf("Summary = %q, want %q", o.Summary, tc.want)
			}
		})
	}
}

func TestSummaryOfALongWantKeepsItsStep(t *testing.T) {
	c := boundaryCase(tally{inclusive: true})
	c.Steps[2].Call.Want = strings.Repeat("x", 300)
	o := Play(c)
	if !strings.HasSuffix(o.Summary, "… (step 3)") {
		t.Errorf("Summary = %q, want it cut before its step", o.Summary)
	}
}

func TestFuzzCasesAreNamedForTheirInput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	saved := filepath.Join("testdata", "fuzz", "FuzzHitCounter", "3a9f0c1d2e3b4a59")
	if err := os.MkdirAll(filepath.Dir(saved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(saved, []byte("go test fuzz v1\n[]byte(\"\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for test, want := range map[string]string{
		"FuzzHitCounter/seed#3":           "fuzz: random timeline of 23 steps (seed#3 in spec/fuzz.go)",
		"FuzzHitCounter/3a9f0c1d2e3b4a59": "fuzz: random timeline of 23 steps (found by the fuzzer, saved in testdata/fuzz/FuzzHitCounter/3a9f0c1d2e3b4a59)",
		"FuzzHitCounter/77aa00bb11cc22dd": "fuzz: random timeline of 23 steps (found by the fuzzer, input 77aa00bb11cc22dd in its cache)",
		"FuzzHitCounter":                  "fuzz: random timeline of 23 steps (made by the fuzzer just now)",
	} {
		if got := fuzzName(test, 23); got != want {
			t.Errorf("fuzzName(%q, 23) = %q, want %q", test, got, want)
		}
	}
	if got := fuzzName("FuzzX/seed#0", 1); got != "fuzz: random timeline of 1 step (seed#0 in spec/fuzz.go)" {
		t.Errorf("fuzzName(one step) = %q", got)
	}
}
