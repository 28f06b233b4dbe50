// Package mutation holds the checks a level's spec makes on itself in its
// _test.go files: a right implementation passes (Passes), and each wrong one
// (a mutant) is caught by its part (Caught), or under -race (CaughtUnderRace).
package mutation

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/rateladder/rateladder/harness/timeline"
)

// Passes fails t for every case, built with a right implementation, that
// does not pass.
func Passes[T any](t *testing.T, right string, cases []timeline.Case[T]) {
	t.Helper()
	for _, o := range timeline.PlayAll(cases) {
		if o.Verdict != timeline.Pass {
			t.Errorf("%s fails case %q (part %d), and it is right:\n%s", right, o.Case, o.Part, o.Report)
		}
	}
}

// DoneThrough checks that each case belongs to the lowest part whose
// features it needs: built with an implementation of parts 1 to part only,
// every case of those parts must pass.
func DoneThrough[T any](t *testing.T, impl string, part int, cases []timeline.Case[T]) {
	t.Helper()
	played := timeline.PlayThrough(part, cases)
	if len(played) == 0 {
		t.Errorf("%s: no case of parts 1 to %d to play", impl, part)
	}
	for _, o := range played {
		if o.Verdict != timeline.Pass {
			t.Errorf("%s, written for parts 1 to %d only, fails case %q of part %d: the case needs a later part's feature, so its part is wrong:\n%s",
				impl, part, o.Case, o.Part, o.Report)
		}
	}
}

// Caught runs timeline.Catches as a subtest named after the mutant, and logs
// the cases that caught it.
func Caught[T any](t *testing.T, mutant string, part int, cases []timeline.Case[T]) {
	t.Helper()
	t.Run(mutant, func(t *testing.T) {
		t.Logf("caught by: %q", timeline.Catches(t, mutant, part, cases))
	})
}

// RaceChildEnv marks the child process of CaughtUnderRace; its value is
// the test it runs.
const RaceChildEnv = "LADDER_RACE_CHILD"

// CaughtUnderRace checks a mutant whose mistake shows only as a data race:
// it runs the test again in a child built with -race, where it calls play,
// and fails t unless the child reported a race or a concurrent map access.
// It skips under -short, and where -race cannot be built.
func CaughtUnderRace(t *testing.T, mutant string, play func(t *testing.T)) {
	t.Helper()
	if os.Getenv(RaceChildEnv) == t.Name() {
		play(t)
		return
	}
	if testing.Short() {
		t.Skip("runs the mutant in a child process built with -race")
	}
	var cmd *exec.Cmd
	if timeline.RaceEnabled {
		cmd = exec.Command(os.Args[0], "-test.run="+runPattern(t.Name()), "-test.count=1")
	} else {
		goTool, err := exec.LookPath("go")
		if err != nil {
			t.Skipf("no go command to build the race child with: %v", err)
		}
		// -vet=off: the child only has to show the race.
		cmd = exec.Command(goTool, "test", "-race", "-vet=off", "-count=1", "-run="+runPattern(t.Name()), ".")
	}
	cmd.Env = append(os.Environ(), RaceChildEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	switch caught, problem := judgeRaceChild(out, err); {
	case problem != "":
		t.Errorf("mutant %q: %s\n%s", mutant, problem, out)
	case caught == "":
		t.Skipf("this machine cannot build with -race, so mutant %q goes unchecked:\n%s", mutant, out)
	default:
		t.Logf("mutant %q: %s", mutant, caught)
	}
}

// judgeRaceChild says how a race child's output caught the mutant, or why
// it did not; both are empty where -race cannot be built.
func judgeRaceChild(out []byte, err error) (caught, problem string) {
	var exit *exec.ExitError
	switch {
	case bytes.Contains(out, []byte("-race requires cgo")) || bytes.Contains(out, []byte("-race is not supported")):
		return "", ""
	case bytes.Contains(out, []byte("WARNING: DATA RACE")):
		return "caught: the race detector reported a data race", ""
	case bytes.Contains(out, []byte("fatal error: concurrent map")):
		return "caught: the child crashed with a concurrent map access", ""
	case err == nil:
		return "", "passes under -race: the spec no longer catches it"
	case !errors.As(err, &exit):
		return "", "the race child did not run: " + err.Error()
	}
	return "", "the race child failed without a data race report"
}

// runPattern is the -run pattern that matches the test named name, and no
// other: "^TestX$/^case_one$".
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// Unwritten panics the way a stub's method does: "not implemented: T.M".
func Unwritten(method string) {
	panic("not implemented: " + method)
}
