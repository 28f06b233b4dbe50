package spec

import (
	"testing"
	"time"

	"github.com/rateladder/rateladder/harness/remote"
	"github.com/rateladder/rateladder/harness/timeline"
)

// Check runs every case the class report's checker can judge against
// loggers that live in another process, the student's child, through
// conn.
func Check(t *testing.T, conn *remote.Conn) {
	timeline.Run(t, timeline.Checked(cases(remoteNew(conn))))
}

// CheckFuzz plays the fuzz target's timelines against the child's
// loggers: its seeds, and the inputs f holds already.
func CheckFuzz(f *testing.F, conn *remote.Conn) { Fuzz(f, remoteNew(conn)) }

// remoteLogger is a Logger whose methods run in the child.
type remoteLogger struct{ o *remote.Object }

func remoteNew(conn *remote.Conn) func(time.Duration) Logger {
	return func(interval time.Duration) Logger { return remoteLogger{conn.New("New", nil, interval)} }
}

func (r remoteLogger) ShouldPrint(now time.Time, message string) (ok bool) {
	r.o.Call("ShouldPrint", []any{&ok}, now, message)
	return ok
}

func (r remoteLogger) Len() (n int) { r.o.Call("Len", []any{&n}); return n }
