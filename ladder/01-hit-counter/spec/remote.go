package spec

import (
	"time"

	"github.com/rateladder/rateladder/harness/remote"
)

// Check runs every case the class report's checker can judge against
// counters that live in another process, the student's child, through a
// connection to it: every case but the probes that measure the child's
// own process. CheckFuzz plays the fuzz target's timelines against the
// child's counters: its seeds, and the inputs f holds already.
var Check, CheckFuzz = remote.Checkers(cases, Fuzz[Counter], remoteNew)

// remoteCounter is a Counter whose methods run in the child.
type remoteCounter struct{ o *remote.Object }

func (r remoteCounter) Hit(now time.Time)       { r.o.Call("Hit", nil, now) }
func (r remoteCounter) Count(now time.Time) int { return remote.Result[int](r.o, "Count", now) }

// remoteNew builds proxies, each of a value that New builds in the child.
func remoteNew(conn *remote.Conn) func(time.Duration) Counter {
	return func(window time.Duration) Counter { return remoteCounter{conn.New("New", nil, window)} }
}
