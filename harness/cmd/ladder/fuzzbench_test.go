package main

import (
	"os/exec"
	"strings"
	"testing"
)

func TestFuzzAndBenchRunOnACopy(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes and benchmarks a copy of level 1")
	}
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

func TestMakeHelpListsTheTargets(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	cmd := exec.Command("make", "help")
	cmd.Dir = repoRoot(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make help: %v\n%s", err, out)
	}
	for _, want := range []string{"make progress", "make test-level-N", "make hint-N", "make student-copy", "make test "} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make help lacks %q:\n%s", want, out)
		}
	}
}
