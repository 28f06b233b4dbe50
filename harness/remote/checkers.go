package remote

import (
	"testing"

	"github.com/rateladder/rateladder/harness/timeline"
)

// Checked returns the cases a checker in another process can judge: every
// case, but with the probe of an InProcess case left out, and without such
// a case when it has no steps. The class report's checker plays them
// against proxies of the student's code (see Conn); the
// probes left out are judged by the student's own test binary.
func Checked[T any](cases []timeline.Case[T]) []timeline.Case[T] {
	var out []timeline.Case[T]
	for _, c := range cases {
		if c.InProcess != "" {
			if len(c.Steps) == 0 {
				continue
			}
			c.Probe = nil
		}
		out = append(out, c)
	}
	return out
}

// Checkers wires a spec to the class report's checker, which plays the
// spec against the student's code in a child process that only answers
// calls. check runs the Checked cases, and
// checkFuzz the fuzz target, against the proxies that newProxy builds
// for a connection to the child. A spec's remote.go declares its proxy
// and says, in one line, what the checker calls:
//
//	var Check, CheckFuzz = remote.Checkers(cases, Fuzz[Logger], remoteNew)
func Checkers[T, N any](cases func(newT N) []timeline.Case[T], fuzz func(f *testing.F, newT N), newProxy func(conn *Conn) N) (
	check func(t *testing.T, conn *Conn), checkFuzz func(f *testing.F, conn *Conn),
) {
	check = func(t *testing.T, conn *Conn) {
		t.Helper()
		timeline.Run(t, Checked(cases(newProxy(conn))))
	}
	checkFuzz = func(f *testing.F, conn *Conn) {
		f.Helper()
		fuzz(f, newProxy(conn))
	}
	return check, checkFuzz
}
