package main

import (
	"strings"
	"testing"
)

func TestFuzzAndBenchRunOnACopy(t *testing.T) {
	slow(t, "fuzzes and benchmarks a copy of level 1")
	dir := copyRepo(t, "ladder/01-hit-counter", "solutions/01-hit-counter")
	useReference(t, dir, "01-hit-counter")

	out, code := runLadder(t, dir, "fuzz", "--time", "1s", "1")
	if code != 0 || !strings.Contains(out, "fuzzing FuzzHitCounter") || !strings.Contains(out, "The fuzzer found nothing wrong in 1s per target.") {
		t.Errorf("fuzz 1 on the reference = exit %d:\n%s\nwant a clean run of FuzzHitCounter", code, out)
	}
	out, code = runLadder(t, dir, "bench", "--count", "2", "--benchtime", "1x", "1")
	if code != 0 || !strings.Contains(out, "taking turns") || !strings.Contains(out, "HitCounter") || !strings.Contains(out, "sec/op") {
		t.Errorf("bench 1 = exit %d:\n%s\nwant both sides in a benchstat table", code, out)
	}
}

func TestAFuzzRunStoppedByGosOwnDeadlineFindsNothing(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      bool
	}{
		{"the deadline race (go.dev/issue/75804), as CI saw it", `fuzz: elapsed: 0s, gathering baseline coverage: 25/25 completed, now fuzzing with 2 workers
fuzz: elapsed: 2s, execs: 2921 (1454/sec), new interesting: 0 (total: 25)
--- FAIL: FuzzHitCounter (2.01s)
    context deadline exceeded
FAIL
exit status 1
FAIL	github.com/rateladder/rateladder/ladder/01-hit-counter	2.016s
`, true},
		{"a seed timeline the code gets wrong", `--- FAIL: FuzzHitCounter (0.01s)
    --- FAIL: FuzzHitCounter/seed#3 (0.00s)
        Count(t=4s) = 3, want 5
FAIL
`, false},
		{"a timeline the fuzzer found", `--- FAIL: FuzzHitCounter (1.20s)
    --- FAIL: FuzzHitCounter (0.00s)
        Count(t=4s) = 3, want 5
    Failing input written to testdata/fuzz/FuzzHitCounter/582528ddfad69eb5
FAIL
`, false},
		{"another target's deadline", "--- FAIL: FuzzOther (2.01s)\n    context deadline exceeded\nFAIL\n", false},
	} {
		if got := stoppedByItsDeadline(tc.out, "FuzzHitCounter"); got != tc.want {
			t.Errorf("%s: stoppedByItsDeadline = %v, want %v", tc.name, got, tc.want)
		}
	}
}
