package spec

import (
	"time"

	"github.com/rateladder/rateladder/harness/remote"
)

// Check runs every case the class report's checker can judge against
// counters that live in another process, the student's child, through a
// connection to it, which keeps the identity of viewerr's errors.
// CheckFuzz plays the fuzz target's timelines against the child's
// counters: its seeds, and the inputs f holds already.
var Check, CheckFuzz = remote.Checkers(cases, Fuzz[Counter], remoteNew)

// remoteCounter is a Counter whose methods run in the child.
type remoteCounter struct{ o *remote.Object }

func (r remoteCounter) Add(now time.Time, views int) error {
	return remote.Result[error](r.o, "Add", now, views)
}

func (r remoteCounter) Count(now time.Time) (int, error) {
	return remote.Result2[int, error](r.o, "Count", now)
}

// remoteNew builds proxies, each of a value that New builds in the child.
func remoteNew(conn *remote.Conn) func(window, bucket time.Duration) Counter {
	return func(window, bucket time.Duration) Counter {
		return remoteCounter{conn.New("New", nil, window, bucket)}
	}
}
