package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/remote"
	"github.com/rateladder/rateladder/harness/timeline"
)

// Check runs every case the class report's checker can judge against
// counters that live in another process, the student's child, through
// conn, which keeps the identity of viewerr's errors.
func Check(t *testing.T, conn *remote.Conn) {
	timeline.Run(t, timeline.Checked(cases(remoteNew(conn))))
}

// CheckFuzz plays the fuzz target's timelines against the child's
// counters: its seeds, and the inputs f holds already.
func CheckFuzz(f *testing.F, conn *remote.Conn) { Fuzz(f, remoteNew(conn)) }

// remoteCounter is a Counter whose methods run in the child.
type remoteCounter struct{ o *remote.Object }

func remoteNew(conn *remote.Conn) func(window, bucket time.Duration) Counter {
	return func(window, bucket time.Duration) Counter {
		return remoteCounter{conn.New("New", nil, window, bucket)}
	}
}

func (r remoteCounter) Add(now time.Time, views int) (err error) {
	r.o.Call("Add", []any{&err}, now, views)
	return err
}

func (r remoteCounter) Count(now time.Time) (n int, err error) {
	r.o.Call("Count", []any{&n, &err}, now)
	return n, err
}
