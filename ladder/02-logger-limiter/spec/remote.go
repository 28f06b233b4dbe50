package spec

import (
	"time"

	"github.com/rateladder/rateladder/harness/remote"
)

// Check runs every case the class report's checker can judge against
// loggers that live in another process, the student's child, through a
// connection to it. CheckFuzz plays the fuzz target's timelines against
// the child's loggers: its seeds, and the inputs f holds already.
var Check, CheckFuzz = remote.Checkers(cases, Fuzz[Logger], remoteNew)

// remoteLogger is a Logger whose methods run in the child.
type remoteLogger struct{ o *remote.Object }

func (r remoteLogger) Len() int { return remote.Result[int](r.o, "Len") }

func (r remoteLogger) ShouldPrint(now time.Time, message string) bool {
	return remote.Result[bool](r.o, "ShouldPrint", now, message)
}

// remoteNew builds proxies, each of a value that New builds in the child.
func remoteNew(conn *remote.Conn) func(time.Duration) Logger {
	return func(interval time.Duration) Logger { return remoteLogger{conn.New("New", nil, interval)} }
}
